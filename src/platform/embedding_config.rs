//! Which embedding model knowledge passages get (issue 52 §2), from `EMBEDDING_MODEL` and its
//! companions. Unset, knowledge is found by its words alone (the default, no key). The endpoint
//! and key default to the chat model's when that is an OpenAI-shaped one.
use super::config::{var, Problems};
use super::llm::RigSettings;
use std::time::Duration;

/// The widest vector kept (OpenAI's `dimensions` asks the model for this many).
pub const DIMENSIONS_MAX: usize = 3_072;

#[derive(Clone, Debug, PartialEq)]
pub struct EmbeddingSettings {
    /// `openai` or `openai-compatible` (what speaks OpenAI's `/embeddings`).
    pub provider: String,
    pub model: String,
    pub api_key: String,
    pub base_url: Option<String>,
    /// The vector's width (`EMBEDDING_DIMENSIONS`, 256 by default).
    pub dimensions: usize,
    pub timeout: Duration,
}

impl EmbeddingSettings {
    /// What identifies the vectors this model makes: a change of any part re-embeds every
    /// passage.
    pub fn label(&self) -> String {
        let at = self.base_url.as_deref().unwrap_or("api.openai.com");
        format!(
            "{} · {} · {} · {at}",
            self.provider, self.model, self.dimensions
        )
    }
}

/// The settings from the environment, or None when no embedding model is named.
pub(crate) fn read(llm: &RigSettings, p: &mut Problems) -> Option<EmbeddingSettings> {
    let model = var("EMBEDDING_MODEL")?;
    let openai_chat = matches!(llm.provider.as_str(), "openai" | "openai-compatible");
    let provider = var("EMBEDDING_PROVIDER").unwrap_or_else(|| {
        if openai_chat {
            llm.provider.clone()
        } else {
            "openai".into()
        }
    });
    if !matches!(provider.as_str(), "openai" | "openai-compatible") {
        p.0.push(format!(
            "EMBEDDING_PROVIDER {provider} is not known; use openai or openai-compatible"
        ));
    }
    let base_url =
        var("EMBEDDING_BASE_URL").or_else(|| openai_chat.then(|| llm.base_url.clone()).flatten());
    if provider == "openai-compatible" && base_url.is_none() {
        p.0.push("EMBEDDING_PROVIDER=openai-compatible needs EMBEDDING_BASE_URL".into());
    }
    let api_key = var("EMBEDDING_API_KEY")
        .or_else(|| openai_chat.then(|| llm.api_key.clone()))
        .unwrap_or_default();
    Some(EmbeddingSettings {
        provider,
        model,
        api_key,
        base_url,
        dimensions: p.number("EMBEDDING_DIMENSIONS", 256, 8..=DIMENSIONS_MAX),
        timeout: p.span(
            "EMBEDDING_TIMEOUT_SECS",
            30.0,
            600.0,
            super::setting::Unit::Seconds,
        ),
    })
}
