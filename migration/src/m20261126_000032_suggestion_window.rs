//! An index on the suggestion sets by agent and time: the "drafted replies" notification rolls
//! up an agent's sets of one quarter hour, and counts their conversations by this range.
use crate::index;
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_index(index(
                "text_agent_suggestion",
                &["ai_agent_id", "created_at"],
                false,
            ))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("idx_text_agent_suggestion_ai_agent_id_created_at")
                    .table("text_agent_suggestion")
                    .to_owned(),
            )
            .await
    }
}
