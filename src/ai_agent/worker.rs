//! The worker: queues inputs on a thread, runs a claimed thread turn by turn under a heartbeated
//! lease, backs off after a failed turn and sets aside inputs that keep failing, and sweeps for
//! threads whose worker died.
use crate::ai_agent::entity::ai_agent;
use crate::ai_agent::events::AiThreadEventPayload;
use crate::ai_agent::lease::{self, Lease};
use crate::ai_agent::runtime::{open_turn, run_turn, TurnError, TurnStart};
use crate::ai_agent::thread::{
    append_event, find_or_create_thread, mark_processed, payload_of, pending_inputs,
};
use crate::ai_agent::tools::{escalate_to_owner, Escalation};
use crate::error::AppResult;
use crate::messaging::model::LiveEvent;
use crate::platform::AppState;
use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// Stores the event, then starts a worker if the thread is free. A running worker drains it in
/// its next turn: it looks again for inputs after going idle, so no wake-up is lost.
#[tracing::instrument(skip(state, payload), fields(kind = payload.kind()))]
pub async fn enqueue_and_maybe_spawn(
    state: &AppState,
    thread_id: Uuid,
    payload: AiThreadEventPayload,
) -> AppResult<()> {
    append_event(&state.db, thread_id, &payload, state.clock.now()).await?;
    wake(state, thread_id);
    Ok(())
}

/// One long-lived thread per (agent, contact), with the text queued on it once.
pub async fn find_or_spawn_contact_thread(
    state: &AppState,
    agent_id: Uuid,
    organization_id: Uuid,
    contact_id: Uuid,
    payload: AiThreadEventPayload,
) -> AppResult<Uuid> {
    let key = crate::ai_agent::thread::contact_key(contact_id);
    let id = find_or_create_thread(state, agent_id, organization_id, &key).await?;
    enqueue_and_maybe_spawn(state, id, payload).await?;
    Ok(id)
}

/// Runs the thread now if nobody holds it (and it is not waiting to retry), once one of this
/// process's turn slots is free. A thread this process is already running, or about to, needs
/// nothing: its worker drains the new input.
pub fn wake(state: &AppState, thread_id: Uuid) {
    let Some(running) = state.local_runs().try_enter(thread_id) else {
        return;
    };
    let bg = state.clone();
    state.work.spawn(&state.tasks, async move {
        let Ok(slot) = bg.work.turn_slots.clone().acquire_owned().await else {
            return;
        };
        match lease::claim(&bg, thread_id).await {
            Ok(Some(lease)) => run_claimed_thread(bg, lease, running).await,
            Ok(None) => {}
            Err(e) => tracing::error!(error = %e, %thread_id, "could not claim a thread"),
        }
        drop(slot);
    });
}

/// Tries again after `delay`: the thread's retry time has come by then.
fn wake_after(state: &AppState, thread_id: Uuid, delay: Duration) {
    let bg = state.clone();
    state.work.spawn(&state.tasks, async move {
        bg.clock.sleep(delay).await;
        wake(&bg, thread_id);
    });
}

/// Keeps the lease alive while the turn runs; stops when `stop` is cancelled.
fn heartbeat(state: &AppState, lease: &Lease) -> CancellationToken {
    let stop = CancellationToken::new();
    let (bg, lease, token) = (state.clone(), lease.clone(), stop.clone());
    let every = (state.runtime().lease_ttl / 3).max(Duration::from_millis(50));
    tokio::spawn(async move {
        loop {
            tokio::select! {
                _ = token.cancelled() => return,
                _ = tokio::time::sleep(every) => {}
            }
            match lease::heartbeat(&bg, &lease).await {
                Ok(true) => {}
                Ok(false) => {
                    tracing::warn!(thread = %lease.thread_id, "lease lost to another worker");
                    return;
                }
                Err(e) => tracing::warn!(error = %e, "heartbeat failed; will try again"),
            }
        }
    });
    stop
}

