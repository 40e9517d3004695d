//! `tool_effect`: the ledger of keyed tool writes (tags, custom fields, notes). A write runs in
//! the same transaction as its row, keyed by its effect key, so a step or a turn re-run after a
//! crash finds the row and answers the recorded result instead of writing again.
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
                    .table("tool_effect")
                    .col(pk_uuid("id"))
                    .col(uuid("organization_id"))
                    .col(string_len("tool", 64))
                    .col(json("result"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        "tool_effect",
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
            .drop_table(Table::drop().table("tool_effect").to_owned())
            .await
    }
}
