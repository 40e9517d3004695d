//! The drafter: (organisation, persona, concept, instruction, contact context) → one text.
use crate::ai_agent::llm::{ChatMessage, ChatModel, LlmError, ToolDef};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

#[derive(Clone, Debug, PartialEq)]
pub struct DraftRequest {
    pub organization: String,
    /// The organisation's rules, which every draft follows; empty for none.
    pub rules: String,
    /// The authoring agent's enabled lessons.
    pub lessons: Vec<String>,
    pub persona: String,
    pub concept: String,
    pub instruction: String,
    /// The contact's name, tags, notes and last messages, as text.
    pub contact_context: String,
    pub first_name: String,
}

#[async_trait::async_trait]
pub trait Drafter: Send + Sync {
    async fn draft(&self, req: &DraftRequest) -> Result<String, LlmError>;
}

pub const HARD_RULES: &str = "Write one SMS to this contact. Plain text, under 320 characters, no links you were not given, \
no promises you cannot keep, and never mention that you are an AI. Call submit_draft with the text.";

/// Drafts with the configured model through a single `submit_draft` tool call (or plain text).
pub struct ModelDrafter(pub Arc<dyn ChatModel>);

pub fn submit_draft_tool() -> ToolDef {
    ToolDef {
        name: "submit_draft".into(),
        description: "Submit the drafted SMS.".into(),
        parameters: json!({"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}}),
    }
}

#[async_trait::async_trait]
impl Drafter for ModelDrafter {
    async fn draft(&self, req: &DraftRequest) -> Result<String, LlmError> {
        let rules = match req.rules.trim() {
            "" => String::new(),
            r => format!("Organisation rules: {r}\n"),
        };
        let rules = match req.lessons.is_empty() {
            true => rules,
            false => format!(
                "{rules}Lessons from your operators' corrections: {}\n",
                req.lessons.join(" ")
            ),
        };
        let system = format!(
            "You write for {}. {}\n{rules}Campaign concept: {}\n{}",
            req.organization, req.persona, req.concept, HARD_RULES
        );
        let prompt = format!(
            "DRAFT for {}.\n{}\nInstruction: {}",
            req.first_name, req.contact_context, req.instruction
        );
        let c = self
            .0
            .complete(
                &system,
                &[ChatMessage::user(prompt)],
                &[submit_draft_tool()],
            )
            .await?;
        let text = c
            .tool_calls
            .iter()
            .find(|t| t.name == "submit_draft")
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t.arguments).ok())
            .and_then(|v| v["text"].as_str().map(str::to_owned))
            .or(c.text)
            .map(|t| t.trim().to_owned())
            .filter(|t| !t.is_empty())
            .ok_or_else(|| LlmError::BadResponse("the model wrote no draft".into()))?;
        Ok(text)
    }
}

/// A drafter that waits a fixed time per draft: for the throughput benchmark and tests.
pub struct FixedLatencyDrafter(pub Duration);

#[async_trait::async_trait]
impl Drafter for FixedLatencyDrafter {
    async fn draft(&self, req: &DraftRequest) -> Result<String, LlmError> {
        if !self.0.is_zero() {
            tokio::time::sleep(self.0).await;
        }
        Ok(format!("Hi {}, {}", req.first_name, req.concept))
    }
}

impl crate::platform::AppState {
    /// Who writes campaign drafts: the one a test put in, else the model.
    pub fn drafter(&self) -> std::sync::Arc<dyn Drafter> {
        match self.parts.get::<std::sync::Arc<dyn Drafter>>() {
            Some(d) => d.clone(),
            None => std::sync::Arc::new(ModelDrafter(self.model.clone())),
        }
    }
}