/// Runs a thread this worker has claimed until no input is pending, then releases it.
#[tracing::instrument(skip(state, lease, running), fields(thread = %lease.thread_id))]
pub async fn run_claimed_thread(state: AppState, lease: Lease, running: lease::Running) {
    let mut lease = lease;
    let mut first = Some(running);
    loop {
        let running = first
            .take()
            .unwrap_or_else(|| state.local_runs().enter(lease.thread_id));
        let beat = heartbeat(&state, &lease);
        let outcome = drain(&state, &lease).await;
        beat.cancel();
        let (error, retry_at) = match outcome {
            Ok(()) => (None, None),
            Err((_, TurnError::LeaseLost)) => return,
            Err((inputs, e)) => {
                tracing::error!(error = %e, "turn failed");
                let retry_at = on_failure(&state, &lease, &inputs, &e).await;
                (Some(e.to_string()), retry_at)
            }
        };
        if let Err(e) = lease::release(&state, &lease, error, retry_at).await {
            tracing::error!(error = %e, "could not release thread; its lease will expire");
            return;
        }
        if let Some(at) = retry_at {
            let wait = (at - state.clock.now()).to_std().unwrap_or_default();
            drop(running);
            wake_after(&state, lease.thread_id, wait);
            return;
        }
        // An input may have arrived after the last look but before going idle (its wake-up saw
        // this process running the thread and left it to us): look again, no longer running.
        drop(running);
        match pending_inputs(&state.db, lease.thread_id).await {
            Ok(p) if !p.is_empty() => match lease::claim(&state, lease.thread_id).await {
                Ok(Some(next)) => lease = next,
                _ => return,
            },
            _ => return,
        }
    }
}

/// Turns until nothing is pending; a failed turn answers its inputs with the error.
async fn drain(state: &AppState, lease: &Lease) -> Result<(), (Vec<Uuid>, TurnError)> {
    // Only the first turn can be one a stopped worker left open; later ones start new.
    let mut may_resume = true;
    loop {
        // No pending input, no open turn either (an open turn's inputs are pending).
        let pending = match pending_inputs(&state.db, lease.thread_id).await {
            Ok(p) if p.is_empty() => return Ok(()),
            Ok(p) => p,
            Err(e) => return Err((vec![], e.into())),
        };
        let open = match may_resume {
            true => open_turn(state, lease.thread_id).await,
            false => Ok(None),
        };
        may_resume = false;
        let start = match open {
            Ok(Some(open)) => open,
            Ok(None) => {
                // A burst gets one reply: wait until its newest text is quiet, then look again.
                match crate::ai_agent::pacing::quiet_wait(state, lease.thread_id, &pending).await {
                    Ok(Some(wait)) => {
                        state.clock.sleep(wait).await;
                        continue;
                    }
                    Ok(None) => {}
                    Err(e) => return Err((vec![], e.into())),
                }
                TurnStart::New(pending)
            }
            Err(e) => return Err((vec![], e.into())),
        };
        let ids: Vec<Uuid> = start.inputs().iter().map(|e| e.id).collect();
        run_turn(state, lease, &start)
            .await
            .map_err(|e| (ids.clone(), e))?;
        mark_processed(&state.db, &ids, state.clock.now(), None)
            .await
            .map_err(|e| (ids.clone(), e.into()))?;
    }
}

/// Counts the failure against the turn's inputs. Below the limit: record it and answer when to
/// retry (exponential backoff). At the limit: set the inputs aside, tell the owner, and let later
/// inputs run.
async fn on_failure(
    state: &AppState,
    lease: &Lease,
    inputs: &[Uuid],
    error: &TurnError,
) -> Option<DateTime<Utc>> {
    let cfg = state.runtime();
    let now = state.clock.now();
    let text = error.to_string();
    let rows = crate::ai_agent::entity::ai_thread_event::Entity::find()
        .filter(crate::ai_agent::entity::ai_thread_event::Column::Id.is_in(inputs.iter().copied()))
        .all(&state.db)
        .await
        .unwrap_or_default();
    let attempt = rows.iter().map(|r| r.attempts).max().unwrap_or(0).max(0) as u32 + 1;
    use crate::ai_agent::entity::ai_thread_event::Column;
    let _ = crate::ai_agent::entity::ai_thread_event::Entity::update_many()
        .col_expr(Column::Attempts, Expr::value(attempt as i32))
        .col_expr(Column::Error, Expr::value(Some(text.clone())))
        .filter(Column::Id.is_in(inputs.iter().copied()))
        .exec(&state.db)
        .await;
    if inputs.is_empty() || attempt < cfg.turn_attempts {
        let backoff = (cfg.turn_backoff * 2u32.saturating_pow(attempt.saturating_sub(1)))
            .min(cfg.turn_backoff_max);
        let _ = append_event(
            &state.db,
            lease.thread_id,
            &AiThreadEventPayload::TurnRetrying {
                error: text,
                attempt,
                retry_in_ms: backoff.as_millis() as u64,
            },
            now,
        )
        .await;
        return Some(now + chrono::Duration::from_std(backoff).unwrap_or_default());
    }
    if let Err(e) = set_aside(state, lease, &rows, attempt, &text).await {
        tracing::error!(error = %e, "could not set aside failing inputs; retrying later");
        return Some(now + chrono::Duration::from_std(cfg.turn_backoff_max).unwrap_or_default());
    }
    None
}

