//! Durable agent runtime: thread leases and retry times, per-input attempts, database-ordered
//! events, routed inbound texts, and effect keys so a re-run turn never repeats an effect.
use crate::{add_column, drop_column};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

const UNIQUE_KEYS: [(&str, &str); 4] = [
    ("ai_thread_event", "dedupe_key"),
    ("ai_agent_plan", "source_key"),
    ("text_agent_suggestion", "source_key"),
    ("notification", "source_key"),
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // A claim is a lease: who holds the thread and until when; a failed turn waits for retry_at.
        add_column(manager, "ai_thread", string_null("lease_owner")).await?;
        add_column(
            manager,
            "ai_thread",
            timestamp_with_time_zone_null("lease_expires_at"),
        )
        .await?;
        add_column(
            manager,
            "ai_thread",
            timestamp_with_time_zone_null("retry_at"),
        )
        .await?;

        add_column(
            manager,
            "ai_thread_event",
            integer("attempts").default(0).to_owned(),
        )
        .await?;
        add_column(manager, "ai_thread_event", text_null("error")).await?;
        for (table, col) in UNIQUE_KEYS {
            add_column(manager, table, string_null(col)).await?;
        }
        add_column(
            manager,
            "message",
            timestamp_with_time_zone_null("routed_at"),
        )
        .await?;
        let conn = manager.get_connection();
        if manager.get_database_backend() == sea_orm::DbBackend::Postgres {
            // PostgreSQL numbers events from one sequence: concurrent appenders never collide.
            conn.execute_unprepared("CREATE SEQUENCE ai_thread_event_seq")
                .await?;
            conn.execute_unprepared(
                "SELECT setval('ai_thread_event_seq', GREATEST(COALESCE((SELECT MAX(seq) FROM ai_thread_event), 0), 1))",
            )
            .await?;
        }
        // Texts stored before this migration were routed by the old in-process path.
        conn.execute_unprepared(
            "UPDATE message SET routed_at = created_at WHERE direction = 'inbound'",
        )
        .await?;
        for (table, col) in UNIQUE_KEYS {
            conn.execute_unprepared(&format!(
                "CREATE UNIQUE INDEX uq_{table}_{col} ON {table} ({col})"
            ))
            .await?;
        }
        for sql in [
            // Event order comes from the database: one sequence number per event in a thread.
            "CREATE UNIQUE INDEX uq_ai_thread_event_thread_seq ON ai_thread_event (thread_id, seq)",
            "CREATE INDEX idx_ai_thread_event_pending ON ai_thread_event (thread_id) WHERE processed_at IS NULL",
            "CREATE INDEX idx_ai_thread_state_lease ON ai_thread (state, lease_expires_at)",
            "CREATE INDEX idx_message_unrouted ON message (created_at) WHERE direction = 'inbound' AND routed_at IS NULL",
        ] {
            conn.execute_unprepared(sql).await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let conn = manager.get_connection();
        for idx in [
            "uq_ai_thread_event_thread_seq",
            "idx_ai_thread_event_pending",
            "idx_ai_thread_state_lease",
            "idx_message_unrouted",
        ] {
            conn.execute_unprepared(&format!("DROP INDEX IF EXISTS {idx}"))
                .await?;
        }
        if manager.get_database_backend() == sea_orm::DbBackend::Postgres {
            conn.execute_unprepared("DROP SEQUENCE IF EXISTS ai_thread_event_seq")
                .await?;
        }
        for (table, col) in UNIQUE_KEYS {
            conn.execute_unprepared(&format!("DROP INDEX IF EXISTS uq_{table}_{col}"))
                .await?;
            drop_column(manager, table, col).await?;
        }
        drop_column(manager, "message", "routed_at").await?;
        for col in ["attempts", "error"] {
            drop_column(manager, "ai_thread_event", col).await?;
        }
        for col in ["lease_owner", "lease_expires_at", "retry_at"] {
            drop_column(manager, "ai_thread", col).await?;
        }
        Ok(())
    }
}
