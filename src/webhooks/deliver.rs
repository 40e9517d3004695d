//! Delivering the outbox: up to `IN_FLIGHT` deliveries at once, each place claimed again as soon as
//! its delivery ends. A claim takes the head (oldest pending delivery) of subscriptions that are
//! due, organisations taking turns, so a subscription's events go in order, one at a time, while
//! different subscriptions (and organisations) go side by side. The claim is one UPDATE (FOR UPDATE SKIP LOCKED on
//! PostgreSQL), so any instance delivers and none delivers the same row at once; a claim that
//! outlives a crashed instance lapses and the row is delivered again (at least once: receivers
//! deduplicate by `webhook-id`). A failure waits an exponential, jittered time and tries again
//! until `give_up_after`, then the delivery is dead-lettered and the next one goes.
use crate::error::AppResult;
use crate::platform::AppState;
use crate::webhooks::entity::{delivery, subscription, DEAD, DELIVERED, PENDING};
use crate::webhooks::{guard, sign};
use chrono::{DateTime, Utc};
use sea_orm::{ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, QueryFilter, Set, Statement};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Notify, Semaphore};
use uuid::Uuid;

/// Deliveries in flight at once, per instance.
const IN_FLIGHT: usize = 16;
/// One organisation's deliveries in flight at once, on every instance together: however slow its
/// receivers, the other places stay for everyone else's.
const PER_ORGANISATION: usize = IN_FLIGHT / 2;
/// The longest wait between attempts.
const MAX_WAIT: Duration = Duration::from_secs(3600);

/// Delivers until the server shuts down: as soon as a delivery ends its place is claimed again,
/// so a slow receiver holds only its own place, never everyone else's next round.
pub fn start(state: &AppState) {
    let bg = state.clone();
    state.loops.spawn(async move {
        let places = Arc::new(Semaphore::new(IN_FLIGHT));
        let ended = Arc::new(Notify::new());
        loop {
            if bg.shutdown.is_cancelled() {
                return;
            }
            let free = places.available_permits();
            let claimed = match free {
                0 => Vec::new(),
                n => claim(&bg, n).await.unwrap_or_else(|e| {
                    tracing::error!(error = %e, "webhook claim failed");
                    Vec::new()
                }),
            };
            if claimed.is_empty() {
                // Nothing due, or every place busy: until one ends, or the poll comes round.
                tokio::select! {
                    _ = bg.shutdown.cancelled() => return,
                    _ = ended.notified() => {}
                    _ = tokio::time::sleep(bg.config.webhooks.poll_every) => {}
                }
                continue;
            }
            for id in claimed {
                let Ok(place) = places.clone().acquire_owned().await else {
                    return;
                };
                let (state, ended) = (bg.clone(), ended.clone());
                bg.loops.spawn(async move {
                    attempt(&state, id).await;
                    drop(place);
                    ended.notify_one();
                });
            }
        }
    });
}

