//! Embeddings of knowledge passages (issue 52 §2): with an embedding model configured
//! (`EMBEDDING_MODEL`), every passage gets a vector, kept in `knowledge_embedding` and ranked
//! together with full text by reciprocal rank fusion (`retrieve`). Embedding happens in the
//! background in batches (`sweep`), retried with backoff; a question is embedded on the reply's
//! path only within a short wait, and a passage without its vector yet is still found by its
//! words. Without a model (the default), knowledge is found by its words alone.
pub mod cache;
pub mod rig;
pub mod store;
pub mod sweep;

use crate::platform::llm::LlmError;
use crate::platform::state::AppState;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Texts sent in one embedding request.
pub const BATCH: usize = 64;
/// How long a reply waits for its question's vector before it goes on with words alone.
pub const QUESTION_WAIT: Duration = Duration::from_millis(1_500);
/// The longest pause after failures before the model is tried again.
const BACKOFF_MAX: Duration = Duration::from_secs(300);
/// How long a model that made a reply wait `QUESTION_WAIT` in vain is left alone.
pub const SLOW_REST: Duration = Duration::from_secs(30);

/// An embedding model: texts in, one vector each, in order.
#[async_trait::async_trait]
pub trait Embedder: Send + Sync {
    /// What identifies its vectors (the model, its width, its endpoint); kept beside each.
    fn label(&self) -> String;
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, LlmError>;
}

/// The organisation-wide embedding model, when one is configured, and its health: after a
/// failure it is left alone for a while (doubling, at most five minutes), so a provider that is
/// down costs replies nothing.
#[derive(Clone, Default)]
pub struct Embedding {
    pub model: Option<Arc<dyn Embedder>>,
    health: Arc<Mutex<Health>>,
    /// The first pause after a failure (tests shorten it).
    pub backoff: Duration,
    /// The organisations' vectors in memory.
    pub vectors: Arc<cache::VectorCache>,
    /// Whether this instance is embedding now (`sweep::kick`).
    running: Arc<std::sync::atomic::AtomicBool>,
}

#[derive(Default)]
struct Health {
    failures: u32,
    resting_until: Option<Instant>,
}

impl Embedding {
    pub fn new(model: Option<Arc<dyn Embedder>>) -> Self {
        Self {
            model,
            health: Default::default(),
            backoff: Duration::from_secs(5),
            running: Default::default(),
            vectors: Default::default(),
        }
    }

    /// The model, unless it is resting after a failure.
    pub fn ready(&self) -> Option<&Arc<dyn Embedder>> {
        let h = self.health.lock().unwrap_or_else(|e| e.into_inner());
        let resting = h.resting_until.is_some_and(|t| Instant::now() < t);
        self.model.as_ref().filter(|_| !resting)
    }

    /// Records a call's outcome: a failure rests the model, a success wakes it.
    pub fn record(&self, ok: bool) {
        let mut h = self.health.lock().unwrap_or_else(|e| e.into_inner());
        if ok {
            *h = Health::default();
        } else {
            h.failures = h.failures.saturating_add(1);
            let pause = self
                .backoff
                .saturating_mul(1 << h.failures.saturating_sub(1).min(16))
                .min(BACKOFF_MAX);
            h.resting_until = Some(Instant::now() + pause);
        }
    }

    /// Leaves the model alone for at least `d` (it was too slow for a reply).
    pub fn rest_at_least(&self, d: Duration) {
        let mut h = self.health.lock().unwrap_or_else(|e| e.into_inner());
        h.failures = h.failures.saturating_add(1);
        let until = Instant::now() + d;
        h.resting_until = Some(h.resting_until.map_or(until, |t| t.max(until)));
    }
}

impl AppState {
    /// The knowledge embedding model and its health.
    pub fn embedding(&self) -> &Embedding {
        self.part::<Embedding>()
    }
}

/// A question's vector, with the label of the model that made it.
#[derive(Clone)]
pub struct QuestionVector {
    pub label: String,
    pub vector: Vec<f32>,
    /// Where the organisations' vectors are kept in memory.
    pub vectors: Arc<cache::VectorCache>,
}

/// The question's vector, or None (no model, the model resting, failing or slow): retrieval
/// then goes on with words alone.
pub async fn question(state: &AppState, text: &str) -> Option<QuestionVector> {
    let e = state.embedding();
    let model = e.ready()?.clone();
    let texts = [text.to_owned()];
    let got = tokio::time::timeout(QUESTION_WAIT, model.embed(&texts)).await;
    match got {
        Ok(Ok(mut v)) if v.len() == 1 => {
            e.record(true);
            Some(QuestionVector {
                label: model.label(),
                vector: v.pop()?,
                vectors: e.vectors.clone(),
            })
        }
        Ok(other) => {
            tracing::warn!(outcome = ?other.map(|v| v.len()), "a question's embedding failed; words alone");
            e.record(false);
            None
        }
        Err(_) => {
            tracing::warn!(wait = ?QUESTION_WAIT, "a question's embedding was too slow; words alone, and the model rests");
            e.rest_at_least(SLOW_REST);
            None
        }
    }
}

/// `v` scaled to unit length (a zero vector stays zero), as `f32`s.
pub fn unit(v: &[f64]) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    if norm == 0.0 || !norm.is_finite() {
        return vec![0.0; v.len()];
    }
    v.iter().map(|x| (x / norm) as f32).collect()
}

/// The cosine similarity of two unit vectors (0 when their widths differ).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_vectors_and_their_cosine() {
        let a = unit(&[3.0, 4.0]);
        assert!((a[0] - 0.6).abs() < 1e-6 && (a[1] - 0.8).abs() < 1e-6);
        assert!((cosine(&a, &a) - 1.0).abs() < 1e-6);
        assert_eq!(unit(&[0.0, 0.0]), vec![0.0, 0.0]);
        assert_eq!(cosine(&a, &[1.0]), 0.0);
        let b = unit(&[-4.0, 3.0]);
        assert!(cosine(&a, &b).abs() < 1e-6);
    }

    #[test]
    fn a_failing_model_rests_longer_each_time_and_wakes_on_success() {
        struct Never;
        #[async_trait::async_trait]
        impl Embedder for Never {
            fn label(&self) -> String {
                "never".into()
            }
            async fn embed(&self, _: &[String]) -> Result<Vec<Vec<f32>>, LlmError> {
                Err(LlmError::Timeout)
            }
        }
        let mut e = Embedding::new(Some(Arc::new(Never)));
        e.backoff = Duration::from_millis(40);
        assert!(e.ready().is_some());
        e.record(false);
        assert!(e.ready().is_none(), "resting after a failure");
        std::thread::sleep(Duration::from_millis(50));
        assert!(e.ready().is_some(), "tried again after the pause");
        e.record(false);
        std::thread::sleep(Duration::from_millis(50));
        assert!(e.ready().is_none(), "the second pause is twice as long");
        e.record(true);
        assert!(e.ready().is_some());
        assert!(
            Embedding::default().ready().is_none(),
            "no model, no vectors"
        );
    }
}
