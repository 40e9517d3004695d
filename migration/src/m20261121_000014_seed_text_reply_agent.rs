//! Seeds the "Text Reply" platform agent (send_mode 'suggest') and backfills a clone for every
//! existing member, copying send_mode explicitly so no clone silently becomes autonomous.
use crate::platform_agent::{self, PlatformAgent};
use sea_orm_migration::prelude::*;

/// Mirrors `herald::ai_agent::model::TEXT_REPLY_AGENT_ID`.
pub const TEXT_REPLY_AGENT_ID: &str = "a1a1a1a1-0000-4000-8000-000000000005";

const AGENT: PlatformAgent = PlatformAgent {
    id: TEXT_REPLY_AGENT_ID,
    name: "Text Reply",
    persona: "You answer text messages for a small business, from the number the customer texted.",
    goals: "Reply briefly and warmly, grounded in the contact's record and recent messages. \
In suggest mode, draft two or three reply options with propose_sms_replies. \
In autonomous mode, send only when confident; otherwise escalate_to_user with your draft.",
    send_mode: "suggest",
    config: "{}",
};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        platform_agent::seed(manager, &AGENT).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        platform_agent::remove(manager, TEXT_REPLY_AGENT_ID).await
    }
}
