//! Embedding the passages that wait for a vector, in the background: batches of `BATCH`, each
//! request tried three times with growing pauses, then the model rests (`Embedding::record`).
//! One run at a time per instance; another instance on the same database may embed the same
//! batch at once, which costs a request and changes nothing (the save replaces).
use super::{store, Embedder, BATCH};
use crate::error::AppResult;
use crate::platform::llm::LlmError;
use crate::platform::state::AppState;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Batches embedded in one run before it lets go (the next sweep goes on).
const BATCHES_PER_RUN: usize = 50;
/// Tries of one batch before the model rests.
const TRIES: u32 = 3;

/// Starts a run in the background unless one is running or there is no model to run.
pub fn kick(state: &AppState) {
    let e = state.embedding();
    if e.ready().is_none() || e.running.swap(true, Ordering::AcqRel) {
        return;
    }
    let bg = state.clone();
    state.tasks.spawn(async move {
        match run(&bg).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(passages = n, "embedded knowledge passages"),
            Err(e) => tracing::error!(error = %e, "could not embed knowledge passages"),
        }
        bg.embedding().running.store(false, Ordering::Release);
    });
}

/// Embeds waiting passages until none wait, the model fails, the run's share is done or the
/// server stops; answers how many were saved.
pub async fn run(state: &AppState) -> AppResult<usize> {
    let e = state.embedding();
    let mut saved = 0;
    for _ in 0..BATCHES_PER_RUN {
        if state.shutdown.is_cancelled() {
            break;
        }
        let Some(model) = e.ready().cloned() else {
            break;
        };
        let label = model.label();
        let batch = store::waiting(&state.db, &label, BATCH).await?;
        if batch.is_empty() {
            break;
        }
        let texts: Vec<String> = batch.iter().map(|w| w.text.clone()).collect();
        match with_tries(&model, &texts, e.backoff).await {
            Ok(vectors) => {
                e.record(true);
                saved += store::save(&state.db, &label, &batch, vectors, state.clock.now()).await?;
            }
            Err(err) => {
                tracing::warn!(error = %err, "the embedding model failed; it rests, words still find every passage");
                e.record(false);
                break;
            }
        }
    }
    Ok(saved)
}

/// One batch, tried again after a pause (doubling) while the failure may pass.
async fn with_tries(
    model: &Arc<dyn Embedder>,
    texts: &[String],
    pause: std::time::Duration,
) -> Result<Vec<Vec<f32>>, LlmError> {
    let mut tried = 0;
    loop {
        tried += 1;
        match model.embed(texts).await {
            Ok(v) => return Ok(v),
            Err(err) if err.is_transient() && tried < TRIES => {
                tokio::time::sleep(pause.saturating_mul(1 << (tried - 1))).await;
            }
            Err(err) => return Err(err),
        }
    }
}
