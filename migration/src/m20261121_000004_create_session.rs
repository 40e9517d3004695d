//! Server-side sign-in sessions; the cookie carries a token whose SHA-256 is stored here.
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
                    .table("session")
                    .col(pk_uuid("id"))
                    .col(string_uniq("token_hash"))
                    .col(uuid("user_id"))
                    .col(uuid("organization_id"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("expires_at"))
                    .foreign_key(&mut fk(
                        "session",
                        "user_id",
                        "user",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "session",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("session", &["user_id"], false))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table("session").to_owned())
            .await
    }
}
