//! Agent threads and their events; one live thread per (agent, correlation key).
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
                    .table("ai_thread")
                    .col(pk_uuid("id"))
                    .col(uuid("agent_id"))
                    .col(uuid("organization_id"))
                    .col(string_null("correlation_key"))
                    .col(
                        string("state")
                            .default("idle")
                            .check(Expr::col("state").is_in(["idle", "running", "archived"])),
                    )
                    .col(text_null("last_error"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut fk(
                        "ai_thread",
                        "agent_id",
                        "ai_agent",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "ai_thread",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        // The race guard for find-or-spawn: same predicate on SQLite and PostgreSQL.
        manager
            .get_connection()
            .execute_unprepared(
                "CREATE UNIQUE INDEX uq_ai_thread_agent_correlation_active ON ai_thread (agent_id, correlation_key) \
                 WHERE state <> 'archived' AND correlation_key IS NOT NULL",
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("ai_thread_event")
                    .col(pk_uuid("id"))
                    .col(uuid("thread_id"))
                    .col(big_integer("seq"))
                    .col(string("kind"))
                    .col(json("payload"))
                    .col(timestamp_with_time_zone_null("processed_at"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        "ai_thread_event",
                        "thread_id",
                        "ai_thread",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("ai_thread_event", &["thread_id", "seq"], false))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table("ai_thread_event").to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table("ai_thread").to_owned())
            .await
    }
}
