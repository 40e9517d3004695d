//! Routing in batches: texts the webhook just stored wait in a queue, and one task at a time (the
//! leader: whoever found nobody draining) routes what has gathered. A batch's texts for agents
//! are queued on their threads and marked routed in one transaction, so a burst costs a few
//! commits, not one per text. A text whose batch fails is routed on its own; one a crash left in
//! the queue is still unrouted in the database, and the sweeper routes it.
//!
//! Batches run on the acknowledgement's pool (`AppState::ack_db`), not beside the agents' turns:
//! routing is what keeps a thread's inputs coming, and on the busy pool it waited for turns.
//!
//! Why: at a thousand texts a second, a commit per text kept SQLite's single writer busy enough
//! that acknowledgements waited for it, and routing fell behind (issue 15).
use crate::ai_agent::entity::ai_thread;
use crate::ai_agent::events::AiThreadEventPayload;
use crate::ai_agent::routing::{mark_routed_all, route_stored_one};
use crate::ai_agent::thread::{append_event_once, contact_key, find_or_create_thread};
use crate::contacts::opt_out;
use crate::error::AppResult;
use crate::messaging::entity::conversation;
use crate::messaging::inbound::StoredInbound;
use crate::platform::AppState;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use std::collections::HashMap;
use std::sync::Mutex;
use uuid::Uuid;

/// Texts routed in one transaction, at most. Small enough that the transaction holds SQLite's
/// write lock for about a millisecond (an acknowledgement may be waiting for it): with 256, the
/// acknowledgement's p99 under 500 texts a second went from 7 ms to 27 ms.
const BATCH: usize = 32;

/// Texts waiting in memory at most. Past it (routing has fallen far behind) a text is left to the
/// sweeper, which routes stored texts that are still unrouted: memory stays bounded however long
/// an overload lasts, and no text is lost.
const QUEUE_LIMIT: usize = 20_000;

/// Stored texts waiting to be routed, and whether a task is draining them.
#[derive(Default)]
pub struct RouteQueue(Mutex<(Vec<StoredInbound>, bool)>);

impl RouteQueue {
    /// Queues the text; true when the caller must drain the queue (nobody else is).
    fn push(&self, stored: StoredInbound) -> bool {
        let mut q = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if q.0.len() >= QUEUE_LIMIT {
            tracing::warn!(message_id = %stored.message.id, "routing queue full; the sweeper routes this text");
            return false;
        }
        q.0.push(stored);
        !std::mem::replace(&mut q.1, true)
    }

    /// The next batch; empty (and nobody draining) when there is none.
    fn take(&self) -> Vec<StoredInbound> {
        let mut q = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if q.0.is_empty() {
            q.1 = false;
            return vec![];
        }
        let n = q.0.len().min(BATCH);
        q.0.drain(..n).collect()
    }

    /// Queues the text, and routes everything queued if no other task is doing so.
    pub async fn route(&self, state: &AppState, stored: StoredInbound) {
        if !self.push(stored) {
            return;
        }
        loop {
            let batch = self.take();
            if batch.is_empty() {
                return;
            }
            route_batch(state, batch).await;
        }
    }
}

/// A text for an agent: its thread and the event that queues it there.
struct ForAgent {
    message_id: Uuid,
    thread_id: Uuid,
    payload: AiThreadEventPayload,
}

async fn route_batch(state: &AppState, batch: Vec<StoredInbound>) {
    // Texts an agent may answer; everything else (a skip, the legacy suggester) goes alone.
    let (mut candidates, alone): (Vec<_>, Vec<_>) = batch.into_iter().partition(|s| {
        s.number.ai_agent_id.is_some()
            && s.sender
                .as_deref()
                .is_some_and(crate::contacts::phone::can_text)
            && (!s.message.body.trim().is_empty() || s.message.media_count > 0)
            && !crate::compliance::inbound::kept_from_agents(s.message.keyword.as_deref())
    });
    for stored in alone {
        route_stored_one(state, stored).await;
    }
    if candidates.is_empty() {
        return;
    }
    let for_agents = match threads_for(state, &mut candidates).await {
        Ok(items) => items,
        Err(e) => {
            tracing::warn!(error = %e, texts = candidates.len(), "batch routing failed; routing each alone");
            for stored in candidates {
                route_stored_one(state, stored).await;
            }
            return;
        }
    };
    // Opted out, or taken over by a person, meanwhile: routed alone, which records the skip.
    for stored in candidates {
        route_stored_one(state, stored).await;
    }
    if for_agents.is_empty() {
        return;
    }
    match queue_all(state, &for_agents).await {
        Ok(()) => {
            let mut woken = std::collections::HashSet::new();
            for (item, _) in &for_agents {
                tracing::info!(thread_id = %item.thread_id, message_id = %item.message_id, "inbound routed");
                if woken.insert(item.thread_id) {
                    crate::ai_agent::worker::wake(state, item.thread_id);
                }
            }
        }
        Err(e) => {
            tracing::warn!(error = %e, texts = for_agents.len(), "batch routing failed; routing each alone");
            for (_, stored) in for_agents {
                route_stored_one(state, stored).await;
            }
        }
    }
}

