//! A campaign may wait for a date and time (issue 51 §1): `assistant_operation.send_after`, when
//! set, holds an approved campaign's sending until then (each contact's quiet hours still apply
//! after it). A person's own campaign (`kind = 'written'`) sets it from "send at".
use crate::add_column;
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(
            manager,
            "assistant_operation",
            timestamp_with_time_zone_null("send_after"),
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        crate::drop_column(manager, "assistant_operation", "send_after").await
    }
}
