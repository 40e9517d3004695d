//! The send ledger and several instances on one database: each outbound text's state (queued,
//! sending under an attempt key, sent, failed or unknown), status callbacks that arrive before
//! their SID, pacing per number shared across instances, plan leases, one campaign per plan,
//! and a sign-in rate limit every instance shares.
use crate::{add_column, drop_column};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(manager, "message", string_len_null("send_state", 16)).await?;
        add_column(manager, "message", string_null("attempt_key")).await?;
        add_column(
            manager,
            "message",
            timestamp_with_time_zone_null("attempt_started_at"),
        )
        .await?;
        add_column(
            manager,
            "message",
            integer("send_attempts").default(0).to_owned(),
        )
        .await?;
        add_column(
            manager,
            "message",
            integer("reconcile_failures").default(0).to_owned(),
        )
        .await?;
        add_column(manager, "phone_number", big_integer_null("next_send_ms")).await?;
        add_column(manager, "ai_agent_plan", string_null("lease_owner")).await?;
        add_column(
            manager,
            "ai_agent_plan",
            timestamp_with_time_zone_null("lease_expires_at"),
        )
        .await?;
        add_column(manager, "assistant_operation_item", string_null("sent_by")).await?;
        let conn = manager.get_connection();
        // Texts sent before the ledger: what their status says.
        conn.execute_unprepared(
            "UPDATE message SET send_state = CASE status WHEN 'queued' THEN 'queued' WHEN 'failed' THEN 'failed' ELSE 'sent' END \
             WHERE direction = 'outbound'",
        )
        .await?;
        for sql in [
            "CREATE INDEX idx_message_send_state ON message (send_state, attempt_started_at) WHERE direction = 'outbound'",
            "CREATE UNIQUE INDEX uq_assistant_operation_plan_id ON assistant_operation (plan_id) WHERE plan_id IS NOT NULL",
            "CREATE INDEX idx_ai_agent_plan_lease ON ai_agent_plan (status, lease_expires_at)",
        ] {
            conn.execute_unprepared(sql).await?;
        }
        manager
            .create_table(
                Table::create()
                    .table("pending_status_callback")
                    .col(pk_uuid("id"))
                    .col(string("provider_sid"))
                    .col(string_len("status", 24))
                    .col(string_null("error_code"))
                    .col(timestamp_with_time_zone("received_at"))
                    .to_owned(),
            )
            .await?;
        conn.execute_unprepared(
            "CREATE INDEX idx_pending_status_callback_sid ON pending_status_callback (provider_sid)",
        )
        .await?;
        manager
            .create_table(
                Table::create()
                    .table("rate_limit")
                    .col(string("key").primary_key())
                    .col(big_integer("window_start_ms"))
                    .col(integer("hits"))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for t in ["rate_limit", "pending_status_callback"] {
            manager
                .drop_table(Table::drop().table(t).to_owned())
                .await?;
        }
        let conn = manager.get_connection();
        for idx in [
            "idx_message_send_state",
            "uq_assistant_operation_plan_id",
            "idx_ai_agent_plan_lease",
        ] {
            conn.execute_unprepared(&format!("DROP INDEX IF EXISTS {idx}"))
                .await?;
        }
        drop_column(manager, "assistant_operation_item", "sent_by").await?;
        for col in ["lease_owner", "lease_expires_at"] {
            drop_column(manager, "ai_agent_plan", col).await?;
        }
        drop_column(manager, "phone_number", "next_send_ms").await?;
        for col in [
            "send_state",
            "attempt_key",
            "attempt_started_at",
            "send_attempts",
            "reconcile_failures",
        ] {
            drop_column(manager, "message", col).await?;
        }
        Ok(())
    }
}
