//! Seeding a platform agent (no organisation, no user) and backfilling a clone for every member,
//! copying every column from the source, send_mode included.
use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{DbBackend, Statement};

pub struct PlatformAgent {
    pub id: &'static str,
    pub name: &'static str,
    pub persona: &'static str,
    pub goals: &'static str,
    pub send_mode: &'static str,
    /// JSON text for `config_payload`.
    pub config: &'static str,
}

/// sea-orm keeps uuids as 16-byte blobs on SQLite, native uuids on PostgreSQL.
fn uuid_literal(backend: DbBackend, id: &str) -> String {
    if backend == DbBackend::Postgres {
        format!("'{id}'::uuid")
    } else {
        format!("X'{}'", id.replace('-', ""))
    }
}

pub async fn seed(manager: &SchemaManager<'_>, agent: &PlatformAgent) -> Result<(), DbErr> {
    let db = manager.get_connection();
    let backend = manager.get_database_backend();
    let pg = backend == DbBackend::Postgres;
    let now = if pg {
        "NOW()"
    } else {
        "strftime('%Y-%m-%d %H:%M:%f+00:00','now')"
    };
    let uuid_new = if pg {
        "gen_random_uuid()"
    } else {
        "randomblob(16)"
    };
    let id = uuid_literal(backend, agent.id);
    let p = |n: usize| if pg { format!("${n}") } else { "?".to_owned() };
    db.execute_raw(Statement::from_sql_and_values(
        backend,
        format!(
            "INSERT INTO ai_agent (id, organization_id, user_id, system_source_id, name, persona, goals, send_mode, \
             attach_domain_tools, tools_allowlist, config_payload, created_at) \
             VALUES ({id}, NULL, NULL, NULL, {}, {}, {}, {}, TRUE, '[\"escalate_to_user\"]', {}, {now})",
            p(1),
            p(2),
            p(3),
            p(4),
            if pg { format!("CAST({} AS json)", p(5)) } else { p(5) },
        ),
        [agent.name.into(), agent.persona.into(), agent.goals.into(), agent.send_mode.into(), agent.config.into()],
    ))
    .await?;
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

pub async fn remove(manager: &SchemaManager<'_>, id: &str) -> Result<(), DbErr> {
    let id = uuid_literal(manager.get_database_backend(), id);
    manager
        .get_connection()
        .execute_unprepared(&format!(
            "DELETE FROM ai_agent WHERE system_source_id = {id} OR id = {id}"
        ))
        .await?;
    Ok(())
}
