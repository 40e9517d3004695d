//! The model seam: messages and tool definitions go in, text and tool calls come out. The models
//! themselves (the offline one, rig's hosted ones, the scripted ones of tests) are the agents'
//! (`ai_agent::llm`); the base holds the seam `AppState` carries, and the hosted model's settings.
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::time::Duration;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// Raw JSON as the model wrote it; it may be malformed.
    pub arguments: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum ChatMessage {
    User {
        content: String,
        /// Pictures the model may look at with the words (a hosted model with vision, when the
        /// agent's owner allowed it); never stored in the thread, attached for one call.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<ChatImage>,
    },
    Assistant {
        content: Option<String>,
        tool_calls: Vec<ToolCall>,
    },
    Tool {
        call_id: String,
        name: String,
        content: String,
    },
}

impl ChatMessage {
    /// A user message of words alone.
    pub fn user(content: impl Into<String>) -> Self {
        Self::User {
            content: content.into(),
            images: Vec::new(),
        }
    }
}

/// A picture for a model with vision: its type and its bytes in base64.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatImage {
    pub media_type: String,
    pub base64: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolDef {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Completion {
    pub text: Option<String>,
    pub tool_calls: Vec<ToolCall>,
}

#[derive(thiserror::Error, Debug, Clone, PartialEq)]
pub enum LlmError {
    #[error("the model provider is unavailable: {0}")]
    Unavailable(String),
    #[error("the model provider timed out")]
    Timeout,
    #[error("the model provider answered something unreadable: {0}")]
    BadResponse(String),
}

impl LlmError {
    /// Whether trying again could help.
    pub fn is_transient(&self) -> bool {
        matches!(self, LlmError::Unavailable(_) | LlmError::Timeout)
    }
}

#[async_trait::async_trait]
pub trait ChatModel: Send + Sync {
    /// Shown in the UI beside what the model wrote.
    fn label(&self) -> String;
    fn is_offline(&self) -> bool {
        false
    }
    async fn complete(
        &self,
        system: &str,
        messages: &[ChatMessage],
        tools: &[ToolDef],
    ) -> Result<Completion, LlmError>;
}

/// Which provider, model and endpoint; from `LLM_PROVIDER`, `LLM_MODEL`, `LLM_API_KEY`, `LLM_BASE_URL`.
#[derive(Clone, Debug)]
pub struct RigSettings {
    pub provider: String,
    pub model: String,
    pub api_key: String,
    pub base_url: Option<String>,
    pub timeout: Duration,
}

/// Whether a transport error was the HTTP timeout: reqwest says so deep in the source chain.
fn is_timeout(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if let Some(r) = err.downcast_ref::<rig_reqwest::reqwest::Error>() {
            if r.is_timeout() {
                return true;
            }
        }
        let text = err.to_string().to_lowercase();
        if text.contains("timed out") || text.contains("timeout") {
            return true;
        }
        cur = err.source();
    }
    false
}

/// A hosted provider's error as the seam's: a timeout, a passing outage or a bad answer.
pub fn from_provider(e: rig_core::ProviderError) -> LlmError {
    let text = e.to_string();
    // rig wraps reqwest's error without exposing it as a source; its Debug form still names it.
    if matches!(e, rig_core::ProviderError::Http(_))
        && (is_timeout(&e) || format!("{e:?}").contains("TimedOut"))
    {
        return LlmError::Timeout;
    }
    if e.is_retryable() {
        LlmError::Unavailable(text)
    } else {
        LlmError::BadResponse(text)
    }
}

/// The HTTP client a hosted model's requests go through, giving up after `timeout`.
pub fn http_client(timeout: Duration) -> Result<rig_reqwest::ReqwestClient, String> {
    let http = rig_reqwest::reqwest::Client::builder()
        .timeout(timeout)
        .build()
        .map_err(|e| format!("HTTP client: {e}"))?;
    Ok(rig_reqwest::ReqwestClient::from(http))
}
