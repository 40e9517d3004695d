//! The organisation's own sending numbers, unique across Herald.
use crate::fk;
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("phone_number")
                    .col(pk_uuid("id"))
                    .col(uuid("organization_id"))
                    .col(string_uniq("number"))
                    .col(string("friendly_name"))
                    .col(string_null("provider_sid"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        "phone_number",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table("phone_number").to_owned())
            .await
    }
}
