//! Thread leases: a claim is a lease with an owner and an expiry, refreshed by a heartbeat while
//! the turn runs. A thread whose worker died (crash, deploy, SIGKILL) is claimed again once its
//! lease expires, so no contact is ever left unanswered.
use crate::ai_agent::entity::{ai_thread, ai_thread_event};
use crate::error::AppResult;
use crate::platform::AppState;
use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, Query};
use sea_orm::{ColumnTrait, Condition, EntityTrait, QueryFilter, QuerySelect};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use uuid::Uuid;

/// The threads this process is running now, or about to (woken, waiting for a turn slot). A
/// wake-up for one of them needs no claim (which would only fail against the held lease): its
/// worker looks for pending inputs once more after it has left this set, so an input queued
/// meanwhile is never missed.
#[derive(Default, Clone)]
pub struct LocalRuns(Arc<Mutex<HashSet<Uuid>>>);

/// This process runs (or is about to run) the thread while the guard lives.
pub struct Running {
    runs: LocalRuns,
    thread_id: Uuid,
}

impl LocalRuns {
    fn set(&self) -> std::sync::MutexGuard<'_, HashSet<Uuid>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn contains(&self, thread_id: Uuid) -> bool {
        self.set().contains(&thread_id)
    }

    /// Marks the thread as this process's, even if it already was.
    pub fn enter(&self, thread_id: Uuid) -> Running {
        self.set().insert(thread_id);
        Running {
            runs: self.clone(),
            thread_id,
        }
    }

    /// Marks the thread as this process's unless it already is.
    pub fn try_enter(&self, thread_id: Uuid) -> Option<Running> {
        self.set().insert(thread_id).then(|| Running {
            runs: self.clone(),
            thread_id,
        })
    }

    /// How many threads this process is running or about to run.
    pub fn len(&self) -> usize {
        self.set().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.runs.set().remove(&self.thread_id);
    }
}

/// This worker's hold on a thread.
#[derive(Clone, Debug)]
pub struct Lease {
    pub thread_id: Uuid,
    /// Unique per claim: a worker that lost its lease can never refresh the next one.
    pub owner: String,
    lost: Arc<AtomicBool>,
}

impl Lease {
    /// True once a heartbeat found the lease gone: stop before the next effect.
    pub fn is_lost(&self) -> bool {
        self.lost.load(Ordering::SeqCst)
    }
}

fn expires(state: &AppState, now: DateTime<Utc>) -> DateTime<Utc> {
    now + chrono::Duration::from_std(state.runtime().lease_ttl).unwrap_or_default()
}

/// Idle, and not waiting to retry a failure.
fn idle_now(now: DateTime<Utc>) -> Condition {
    Condition::all()
        .add(ai_thread::Column::State.eq("idle"))
        .add(
            Condition::any()
                .add(ai_thread::Column::RetryAt.is_null())
                .add(ai_thread::Column::RetryAt.lte(now)),
        )
}

/// Running under a lease that expired: its worker died.
fn abandoned(now: DateTime<Utc>) -> Condition {
    Condition::all()
        .add(ai_thread::Column::State.eq("running"))
        .add(
            Condition::any()
                .add(ai_thread::Column::LeaseExpiresAt.is_null())
                .add(ai_thread::Column::LeaseExpiresAt.lt(now)),
        )
}

/// Claims the thread if it is idle and not waiting to retry, or if its lease expired.
pub async fn claim(state: &AppState, thread_id: Uuid) -> AppResult<Option<Lease>> {
    let now = state.clock.now();
    let owner = format!("{}:{}", state.instance_id, Uuid::new_v4().simple());
    let res = ai_thread::Entity::update_many()
        .col_expr(ai_thread::Column::State, Expr::value("running"))
        .col_expr(
            ai_thread::Column::LeaseOwner,
            Expr::value(Some(owner.clone())),
        )
        .col_expr(
            ai_thread::Column::LeaseExpiresAt,
            Expr::value(Some(expires(state, now))),
        )
        .col_expr(ai_thread::Column::UpdatedAt, Expr::value(now))
        .filter(ai_thread::Column::Id.eq(thread_id))
        .filter(Condition::any().add(idle_now(now)).add(abandoned(now)))
        .exec(&state.db)
        .await?;
    Ok((res.rows_affected == 1).then(|| Lease {
        thread_id,
        owner,
        lost: Arc::new(AtomicBool::new(false)),
    }))
}

