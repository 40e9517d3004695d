//! Each organisation's own provider account (Twilio): the Account SID, the sealed Auth Token and
//! an optional API key with its sealed secret. Existing numbers stay with their organisations;
//! without a row, the environment's account serves as before.
use crate::{fk, index};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("provider_account")
                    .col(pk_uuid("id"))
                    .col(uuid("organization_id"))
                    .col(string_len("provider", 16))
                    .col(string_len("account_sid", 64))
                    .col(text("auth_token_sealed"))
                    .col(string_len_null("api_key_sid", 64))
                    .col(text_null("api_key_secret_sealed"))
                    .col(uuid("connected_by"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut fk(
                        "provider_account",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("provider_account", &["organization_id"], true))
            .await?;
        manager
            .create_index(index("provider_account", &["account_sid"], false))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table("provider_account").to_owned())
            .await
    }
}
