//! Drafting's writes, off the drafting path: finished drafts are recorded in group commits (one
//! transaction for whatever has finished meanwhile), one heartbeat keeps every item a worker
//! holds alive, and live progress is published at most every `PROGRESS_EVERY`.
//!
//! Why: a draft used to cost three writes of its own (heartbeat, result, and a recount every 20),
//! each waiting its turn for the database while the next draft could not start. Measured in
//! `campaign_bench` (issue 15), those waits, not the model, set the pace.
use crate::campaign::entity::item;
use crate::campaign::model::ItemStatus;
use crate::error::AppResult;
use crate::platform::AppState;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// Drafts recorded in one transaction, at most.
const GROUP: usize = 64;
/// Live progress while drafting, at most this often (and once at the end).
const PROGRESS_EVERY: Duration = Duration::from_millis(250);
/// A failed draft is tried this many times in all before its item fails.
const ATTEMPTS: i32 = 3;

/// One finished draft, or why the model could not write it.
pub struct Finished {
    pub item_id: Uuid,
    pub result: Result<String, String>,
}

/// The writer of one drafting pass: send it finished drafts, then `finish` it.
pub struct Writer {
    tx: mpsc::UnboundedSender<Finished>,
    done: tokio::task::JoinHandle<()>,
}

impl Writer {
    pub fn start(state: &AppState, op_id: Uuid) -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        let done = tokio::spawn(write_loop(state.clone(), op_id, rx));
        Self { tx, done }
    }

    pub fn record(&self, finished: Finished) {
        // The loop runs until every sender is gone; it cannot have stopped before.
        let _ = self.tx.send(finished);
    }

    /// Waits until every draft sent so far is written.
    pub async fn finish(self) {
        drop(self.tx);
        let _ = self.done.await;
    }
}

async fn write_loop(state: AppState, op_id: Uuid, mut rx: mpsc::UnboundedReceiver<Finished>) {
    let mut batch = Vec::with_capacity(GROUP);
    let mut published: Option<Instant> = None;
    while rx.recv_many(&mut batch, GROUP).await > 0 {
        if let Err(e) = write_group(&state, &batch).await {
            // The items stay `drafting`; the reaper returns them for another draft.
            tracing::error!(error = %e, drafts = batch.len(), "could not record drafts");
        }
        batch.clear();
        if published.is_none_or(|at| at.elapsed() >= PROGRESS_EVERY) {
            let _ = crate::campaign::draft_engine::refresh_counters(&state, op_id).await;
            published = Some(Instant::now());
        }
    }
}

/// Records finished drafts in one transaction. Only an item still `drafting` is written: one the
/// reaper took back meanwhile belongs to its next worker.
async fn write_group(state: &AppState, group: &[Finished]) -> AppResult<()> {
    let now = state.clock.now();
    let txn = crate::platform::db::begin_write(&state.db).await?;
    for f in group {
        let update =
            item::Entity::update_many().col_expr(item::Column::UpdatedAt, Expr::value(now));
        let update = match &f.result {
            Ok(text) => update
                .col_expr(item::Column::Status, Expr::value(ItemStatus::Drafted))
                .col_expr(item::Column::Draft, Expr::value(Some(text.clone())))
                .col_expr(item::Column::DraftedAt, Expr::value(Some(now))),
            Err(e) => {
                tracing::warn!(error = %e, item_id = %f.item_id, "draft failed");
                // Claiming counted this attempt.
                let attempts = item::Entity::find_by_id(f.item_id)
                    .one(&txn)
                    .await?
                    .map(|i| i.attempts)
                    .unwrap_or(0);
                let next = match attempts >= ATTEMPTS {
                    true => ItemStatus::Failed,
                    false => ItemStatus::Pending,
                };
                update
                    .col_expr(item::Column::Status, Expr::value(next))
                    .col_expr(item::Column::Error, Expr::value(Some(e.clone())))
            }
        };
        update
            .filter(item::Column::Id.eq(f.item_id))
            .filter(item::Column::Status.eq(ItemStatus::Drafting))
            .exec(&txn)
            .await?;
    }
    txn.commit().await?;
    Ok(())
}

/// Keeps every item `worker` holds alive (claiming set the first beat) until `stop` is
/// cancelled, so the reaper never takes back an item whose draft is slow but in progress.
pub fn heartbeat(state: &AppState, worker: &str, stale_after: Duration) -> CancellationToken {
    let stop = CancellationToken::new();
    let (state, worker, token) = (state.clone(), worker.to_owned(), stop.clone());
    let every = (stale_after / 4).max(Duration::from_millis(50));
    tokio::spawn(async move {
        loop {
            tokio::select! {
                _ = token.cancelled() => return,
                _ = tokio::time::sleep(every) => {}
            }
            let beat = item::Entity::update_many()
                .col_expr(
                    item::Column::HeartbeatAt,
                    Expr::value(Some(state.clock.now())),
                )
                .filter(item::Column::ClaimedBy.eq(worker.as_str()))
                .filter(item::Column::Status.eq(ItemStatus::Drafting))
                .exec(&state.db)
                .await;
            if let Err(e) = beat {
                tracing::warn!(error = %e, "draft heartbeat failed; will try again");
            }
        }
    });
    stop
}