/// Claims up to `n` due heads (the oldest pending delivery of each subscription), taking turns
/// between organisations: each organisation's oldest head first, then each one's second, and no
/// organisation past `PER_ORGANISATION` in flight, so one organisation's flood or slow receivers
/// never starve another's events.
async fn claim(state: &AppState, n: usize) -> AppResult<Vec<Uuid>> {
    let backend = state.db.get_database_backend();
    let now = state.clock.now();
    // A read first (on the status and due-time index): an idle outbox never takes SQLite's
    // write lock.
    let due = delivery::Entity::find()
        .filter(delivery::Column::Status.eq(PENDING))
        .filter(delivery::Column::NextAttemptAt.lte(now))
        .one(&state.db)
        .await?;
    if due.is_none() {
        return Ok(Vec::new());
    }
    let lease = now
        + chrono::Duration::from_std(state.config.webhooks.timeout * 2)
            .unwrap_or(chrono::Duration::seconds(30));
    let free = "(claimed_until IS NULL OR claimed_until < {now})";
    // Each head's turn in its organisation, counting what the organisation has in flight.
    let heads = "SELECT id FROM (SELECT d.id, d.seq, \
           ROW_NUMBER() OVER (PARTITION BY d.organization_id ORDER BY d.seq) \
           + (SELECT COUNT(*) FROM webhook_delivery c WHERE c.organization_id = d.organization_id \
              AND c.status = 'pending' AND c.claimed_until >= {now}) AS turn \
         FROM webhook_delivery d WHERE d.status = 'pending' \
         AND d.next_attempt_at <= {now} AND (d.claimed_until IS NULL OR d.claimed_until < {now}) \
         AND NOT EXISTS (SELECT 1 FROM webhook_delivery e WHERE e.subscription_id = d.subscription_id \
           AND e.status = 'pending' AND (e.seq < d.seq OR (e.seq = d.seq AND e.id < d.id)))) h \
         WHERE turn <= {per} ORDER BY turn, seq LIMIT {n}";
    // The outer condition is checked again on each row as it is written: of two instances
    // claiming the same head at once, one gets it (PostgreSQL re-reads a row another just
    // updated; SQLite writes one at a time).
    let (sql, values): (String, Vec<sea_orm::Value>) = match backend {
        DbBackend::Postgres => (
            format!(
                "UPDATE webhook_delivery SET claimed_until = $1, claimed_by = $2 \
                 WHERE {} AND id IN ({}) RETURNING id",
                free.replace("{now}", "$3"),
                heads
                    .replace("{now}", "$3")
                    .replace("{n}", &n.to_string())
                    .replace("{per}", &PER_ORGANISATION.to_string())
            ),
            vec![lease.into(), state.instance_id.clone().into(), now.into()],
        ),
        _ => (
            format!(
                "UPDATE webhook_delivery SET claimed_until = ?, claimed_by = ? \
                 WHERE {} AND id IN ({}) RETURNING id",
                free.replace("{now}", "?"),
                heads
                    .replace("{now}", "?")
                    .replace("{n}", &n.to_string())
                    .replace("{per}", &PER_ORGANISATION.to_string())
            ),
            vec![
                lease.into(),
                state.instance_id.clone().into(),
                now.into(),
                now.into(),
                now.into(),
                now.into(),
            ],
        ),
    };
    let rows = state
        .db
        .query_all_raw(Statement::from_sql_and_values(backend, sql, values))
        .await?;
    rows.iter()
        .map(|r| r.try_get::<Uuid>("", "id").map_err(Into::into))
        .collect()
}

/// The wait before attempt `n + 1` after `n` failures: doubling from the base, up to an hour,
/// with half of it random (so many failed deliveries do not all come back at once).
pub fn backoff(base: Duration, failures: i32, jitter: f64) -> Duration {
    let doubled = base.saturating_mul(1u32 << failures.clamp(1, 20).saturating_sub(1) as u32);
    let capped = doubled.min(MAX_WAIT);
    capped.mul_f64(0.5 + 0.5 * jitter.clamp(0.0, 1.0))
}

async fn attempt(state: &AppState, id: Uuid) {
    if let Err(e) = try_attempt(state, id).await {
        tracing::error!(error = %e, delivery = %id, "a webhook delivery could not be recorded");
    }
}

