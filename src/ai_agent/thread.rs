//! Threads as storage: find-or-create one per (agent, key), append events in database order,
//! and read a thread's pending inputs. Running threads is `worker`'s job; this module never
//! calls up into it.
use crate::ai_agent::entity::{ai_thread, ai_thread_event};
use crate::ai_agent::events::AiThreadEventPayload;
use crate::error::{AppError, AppResult};
use crate::platform::db::is_unique_violation;
use crate::platform::AppState;
use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, QueryFilter,
    QueryOrder, Set, Statement,
};
use uuid::Uuid;

pub fn contact_key(contact_id: Uuid) -> String {
    format!("contact:{contact_id}")
}

/// The live (not archived) thread for (agent, key), if any.
pub async fn active_thread_for<C: ConnectionTrait>(
    db: &C,
    agent_id: Uuid,
    key: &str,
) -> AppResult<Option<Uuid>> {
    Ok(ai_thread::Entity::find()
        .filter(ai_thread::Column::AgentId.eq(agent_id))
        .filter(ai_thread::Column::CorrelationKey.eq(key))
        .filter(ai_thread::Column::State.ne("archived"))
        .one(db)
        .await?
        .map(|t| t.id))
}

pub async fn spawn_ai_agent_thread<C: ConnectionTrait>(
    db: &C,
    agent_id: Uuid,
    organization_id: Uuid,
    correlation_key: Option<String>,
    now: DateTime<Utc>,
) -> Result<Uuid, sea_orm::DbErr> {
    let id = Uuid::new_v4();
    ai_thread::ActiveModel {
        id: Set(id),
        agent_id: Set(agent_id),
        organization_id: Set(organization_id),
        correlation_key: Set(correlation_key),
        state: Set("idle".into()),
        last_error: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
        lease_owner: Set(None),
        lease_expires_at: Set(None),
        retry_at: Set(None),
        summary: Set(None),
    }
    .insert(db)
    .await?;
    Ok(id)
}

/// The live thread for (agent, key), created if there is none. A concurrent insert loses to the
/// partial unique index and re-reads the winner's thread.
pub async fn find_or_create_thread(
    state: &AppState,
    agent_id: Uuid,
    organization_id: Uuid,
    key: &str,
) -> AppResult<Uuid> {
    if let Some(id) = active_thread_for(&state.db, agent_id, key).await? {
        return Ok(id);
    }
    match spawn_ai_agent_thread(
        &state.db,
        agent_id,
        organization_id,
        Some(key.to_owned()),
        state.clock.now(),
    )
    .await
    {
        Ok(id) => {
            carry_summary(state, agent_id, key, id).await?;
            Ok(id)
        }
        Err(e) if is_unique_violation(&e) => active_thread_for(&state.db, agent_id, key)
            .await?
            .ok_or_else(|| AppError::Internal("thread race lost but no thread found".into())),
        Err(e) => Err(e.into()),
    }
}

/// A fresh thread begins with the summary of the newest archived thread for the same key.
async fn carry_summary(state: &AppState, agent_id: Uuid, key: &str, fresh: Uuid) -> AppResult<()> {
    let Some(old) = ai_thread::Entity::find()
        .filter(ai_thread::Column::AgentId.eq(agent_id))
        .filter(ai_thread::Column::CorrelationKey.eq(key))
        .filter(ai_thread::Column::State.eq("archived"))
        .order_by_desc(ai_thread::Column::UpdatedAt)
        .one(&state.db)
        .await?
    else {
        return Ok(());
    };
    let Some(text) = old.summary.filter(|s| !s.trim().is_empty()) else {
        return Ok(());
    };
    let payload = AiThreadEventPayload::EarlierSummary {
        archived_thread_id: old.id,
        text,
    };
    append_event_once(
        &state.db,
        fresh,
        &payload,
        state.clock.now(),
        Some(format!("summary:{fresh}")),
    )
    .await?;
    Ok(())
}

/// Appends an event after the thread's last one (the order comes from the database, never from a
/// clock, so every instance and every restart agrees on it).
pub async fn append_event<C: ConnectionTrait>(
    db: &C,
    thread_id: Uuid,
    payload: &AiThreadEventPayload,
    now: DateTime<Utc>,
) -> AppResult<Uuid> {
    Ok(append_event_at(db, thread_id, payload, now, None)
        .await?
        .ok_or_else(|| AppError::Internal("an event without a key was refused".into()))?
        .0)
}

