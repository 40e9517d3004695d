//! Seeds the "Text Reply" platform agent (send_mode 'suggest') and backfills a clone for every
//! existing member, copying send_mode explicitly so no clone silently becomes autonomous.
use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{DbBackend, Statement};

/// Mirrors `herald::ai_agent::TEXT_REPLY_AGENT_ID`.
pub const TEXT_REPLY_AGENT_ID: &str = "a1a1a1a1-0000-4000-8000-000000000005";

const PERSONA: &str =
    "You answer text messages for a small business, from the number the customer texted.";
const GOALS: &str =
    "Reply briefly and warmly, grounded in the contact's record and recent messages. \
In suggest mode, draft two or three reply options with propose_sms_replies. \
In autonomous mode, send only when confident; otherwise escalate_to_user with your draft.";

fn uuid_literal(backend: DbBackend) -> String {
    if backend == DbBackend::Postgres {
        format!("'{TEXT_REPLY_AGENT_ID}'::uuid")
    } else {
        format!("X'{}'", TEXT_REPLY_AGENT_ID.replace('-', ""))
    }
}

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        let backend = manager.get_database_backend();
        let now = if backend == DbBackend::Postgres {
            "NOW()"
        } else {
            "strftime('%Y-%m-%d %H:%M:%f+00:00','now')"
        };
        // sea-orm keeps uuids as 16-byte blobs on SQLite.
        let uuid_new = if backend == DbBackend::Postgres {
            "gen_random_uuid()"
        } else {
            "randomblob(16)"
        };
        let id = uuid_literal(backend);
        db.execute_raw(Statement::from_sql_and_values(
            backend,
            format!(
                "INSERT INTO ai_agent (id, organization_id, user_id, system_source_id, name, persona, goals, send_mode, \
                 attach_domain_tools, tools_allowlist, config_payload, created_at) \
                 VALUES ({id}, NULL, NULL, NULL, 'Text Reply', {p1}, {p2}, 'suggest', TRUE, '[\"escalate_to_user\"]', '{{}}', {now})",
                p1 = if backend == DbBackend::Postgres { "$1" } else { "?" },
                p2 = if backend == DbBackend::Postgres { "$2" } else { "?" },
            ),
            [PERSONA.into(), GOALS.into()],
        ))
        .await?;
        // Backfill: one clone per existing member; every column copied from the source, send_mode included.
        db.execute_unprepared(&format!(
            "INSERT INTO ai_agent (id, organization_id, user_id, system_source_id, name, persona, goals, send_mode, \
             attach_domain_tools, tools_allowlist, config_payload, created_at) \
             SELECT {uuid_new}, m.organization_id, m.user_id, src.id, src.name, src.persona, src.goals, src.send_mode, \
             src.attach_domain_tools, src.tools_allowlist, src.config_payload, {now} \
             FROM membership m CROSS JOIN ai_agent src WHERE src.id = {id}"
        ))
        .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let id = uuid_literal(manager.get_database_backend());
        manager
            .get_connection()
            .execute_unprepared(&format!(
                "DELETE FROM ai_agent WHERE system_source_id = {id} OR id = {id}"
            ))
            .await?;
        Ok(())
    }
}