async fn try_attempt(state: &AppState, id: Uuid) -> AppResult<()> {
    let Some(d) = delivery::Entity::find_by_id(id).one(&state.db).await? else {
        return Ok(());
    };
    let sub = subscription::Entity::find_by_id(d.subscription_id)
        .one(&state.db)
        .await?;
    let outcome = match sub.filter(|s| s.disabled_at.is_none()) {
        None => Err((None, "the subscription was removed".to_owned(), true)),
        Some(s) => post(state, &s, &d)
            .await
            .map_err(|(code, e)| (code, e, false)),
    };
    let now = state.clock.now();
    let mut row: delivery::ActiveModel = d.clone().into();
    row.attempts = Set(d.attempts + 1);
    row.claimed_until = Set(None);
    row.claimed_by = Set(None);
    match outcome {
        Ok(code) => {
            row.status = Set(DELIVERED.into());
            row.last_status = Set(Some(code as i32));
            row.last_error = Set(None);
            row.ended_at = Set(Some(now));
            tracing::info!(delivery = %id, event = %d.event_type, code, "webhook delivered");
        }
        Err((code, error, final_)) => {
            row.last_status = Set(code.map(|c| c as i32));
            row.last_error = Set(Some(error.chars().take(500).collect()));
            if final_ || gave_up(state, &d, now) {
                row.status = Set(DEAD.into());
                row.ended_at = Set(Some(now));
                tracing::warn!(delivery = %id, event = %d.event_type, %error, "webhook dead-lettered");
            } else {
                let wait = backoff(
                    state.config.webhooks.retry_base,
                    d.attempts + 1,
                    rand::random::<f64>(),
                );
                row.next_attempt_at =
                    Set(now + chrono::Duration::from_std(wait).unwrap_or_default());
                tracing::info!(delivery = %id, ?code, %error, wait_ms = wait.as_millis() as u64, "webhook delivery failed; will retry");
            }
        }
    }
    // Only while the claim is still ours: a lapsed claim belongs to whoever took it next.
    delivery::Entity::update_many()
        .set(row)
        .filter(delivery::Column::Id.eq(id))
        .filter(delivery::Column::Status.eq(PENDING))
        .filter(delivery::Column::ClaimedBy.eq(state.instance_id.clone()))
        .exec(&state.db)
        .await?;
    Ok(())
}

fn gave_up(state: &AppState, d: &delivery::Model, now: DateTime<Utc>) -> bool {
    let limit = chrono::Duration::from_std(state.config.webhooks.give_up_after)
        .unwrap_or(chrono::Duration::hours(24));
    now >= d.created_at + limit
}

/// One signed POST: the status code on a 2xx answer, else the code (if any) and what went wrong.
async fn post(
    state: &AppState,
    s: &subscription::Model,
    d: &delivery::Model,
) -> Result<u16, (Option<u16>, String)> {
    let secret = crate::webhooks::service::open_secret(state, s).map_err(|e| (None, e))?;
    let url = guard::check_url(&s.url).map_err(|e| (None, e))?;
    let addrs = guard::resolve(&url, state.config.webhooks.allow_private)
        .await
        .map_err(|e| (None, e))?;
    // No system proxy: the address guard checked where this connects, and a proxy would connect
    // somewhere else on our behalf.
    let mut client = reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(state.config.webhooks.timeout)
        .user_agent("Herald-Webhooks/1");
    if let Some(host) = url
        .host_str()
        .filter(|h| h.parse::<std::net::IpAddr>().is_err())
    {
        // Connect to the addresses that were checked, not to a second lookup's.
        client = client.resolve_to_addrs(host, &addrs);
    }
    let client = client.build().map_err(|e| (None, e.to_string()))?;
    let msg_id = format!("msg_{}", d.id.simple());
    // The receiver checks this against its own clock, so it is the wall clock's, not the
    // injected one (which tests move to a daytime hour).
    let ts = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|t| t.as_secs() as i64)
        .unwrap_or_default();
    let res = client
        .post(url)
        .header("content-type", "application/json")
        .header("webhook-id", &msg_id)
        .header("webhook-timestamp", ts.to_string())
        .header(
            "webhook-signature",
            sign::signature(&secret, &msg_id, ts, &d.payload),
        )
        .body(d.payload.clone())
        .send()
        .await
        .map_err(|e| (None, format!("could not deliver: {e}")))?;
    let code = res.status().as_u16();
    if res.status().is_success() {
        Ok(code)
    } else {
        Err((Some(code), format!("the receiver answered {code}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_double_up_to_an_hour_with_jitter() {
        let base = Duration::from_secs(5);
        assert_eq!(backoff(base, 1, 1.0), Duration::from_secs(5));
        assert_eq!(backoff(base, 3, 1.0), Duration::from_secs(20));
        assert_eq!(backoff(base, 3, 0.0), Duration::from_secs(10));
        assert_eq!(backoff(base, 30, 1.0), MAX_WAIT);
    }
}
