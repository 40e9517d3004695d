//! Threads: find-or-spawn one per (agent, contact), append events, and claim a thread so exactly
//! one worker runs it at a time.
use crate::ai_agent::entity::{ai_thread, ai_thread_event};
use crate::ai_agent::events::AiThreadEventPayload;
use crate::error::{AppError, AppResult};
use crate::server::db::is_unique_violation;
use crate::server::AppState;
use chrono::Utc;
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};
use std::sync::atomic::{AtomicI64, Ordering};
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
) -> Result<Uuid, sea_orm::DbErr> {
    let now = Utc::now();
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
    }
    .insert(db)
    .await?;
    Ok(id)
}

/// One long-lived thread per (agent, contact); see `find_or_spawn_thread`.
#[tracing::instrument(skip(state, payload))]
pub async fn find_or_spawn_contact_thread(
    state: &AppState,
    agent_id: Uuid,
    organization_id: Uuid,
    contact_id: Uuid,
    payload: AiThreadEventPayload,
) -> AppResult<Uuid> {
    let id =
        find_or_create_thread(state, agent_id, organization_id, &contact_key(contact_id)).await?;
    enqueue_and_maybe_spawn(state, id, payload).await?;
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
    match spawn_ai_agent_thread(&state.db, agent_id, organization_id, Some(key.to_owned())).await {
        Ok(id) => Ok(id),
        Err(e) if is_unique_violation(&e) => active_thread_for(&state.db, agent_id, key)
            .await?
            .ok_or_else(|| AppError::Internal("thread race lost but no thread found".into())),
        Err(e) => Err(e.into()),
    }
}

static LAST_SEQ: AtomicI64 = AtomicI64::new(0);

/// A strictly increasing sequence within this process, close to wall-clock microseconds.
fn next_seq() -> i64 {
    let now = Utc::now().timestamp_micros();
    let mut last = LAST_SEQ.load(Ordering::SeqCst);
    loop {
        let next = now.max(last + 1);
        match LAST_SEQ.compare_exchange(last, next, Ordering::SeqCst, Ordering::SeqCst) {
            Ok(_) => return next,
            Err(seen) => last = seen,
        }
    }
}

pub async fn append_event<C: ConnectionTrait>(
    db: &C,
    thread_id: Uuid,
    payload: &AiThreadEventPayload,
) -> AppResult<Uuid> {
    let id = Uuid::new_v4();
    let now = Utc::now();
    ai_thread_event::ActiveModel {
        id: Set(id),
        thread_id: Set(thread_id),
        seq: Set(next_seq()),
        kind: Set(payload.kind().into()),
        payload: Set(serde_json::to_value(payload).map_err(|e| AppError::Internal(e.to_string()))?),
        // Only inputs wait for a turn; the turn's own record is born processed.
        processed_at: Set((!payload.is_input()).then_some(now)),
        created_at: Set(now),
    }
    .insert(db)
    .await?;
    Ok(id)
}

/// Moves the thread from idle to running; true when this caller won it.
pub async fn claim_thread<C: ConnectionTrait>(db: &C, thread_id: Uuid) -> AppResult<bool> {
    let res = ai_thread::Entity::update_many()
        .col_expr(ai_thread::Column::State, Expr::value("running"))
        .col_expr(ai_thread::Column::UpdatedAt, Expr::value(Utc::now()))
        .filter(ai_thread::Column::Id.eq(thread_id))
        .filter(ai_thread::Column::State.eq("idle"))
        .exec(db)
        .await?;
    Ok(res.rows_affected == 1)
}

/// Back to idle; an error, when given, is kept on the thread for the thread view.
pub async fn release_thread<C: ConnectionTrait>(
    db: &C,
    thread_id: Uuid,
    last_error: Option<String>,
) -> AppResult<()> {
    let mut update =
        ai_thread::Entity::update_many().col_expr(ai_thread::Column::State, Expr::value("idle"));
    if let Some(e) = last_error {
        update = update.col_expr(ai_thread::Column::LastError, Expr::value(Some(e)));
    }
    update
        .col_expr(ai_thread::Column::UpdatedAt, Expr::value(Utc::now()))
        .filter(ai_thread::Column::Id.eq(thread_id))
        .filter(ai_thread::Column::State.eq("running"))
        .exec(db)
        .await?;
    Ok(())
}

/// Stores the event, then starts a worker if the thread was idle. A running worker drains it
/// in its next turn: it re-checks for inputs after going idle, so no wake-up is lost.
#[tracing::instrument(skip(state, payload), fields(kind = payload.kind()))]
pub async fn enqueue_and_maybe_spawn(
    state: &AppState,
    thread_id: Uuid,
    payload: AiThreadEventPayload,
) -> AppResult<()> {
    append_event(&state.db, thread_id, &payload).await?;
    if claim_thread(&state.db, thread_id).await? {
        let bg = state.clone();
        state.tasks.spawn(async move {
            crate::ai_agent::runtime::run_claimed_thread(bg, thread_id).await
        });
    }
    Ok(())
}