/// Takes the texts an agent answers out of `candidates` (leaving the opted-out and those in a
/// conversation a person took over), each with its thread: opt-outs in one query, handoffs in
/// one, existing threads in one, a new thread per new contact.
async fn threads_for(
    state: &AppState,
    candidates: &mut Vec<StoredInbound>,
) -> AppResult<Vec<(ForAgent, StoredInbound)>> {
    let contacts: Vec<Uuid> = candidates.iter().map(|s| s.message.contact_id).collect();
    let opted_out = opt_out::sms_opt_outs(&state.ack_db, &contacts).await?;
    // Conversations a person took over, or with the day's automated replies: routed alone,
    // which holds autonomous agents back there.
    let paused: std::collections::HashSet<Uuid> = conversation::Entity::find()
        .filter(conversation::Column::ContactId.is_in(contacts.clone()))
        .filter(conversation::Column::AiPausedUntil.gt(state.clock.now()))
        .all(&state.ack_db)
        .await?
        .into_iter()
        .map(|c| c.contact_id)
        .chain(
            crate::ai_agent::pacing::over_limit(
                &state.ack_db,
                &contacts,
                state.clock.now(),
                state.runtime().replies_per_contact_day,
            )
            .await?,
        )
        .collect();
    let keys: Vec<String> = contacts.iter().map(|c| contact_key(*c)).collect();
    let agents: Vec<Uuid> = candidates
        .iter()
        .filter_map(|s| s.number.ai_agent_id)
        .collect();
    let mut threads: HashMap<(Uuid, String), Uuid> = ai_thread::Entity::find()
        .filter(ai_thread::Column::AgentId.is_in(agents))
        .filter(ai_thread::Column::CorrelationKey.is_in(keys))
        .filter(ai_thread::Column::State.ne("archived"))
        .all(&state.ack_db)
        .await?
        .into_iter()
        .filter_map(|t| Some(((t.agent_id, t.correlation_key?), t.id)))
        .collect();
    let mut out = Vec::new();
    for stored in std::mem::take(candidates) {
        let msg = &stored.message;
        let agent_id = stored.number.ai_agent_id.unwrap_or_default();
        if opted_out.contains_key(&msg.contact_id) || paused.contains(&msg.contact_id) {
            candidates.push(stored);
            continue;
        }
        let key = contact_key(msg.contact_id);
        let thread_id = match threads.get(&(agent_id, key.clone())) {
            Some(id) => *id,
            None => {
                let id = find_or_create_thread(state, agent_id, msg.organization_id, &key).await?;
                threads.insert((agent_id, key), id);
                id
            }
        };
        let item = ForAgent {
            message_id: msg.id,
            thread_id,
            payload: AiThreadEventPayload::inbound_sms(
                msg.id,
                msg.contact_id,
                stored.number.id,
                crate::ai_agent::routing::agent_text_of(msg),
            ),
        };
        out.push((item, stored));
    }
    Ok(out)
}

/// Queues every text on its thread and marks them routed, all or none.
async fn queue_all(state: &AppState, items: &[(ForAgent, StoredInbound)]) -> AppResult<()> {
    let now = state.clock.now();
    let txn = crate::platform::db::begin_write(&state.ack_db).await?;
    for (item, _) in items {
        append_event_once(
            &txn,
            item.thread_id,
            &item.payload,
            now,
            Some(format!("inbound:{}", item.message_id)),
        )
        .await?;
    }
    mark_routed_all(&txn, state, items.iter().map(|(i, _)| i.message_id)).await?;
    txn.commit().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(i: usize) -> StoredInbound {
        let at = chrono::DateTime::<chrono::Utc>::UNIX_EPOCH;
        StoredInbound {
            message: crate::messaging::entity::Model {
                id: Uuid::new_v4(),
                organization_id: Uuid::nil(),
                contact_id: Uuid::nil(),
                phone_number_id: Uuid::nil(),
                direction: "inbound".into(),
                body: format!("text {i}"),
                media_count: 0,
                media_urls: serde_json::json!([]),
                media_types: None,
                provider_sid: Some(format!("SM{i}")),
                status: "received".into(),
                ai_origin: None,
                keyword: None,
                error: None,
                idempotency_key: None,
                read_at: None,
                created_at: at,
                routed_at: None,
                send_state: None,
                attempt_key: None,
                attempt_started_at: None,
                send_attempts: 0,
                reconcile_failures: 0,
                purpose: None,
                seq: None,
                rolled_up: false,
                outcome_rolled: false,
                agent_id: None,
                cites: None,
            },
            number: crate::phone_numbers::entity::Model {
                id: Uuid::nil(),
                organization_id: Uuid::nil(),
                number: crate::phone::PhoneNumber::new("+14155550100").unwrap(),
                friendly_name: String::new(),
                provider_sid: None,
                ai_agent_id: None,
                text_agent_id: None,
                created_at: at,
                auto_assign: false,
                assigned_last: None,
                unregistered_at: None,
                unregistered_code: None,
                sender_profile_id: None,
            },
            sender: Some("+14155550199".into()),
        }
    }

    #[test]
    fn a_full_queue_leaves_texts_to_the_sweeper() {
        let queue = RouteQueue::default();
        assert!(
            queue.push(stored(0)),
            "the first text makes its task the drainer"
        );
        for i in 1..QUEUE_LIMIT {
            assert!(!queue.push(stored(i)), "one drainer at a time");
        }
        assert!(
            !queue.push(stored(QUEUE_LIMIT)),
            "past the limit, nothing to drain"
        );
        let queued = queue.0.lock().unwrap().0.len();
        assert_eq!(queued, QUEUE_LIMIT, "memory stays bounded");
        assert_eq!(
            queue.take().len(),
            BATCH,
            "the drainer still gets its batches"
        );
    }
}
