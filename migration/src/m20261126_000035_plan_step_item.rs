//! `for_each` steps' items: one row per item of a step that runs once per item (seed 004's
//! loop). Each row keeps the item, its status, result or error, and when it ran, so a step over
//! 20,000 contacts never rewrites the plan's JSON per item, a restarted runner resumes at the
//! first item not yet finished, and the card counts progress in SQL.
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
                    .table("plan_step_item")
                    .col(uuid("plan_id"))
                    .col(string_len("step_id", 64))
                    .col(integer("idx"))
                    .col(string("item_key"))
                    .col(json("item"))
                    .col(string_len("status", 24))
                    .col(json_null("result"))
                    .col(string_null("error"))
                    .col(timestamp_with_time_zone_null("ended_at"))
                    .primary_key(Index::create().col("plan_id").col("step_id").col("idx"))
                    .foreign_key(&mut fk(
                        "plan_step_item",
                        "plan_id",
                        "ai_agent_plan",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        // The items still to run, in order, and the progress counts by status.
        manager
            .create_index(index(
                "plan_step_item",
                &["plan_id", "step_id", "status", "idx"],
                false,
            ))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table("plan_step_item").to_owned())
            .await
    }
}
