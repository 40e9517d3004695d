//! Idle threads are archived with a summary: a new text from the contact starts a fresh thread,
//! which reads the summary of the archived one.
use crate::{add_column, drop_column};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(manager, "ai_thread", text_null("summary")).await?;
        manager
            .get_connection()
            .execute_unprepared(
                "CREATE INDEX idx_ai_thread_state_updated ON ai_thread (state, updated_at)",
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .get_connection()
            .execute_unprepared("DROP INDEX IF EXISTS idx_ai_thread_state_updated")
            .await?;
        drop_column(manager, "ai_thread", "summary").await
    }
}