/// Like `append_event`, but at most once per `dedupe_key`: None when the key is already there.
pub async fn append_event_once<C: ConnectionTrait>(
    db: &C,
    thread_id: Uuid,
    payload: &AiThreadEventPayload,
    now: DateTime<Utc>,
    dedupe_key: Option<String>,
) -> AppResult<Option<Uuid>> {
    Ok(append_event_at(db, thread_id, payload, now, dedupe_key)
        .await?
        .map(|(id, _)| id))
}

/// Appends and answers the event's id and sequence number (None: the dedupe key was taken).
/// One statement numbers and inserts it. PostgreSQL numbers events from one database sequence
/// (concurrent appenders never collide); SQLite has one writer, so the thread's highest number
/// plus one is safe.
pub async fn append_event_at<C: ConnectionTrait>(
    db: &C,
    thread_id: Uuid,
    payload: &AiThreadEventPayload,
    now: DateTime<Utc>,
    dedupe_key: Option<String>,
) -> AppResult<Option<(Uuid, i64)>> {
    let json = serde_json::to_value(payload).map_err(|e| AppError::Internal(e.to_string()))?;
    // Only inputs wait for a turn; the turn's own record is born processed.
    let processed: Option<DateTime<Utc>> = (!payload.is_input()).then_some(now);
    let backend = db.get_database_backend();
    let sql = match backend {
        DbBackend::Postgres => {
            "INSERT INTO ai_thread_event (id, thread_id, seq, kind, payload, processed_at, created_at, attempts, dedupe_key) \
             VALUES ($1, $2, nextval('ai_thread_event_seq'), $3, $4, $5, $6, 0, $7) \
             ON CONFLICT DO NOTHING RETURNING seq"
        }
        _ => {
            "INSERT INTO ai_thread_event (id, thread_id, seq, kind, payload, processed_at, created_at, attempts, dedupe_key) \
             SELECT ?1, ?2, COALESCE(MAX(seq), 0) + 1, ?3, ?4, ?5, ?6, 0, ?7 FROM ai_thread_event WHERE thread_id = ?2 \
             ON CONFLICT DO NOTHING RETURNING seq"
        }
    };
    for _ in 0..50 {
        let id = Uuid::new_v4();
        let values: Vec<sea_orm::Value> = vec![
            id.into(),
            thread_id.into(),
            payload.kind().into(),
            json.clone().into(),
            processed.into(),
            now.into(),
            dedupe_key.clone().into(),
        ];
        let row = db
            .query_one_raw(Statement::from_sql_and_values(backend, sql, values))
            .await?;
        if let Some(row) = row {
            return Ok(Some((id, row.try_get::<i64>("", "seq")?)));
        }
        // Nothing inserted: the dedupe key is taken (the same input, queued before), or another
        // writer took this sequence number (try the next).
        if let Some(key) = &dedupe_key {
            let seen = ai_thread_event::Entity::find()
                .filter(ai_thread_event::Column::DedupeKey.eq(key.as_str()))
                .one(db)
                .await?;
            if seen.is_some() {
                return Ok(None);
            }
        }
        tokio::task::yield_now().await;
    }
    Err(AppError::Internal(
        "could not append a thread event: too much contention".into(),
    ))
}

/// Inputs no turn has finished yet, oldest first.
pub async fn pending_inputs<C: ConnectionTrait>(
    db: &C,
    thread_id: Uuid,
) -> AppResult<Vec<ai_thread_event::Model>> {
    Ok(ai_thread_event::Entity::find()
        .filter(ai_thread_event::Column::ThreadId.eq(thread_id))
        .filter(ai_thread_event::Column::ProcessedAt.is_null())
        .order_by_asc(ai_thread_event::Column::Seq)
        .all(db)
        .await?)
}

/// Marks inputs done (a turn finished them, or they were set aside with `error`).
pub async fn mark_processed<C: ConnectionTrait>(
    db: &C,
    ids: &[Uuid],
    now: DateTime<Utc>,
    error: Option<String>,
) -> AppResult<()> {
    let mut update = ai_thread_event::Entity::update_many()
        .col_expr(ai_thread_event::Column::ProcessedAt, Expr::value(now));
    if let Some(e) = error {
        update = update.col_expr(ai_thread_event::Column::Error, Expr::value(Some(e)));
    }
    update
        .filter(ai_thread_event::Column::Id.is_in(ids.iter().copied()))
        .filter(ai_thread_event::Column::ProcessedAt.is_null())
        .exec(db)
        .await?;
    Ok(())
}

pub fn payload_of(e: &ai_thread_event::Model) -> Option<AiThreadEventPayload> {
    serde_json::from_value(e.payload.clone()).ok()
}
