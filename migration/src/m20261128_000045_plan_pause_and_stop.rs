//! Steering a plan after approval (issue 29 §2). `paused_at`: a step plan waiting on a person is
//! paused, left alone by the sweeper, and woken only by a decision; `waiting_steps` counts the
//! steps it waits on (the attention counts add them up). `stopped` is a plan status (a string
//! column, no schema change); a campaign a stopped plan started is paused, and `paused_from` on
//! the operation remembers what it was doing, so Resume takes it back there.
use crate::{add_column, index};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(
            manager,
            "ai_agent_plan",
            timestamp_with_time_zone_null("paused_at"),
        )
        .await?;
        add_column(
            manager,
            "ai_agent_plan",
            integer("waiting_steps").default(0).to_owned(),
        )
        .await?;
        add_column(
            manager,
            "assistant_operation",
            string_len_null("paused_from", 32),
        )
        .await?;
        // The attention counts: an organisation's paused plans.
        manager
            .create_index(index(
                "ai_agent_plan",
                &["organization_id", "paused_at"],
                false,
            ))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("idx_ai_agent_plan_organization_id_paused_at")
                    .table("ai_agent_plan")
                    .to_owned(),
            )
            .await?;
        crate::drop_column(manager, "assistant_operation", "paused_from").await?;
        crate::drop_column(manager, "ai_agent_plan", "waiting_steps").await?;
        crate::drop_column(manager, "ai_agent_plan", "paused_at").await
    }
}
