//! Writing events to the outbox, inside the caller's transaction: the event and its deliveries
//! commit together or not at all. One row per subscription that takes the event type.
use crate::error::AppResult;
use crate::webhooks::entity::{delivery, subscription, PENDING};
use chrono::{DateTime, Utc};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU32, Ordering};
use uuid::Uuid;

/// Orders events written in the same microsecond by this process.
static TICK: AtomicU32 = AtomicU32::new(0);

/// How long a delivery is retried, as recorded with it (the worker's setting decides).
const RETRIED_FOR: chrono::Duration = chrono::Duration::hours(24);

/// The body of an event: `{"type", "timestamp", "data"}` (the Standard Webhooks shape).
pub fn payload(event: &str, data: &Value, now: DateTime<Utc>) -> String {
    json!({"type": event, "timestamp": now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true), "data": data})
        .to_string()
}

/// The organisation's live subscriptions that take `event`.
pub async fn subscribers<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    event: &str,
) -> AppResult<Vec<subscription::Model>> {
    Ok(subscription::Entity::find()
        .filter(subscription::Column::OrganizationId.eq(org))
        .filter(subscription::Column::DisabledAt.is_null())
        .all(db)
        .await?
        .into_iter()
        .filter(|s| s.events.split_whitespace().any(|e| e == event))
        .collect())
}

/// Writes `event` for each item of `data` to every subscription of `org` that takes it.
pub async fn emit_each<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    event: &str,
    data: &[Value],
    now: DateTime<Utc>,
) -> AppResult<usize> {
    if data.is_empty() {
        return Ok(0);
    }
    let subs = subscribers(db, org, event).await?;
    if subs.is_empty() {
        return Ok(0);
    }
    let mut rows = Vec::with_capacity(subs.len() * data.len());
    for d in data {
        let body = payload(event, d, now);
        let seq =
            now.timestamp_micros() * 1000 + i64::from(TICK.fetch_add(1, Ordering::Relaxed) % 1000);
        for s in &subs {
            rows.push(row(s.id, org, event, body.clone(), seq, now));
        }
    }
    let n = rows.len();
    for chunk in rows.chunks(500) {
        delivery::Entity::insert_many(chunk.to_vec())
            .exec_without_returning(db)
            .await?;
    }
    Ok(n)
}

/// `emit_each` for one event.
pub async fn emit<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    event: &str,
    data: Value,
    now: DateTime<Utc>,
) -> AppResult<usize> {
    emit_each(db, org, event, &[data], now).await
}

pub fn row(
    subscription_id: Uuid,
    org: Uuid,
    event: &str,
    body: String,
    seq: i64,
    now: DateTime<Utc>,
) -> delivery::ActiveModel {
    delivery::ActiveModel {
        id: Set(Uuid::new_v4()),
        organization_id: Set(org),
        subscription_id: Set(subscription_id),
        event_type: Set(event.to_owned()),
        payload: Set(body),
        seq: Set(seq),
        status: Set(PENDING.into()),
        attempts: Set(0),
        next_attempt_at: Set(now),
        give_up_at: Set(now + RETRIED_FOR),
        claimed_until: Set(None),
        claimed_by: Set(None),
        last_status: Set(None),
        last_error: Set(None),
        created_at: Set(now),
        ended_at: Set(None),
    }
}
