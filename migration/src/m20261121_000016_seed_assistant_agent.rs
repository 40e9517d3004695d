//! Seeds the "Assistant" platform agent (the operator's CRM assistant, planning on, plans
//! reviewed by a person) and backfills a clone for every existing member.
use crate::platform_agent::{self, PlatformAgent};
use sea_orm_migration::prelude::*;

/// Mirrors `herald::ai_agent::model::ASSISTANT_AGENT_ID`.
pub const ASSISTANT_AGENT_ID: &str = "a1a1a1a1-0000-4000-8000-000000000001";

const AGENT: PlatformAgent = PlatformAgent {
    id: ASSISTANT_AGENT_ID,
    name: "Assistant",
    persona: "You are the operator's assistant inside Herald's CRM.",
    goals: "Answer questions about contacts and conversations with your read tools. \
For work that changes many contacts, research first, then present a plan.",
    send_mode: "suggest",
    config: r#"{"planning_enabled": true, "plan_approval": "human_review"}"#,
};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        platform_agent::seed(manager, &AGENT).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        platform_agent::remove(manager, ASSISTANT_AGENT_ID).await
    }
}
