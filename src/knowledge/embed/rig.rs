//! The embedding model through rig-core: OpenAI's `/embeddings`, or any OpenAI-compatible
//! endpoint, with the width the settings ask for.
use super::Embedder;
use crate::platform::embedding_config::EmbeddingSettings;
use crate::platform::llm::{from_provider, LlmError};
use rig_core::providers::openai::OpenAIConfig;
use rig_core::DynModel;

pub struct RigEmbedder {
    model: DynModel<rig_core::operation::Embedding>,
    label: String,
    dimensions: usize,
}

impl RigEmbedder {
    pub fn new(s: &EmbeddingSettings) -> Result<Self, String> {
        let http = crate::platform::llm::http_client(s.timeout)?;
        let mut cfg = OpenAIConfig::new(s.api_key.clone());
        if let Some(url) = &s.base_url {
            cfg = cfg.with_base_url(url.clone());
        }
        let model = cfg
            .connect(http)
            .embedding(s.model.clone(), Some(s.dimensions))
            .erase();
        Ok(Self {
            model,
            label: s.label(),
            dimensions: s.dimensions,
        })
    }
}

#[async_trait::async_trait]
impl Embedder for RigEmbedder {
    fn label(&self) -> String {
        self.label.clone()
    }

    #[tracing::instrument(skip_all, fields(model = %self.label, texts = texts.len()))]
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, LlmError> {
        let response = self
            .model
            .call(texts.to_vec())
            .await
            .map_err(from_provider)?;
        if response.embeddings.len() != texts.len() {
            return Err(LlmError::BadResponse(format!(
                "{} vectors for {} texts",
                response.embeddings.len(),
                texts.len()
            )));
        }
        response
            .embeddings
            .into_iter()
            .map(|e| {
                if e.vec.len() != self.dimensions {
                    return Err(LlmError::BadResponse(format!(
                        "a vector of {} numbers, not {}",
                        e.vec.len(),
                        self.dimensions
                    )));
                }
                Ok(super::unit(&e.vec))
            })
            .collect()
    }
}