/// Extends the lease; false (and the lease marked lost) if another worker holds the thread now.
pub async fn heartbeat(state: &AppState, lease: &Lease) -> AppResult<bool> {
    let now = state.clock.now();
    let res = ai_thread::Entity::update_many()
        .col_expr(
            ai_thread::Column::LeaseExpiresAt,
            Expr::value(Some(expires(state, now))),
        )
        .filter(ai_thread::Column::Id.eq(lease.thread_id))
        .filter(ai_thread::Column::State.eq("running"))
        .filter(ai_thread::Column::LeaseOwner.eq(lease.owner.as_str()))
        .exec(&state.db)
        .await?;
    let held = res.rows_affected == 1;
    if !held {
        lease.lost.store(true, Ordering::SeqCst);
    }
    Ok(held)
}

/// Back to idle. `retry_at` makes the thread wait after a failure; `last_error` is kept for the
/// thread view (None clears nothing).
pub async fn release(
    state: &AppState,
    lease: &Lease,
    last_error: Option<String>,
    retry_at: Option<DateTime<Utc>>,
) -> AppResult<()> {
    let mut update = ai_thread::Entity::update_many()
        .col_expr(ai_thread::Column::State, Expr::value("idle"))
        .col_expr(
            ai_thread::Column::LeaseOwner,
            Expr::value(Option::<String>::None),
        )
        .col_expr(
            ai_thread::Column::LeaseExpiresAt,
            Expr::value(Option::<DateTime<Utc>>::None),
        )
        .col_expr(ai_thread::Column::RetryAt, Expr::value(retry_at))
        .col_expr(ai_thread::Column::UpdatedAt, Expr::value(state.clock.now()));
    if let Some(e) = last_error {
        update = update.col_expr(ai_thread::Column::LastError, Expr::value(Some(e)));
    }
    update
        .filter(ai_thread::Column::Id.eq(lease.thread_id))
        .filter(ai_thread::Column::LeaseOwner.eq(lease.owner.as_str()))
        .exec(&state.db)
        .await?;
    Ok(())
}

/// Threads that need a worker: running under an expired lease, or idle with pending inputs
/// and no retry still to wait for.
pub async fn due_threads(state: &AppState, limit: u64) -> AppResult<Vec<Uuid>> {
    let now = state.clock.now();
    let pending = Query::select()
        .column(ai_thread_event::Column::ThreadId)
        .from(ai_thread_event::Entity)
        .and_where(ai_thread_event::Column::ProcessedAt.is_null())
        .to_owned();
    let idle_with_work = idle_now(now).add(ai_thread::Column::Id.in_subquery(pending));
    Ok(ai_thread::Entity::find()
        .select_only()
        .column(ai_thread::Column::Id)
        .filter(Condition::any().add(abandoned(now)).add(idle_with_work))
        .limit(limit)
        .into_tuple()
        .all(&state.db)
        .await?)
}

impl crate::platform::AppState {
    /// The agent threads this process is running.
    pub fn local_runs(&self) -> &LocalRuns {
        self.part::<std::sync::Arc<LocalRuns>>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_counts_as_running_here_while_its_guard_lives() {
        let runs = LocalRuns::default();
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        let guard = runs.enter(a);
        assert!(runs.contains(a));
        assert!(!runs.contains(b), "only the entered thread");
        drop(guard);
        assert!(!runs.contains(a), "leaving lets the next wake-up claim it");
    }
}
