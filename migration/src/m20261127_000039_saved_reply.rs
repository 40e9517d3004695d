//! Saved replies (issue 28 §4): an organisation's named texts with merge fields
//! (`{{contact.first_name|there}}`), inserted from the composer. The name is unique per
//! organisation whatever its case (`name_key`), and the composer's picker pages through them in
//! that order.
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
                    .table("saved_reply")
                    .col(uuid("id").primary_key())
                    .col(uuid("organization_id"))
                    .col(string("name"))
                    .col(string("name_key"))
                    .col(text("body"))
                    .col(uuid_null("created_by"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut fk(
                        "saved_reply",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("saved_reply", &["organization_id", "name_key"], true))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table("saved_reply").to_owned())
            .await
    }
}
