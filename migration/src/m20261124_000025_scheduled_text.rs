//! `scheduled_text`: a text an agent's plan scheduled for later. Its id is the scheduling
//! call's effect key, so a step run again after a crash schedules it once; the sweeper sends it
//! when due through the send ledger under the same id, so it goes once.
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
                    .table("scheduled_text")
                    .col(pk_uuid("id"))
                    .col(uuid("organization_id"))
                    .col(uuid("contact_id"))
                    .col(uuid("phone_number_id"))
                    .col(text("body"))
                    .col(timestamp_with_time_zone("send_at"))
                    .col(string_len("status", 16))
                    .col(uuid_null("plan_id"))
                    .col(uuid_null("message_id"))
                    .col(text_null("error"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut fk(
                        "scheduled_text",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "scheduled_text",
                        "contact_id",
                        "contact",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("scheduled_text", &["status", "send_at"], false))
            .await?;
        manager
            .create_index(index("scheduled_text", &["contact_id"], false))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table("scheduled_text").to_owned())
            .await
    }
}
