//! The model seam: messages and tool definitions go in, text and tool calls come out.
pub mod offline;
pub mod rig;
pub mod scripted;

use serde::{Deserialize, Serialize};
use serde_json::Value;

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

/// The configured model. `LLM_PROVIDER=offline` (the default) is the built-in deterministic model.
pub fn from_config(
    config: &crate::platform::Config,
) -> Result<std::sync::Arc<dyn ChatModel>, String> {
    match config.llm_provider.as_str() {
        "offline" => Ok(std::sync::Arc::new(offline::OfflineModel)),
        _ => Ok(std::sync::Arc::new(rig::RigModel::new(&config.llm)?)),
    }
}
