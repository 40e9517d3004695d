//! A step plan's steps as they stand, one row each (issue 27 §2): a runner's transition writes
//! the one step that moved, not the plan's whole JSON. The plan's `action_payload` keeps its
//! steps as they were presented and approved; a step's row, once it has one, is that step now
//! (its status, result or error, confirmation and times, and its arguments as a person edited
//! them). Plans from before this migration have no rows and read as they were written.
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
                    .table("plan_step")
                    .col(uuid("plan_id"))
                    .col(string_len("step_id", 64))
                    .col(string_len("status", 24))
                    .col(json("step"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .primary_key(Index::create().col("plan_id").col("step_id"))
                    .foreign_key(&mut fk(
                        "plan_step",
                        "plan_id",
                        "ai_agent_plan",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table("plan_step").to_owned())
            .await
    }
}
