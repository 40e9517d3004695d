//! Which engines this instance runs, under a supervisor: an engine that hits a database error
//! backs off and starts again instead of stopping until the next restart. Every instance runs
//! engines for every active operation; item claims keep them from doing the same work twice, and
//! an instance that dies leaves its claimed items to the others once their heartbeats go stale.
use crate::campaign::entity::operation;
use crate::campaign::model::OperationStatus;
use crate::error::AppResult;
use crate::platform::AppState;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use std::collections::HashSet;
use std::sync::Mutex;
use std::time::Duration;
use uuid::Uuid;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Engine {
    Draft,
    Send,
}

/// The engines running in this process.
#[derive(Default)]
pub struct Running(Mutex<HashSet<(Uuid, Engine)>>);

impl Running {
    fn begin(&self, op: Uuid, engine: Engine) -> bool {
        self.0.lock().expect("engines").insert((op, engine))
    }
    fn end(&self, op: Uuid, engine: Engine) {
        self.0.lock().expect("engines").remove(&(op, engine));
    }
}

/// Starts the engine for the operation here, unless it already runs here.
pub fn start(state: &AppState, op: Uuid, engine: Engine) {
    if !state.engines().begin(op, engine) {
        return;
    }
    let bg = state.clone();
    state.work.spawn(&state.tasks, async move {
        let mut backoff = Duration::from_millis(50);
        loop {
            let outcome = match engine {
                Engine::Draft => crate::campaign::draft_engine::run_draft_engine(&bg, op).await,
                Engine::Send => crate::campaign::send_engine::run_send_engine(&bg, op).await,
            };
            match outcome {
                Ok(()) => break,
                Err(e) if !bg.shutdown.is_cancelled() => {
                    tracing::warn!(error = %e, %op, ?engine, ?backoff, "engine failed; restarting");
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(10));
                }
                Err(_) => break,
            }
        }
        bg.engines().end(op, engine);
        // A drafting engine that finished hands a sending operation its engine, and so on.
        if let Err(e) = resume(&bg).await {
            tracing::warn!(error = %e, "could not look for more engine work");
        }
    });
}

/// Runs an engine here for every operation that is drafting or sending (at start-up, and
/// periodically so that a dead instance's operations are picked up).
pub async fn resume(state: &AppState) -> AppResult<()> {
    for op in operation::Entity::find()
        .filter(
            operation::Column::Status.is_in([OperationStatus::Drafting, OperationStatus::Sending]),
        )
        .all(&state.db)
        .await?
    {
        let engine = if op.status == OperationStatus::Drafting {
            Engine::Draft
        } else {
            Engine::Send
        };
        start(state, op.id, engine);
    }
    Ok(())
}

impl crate::platform::AppState {
    /// The campaign engines running in this process.
    pub fn engines(&self) -> &Running {
        self.part::<std::sync::Arc<Running>>()
    }
}
