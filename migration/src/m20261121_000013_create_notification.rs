//! In-app notifications for members: escalations from agents, with the draft they carry.
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
                    .table("notification")
                    .col(pk_uuid("id"))
                    .col(uuid("organization_id"))
                    .col(uuid("user_id"))
                    .col(string("kind"))
                    .col(string("title"))
                    .col(text("body"))
                    .col(string_null("link"))
                    .col(timestamp_with_time_zone_null("read_at"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        "notification",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "notification",
                        "user_id",
                        "user",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("notification", &["user_id", "created_at"], false))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table("notification").to_owned())
            .await
    }
}
