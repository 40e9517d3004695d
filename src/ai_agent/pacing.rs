//! How an autonomous agent paces its replies to one contact (issue 28 §2). It answers a burst
//! once: a turn starts only when the newest inbound text is `reply_quiet` old (in-turn batching
//! then takes every text of the burst). And it never loops with a person or another bot: past
//! `replies_per_contact_day` automated replies in 24 hours it escalates instead of answering.
use crate::ai_agent::entity::{ai_agent, ai_thread, ai_thread_event};
use crate::ai_agent::events::AiThreadEventPayload;
use crate::ai_agent::model::SendMode;
use crate::error::AppResult;
use crate::messaging::entity as message;
use crate::platform::AppState;
use chrono::{DateTime, Duration, Utc};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};
use std::collections::HashSet;
use uuid::Uuid;

/// Whether the thread's agent sends by itself.
async fn autonomous(state: &AppState, thread_id: Uuid) -> AppResult<bool> {
    let Some(thread) = ai_thread::Entity::find_by_id(thread_id)
        .one(&state.db)
        .await?
    else {
        return Ok(false);
    };
    Ok(ai_agent::Entity::find_by_id(thread.agent_id)
        .one(&state.db)
        .await?
        .is_some_and(|a| SendMode::parse(&a.send_mode) == SendMode::Autonomous))
}

/// How much longer an autonomous agent waits before answering `pending` (None: answer now).
pub async fn quiet_wait(
    state: &AppState,
    thread_id: Uuid,
    pending: &[ai_thread_event::Model],
) -> AppResult<Option<std::time::Duration>> {
    let quiet = state.runtime().reply_quiet;
    if quiet.is_zero() {
        return Ok(None);
    }
    let newest = pending
        .iter()
        .filter(|e| {
            serde_json::from_value::<AiThreadEventPayload>(e.payload.clone())
                .is_ok_and(|p| matches!(p, AiThreadEventPayload::InboundSms { .. }))
        })
        .map(|e| e.created_at)
        .max();
    let Some(newest) = newest else {
        return Ok(None);
    };
    let age = (state.clock.now() - newest).to_std().unwrap_or_default();
    if age >= quiet || !autonomous(state, thread_id).await? {
        return Ok(None);
    }
    Ok(Some(quiet - age))
}

fn automated_since(since: DateTime<Utc>) -> sea_orm::Condition {
    sea_orm::Condition::all()
        .add(message::Column::Direction.eq("outbound"))
        .add(message::Column::AiOrigin.like("agent%"))
        .add(message::Column::CreatedAt.gte(since))
}

/// The contacts among `contacts` that have had `limit` automated replies in the 24 hours
/// before `now` (one grouped query).
pub async fn over_limit<C: ConnectionTrait>(
    db: &C,
    contacts: &[Uuid],
    now: DateTime<Utc>,
    limit: u32,
) -> AppResult<HashSet<Uuid>> {
    if contacts.is_empty() {
        return Ok(HashSet::new());
    }
    let rows: Vec<(Uuid, i64)> = message::Entity::find()
        .select_only()
        .column(message::Column::ContactId)
        .column_as(message::Column::Id.count(), "n")
        .filter(message::Column::ContactId.is_in(contacts.iter().copied()))
        .filter(automated_since(now - Duration::hours(24)))
        .group_by(message::Column::ContactId)
        .into_tuple()
        .all(db)
        .await?;
    Ok(rows
        .into_iter()
        .filter(|(_, n)| *n >= limit as i64)
        .map(|(c, _)| c)
        .collect())
}