/// Poison inputs: marked done with the error, escalated to the owner with their texts.
async fn set_aside(
    state: &AppState,
    lease: &Lease,
    rows: &[crate::ai_agent::entity::ai_thread_event::Model],
    attempts: u32,
    error: &str,
) -> AppResult<()> {
    let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
    let reason = format!("set aside after {attempts} failed attempts: {error}");
    mark_processed(&state.db, &ids, state.clock.now(), Some(reason.clone())).await?;
    append_event(
        &state.db,
        lease.thread_id,
        &AiThreadEventPayload::TurnFailed {
            error: reason.clone(),
        },
        state.clock.now(),
    )
    .await?;
    let thread = crate::ai_agent::entity::ai_thread::Entity::find_by_id(lease.thread_id)
        .one(&state.db)
        .await?;
    let Some(thread) = thread else { return Ok(()) };
    let Some(agent) = ai_agent::Entity::find_by_id(thread.agent_id)
        .one(&state.db)
        .await?
    else {
        return Ok(());
    };
    let payloads: Vec<AiThreadEventPayload> = rows.iter().filter_map(payload_of).collect();
    let texts: Vec<String> = payloads
        .iter()
        .filter_map(|p| p.as_text().map(str::to_owned))
        .collect();
    let contact = payloads.iter().find_map(|p| match p {
        AiThreadEventPayload::InboundSms { contact_id, .. } => Some(*contact_id),
        _ => None,
    });
    escalate_to_owner(
        state,
        &agent,
        thread.organization_id,
        Escalation {
            title: format!("{} could not answer", agent.name),
            body: format!("{reason}. Unanswered: {}", texts.join(" / ")),
            link: contact.map(|c| format!("/messaging/{c}")),
            source_key: ids.first().map(|id| format!("set_aside:{id}")),
        },
    )
    .await?;
    crate::ai_agent::entity::ai_thread::Entity::update_many()
        .col_expr(
            crate::ai_agent::entity::ai_thread::Column::LastError,
            Expr::value(Some(reason)),
        )
        .filter(crate::ai_agent::entity::ai_thread::Column::Id.eq(lease.thread_id))
        .exec(&state.db)
        .await?;
    state.live.publish(
        thread.organization_id,
        LiveEvent::ThreadUpdated {
            contact_id: contact.unwrap_or_default(),
            thread_id: lease.thread_id,
        },
    );
    Ok(())
}

/// Claims every thread that needs a worker (a dead worker's, or one with work and nobody on it)
/// and runs it. Start-up and the periodic sweeper call it.
pub async fn sweep(state: &AppState) -> AppResult<usize> {
    let mut started = 0;
    for thread_id in lease::due_threads(state, 500).await? {
        // Every slot busy: the next sweep picks up the rest.
        let Ok(slot) = state.work.turn_slots.clone().try_acquire_owned() else {
            break;
        };
        let Some(running) = state.local_runs().try_enter(thread_id) else {
            continue;
        };
        if let Some(l) = lease::claim(state, thread_id).await? {
            tracing::info!(%thread_id, "sweeper picked up a thread");
            let bg = state.clone();
            state.work.spawn(&state.tasks, async move {
                run_claimed_thread(bg, l, running).await;
                drop(slot);
            });
            started += 1;
        }
    }
    Ok(started)
}
