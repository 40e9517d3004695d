//! Hosted models through rig-core: OpenAI, Anthropic, Ollama and any OpenAI-compatible base URL,
//! one request per step (the runtime owns the loop, the retries and the tools).
use super::{ChatImage, ChatMessage, ChatModel, Completion, LlmError, ToolCall, ToolDef};
use rig_core::completion::{CompletionRequest, ToolDefinition};
use rig_core::message::{
    AssistantContent, AssistantMessage, CallId, DocumentSourceKind, Image, ImageMediaType, Message,
    MimeType, ToolName, UserContent,
};
use rig_core::operation::Completion as CompletionOp;
use rig_core::providers::{anthropic::AnthropicConfig, ollama::OllamaConfig, openai::OpenAIConfig};
use rig_core::DynModel;

pub use crate::platform::llm::RigSettings;

pub struct RigModel {
    model: DynModel<CompletionOp>,
    label: String,
    max_tokens: u64,
}

impl RigModel {
    pub fn new(s: &RigSettings) -> Result<Self, String> {
        let http = crate::platform::llm::http_client(s.timeout)?;
        if s.model.trim().is_empty() {
            return Err("LLM_MODEL is required for a hosted model".into());
        }
        let model = match s.provider.as_str() {
            "openai" | "openai-compatible" => {
                if s.provider == "openai-compatible" && s.base_url.is_none() {
                    return Err("LLM_PROVIDER=openai-compatible needs LLM_BASE_URL".into());
                }
                let mut cfg = OpenAIConfig::new(s.api_key.clone());
                if let Some(url) = &s.base_url {
                    cfg = cfg.with_base_url(url.clone());
                }
                // Chat Completions: what every OpenAI-compatible server speaks.
                cfg.connect(http).chat(s.model.clone()).erase()
            }
            "anthropic" => {
                let mut cfg = AnthropicConfig::new(s.api_key.clone());
                if let Some(url) = &s.base_url {
                    cfg = cfg.with_base_url(url);
                }
                cfg.connect(http).completion(s.model.clone()).erase()
            }
            "ollama" => {
                let mut cfg = OllamaConfig::new();
                if let Some(url) = &s.base_url {
                    cfg = cfg.with_base_url(url.clone());
                }
                cfg.connect(http).completion(s.model.clone()).erase()
            }
            other => return Err(format!("unknown LLM_PROVIDER {other}; use offline, openai, openai-compatible, anthropic or ollama")),
        };
        Ok(Self {
            model,
            label: format!("{} · {}", s.provider, s.model),
            max_tokens: 1024,
        })
    }
}

fn tool_name(name: &str) -> Result<ToolName, LlmError> {
    ToolName::new(name).map_err(|_| LlmError::BadResponse("a tool with an empty name".into()))
}

fn to_rig(messages: &[ChatMessage]) -> Result<Vec<Message>, LlmError> {
    messages
        .iter()
        .map(|m| {
            Ok(match m {
                ChatMessage::User { content, images } if images.is_empty() => {
                    Message::user(content.clone())
                }
                ChatMessage::User { content, images } => user_with_images(content, images)?,
                ChatMessage::Assistant {
                    content,
                    tool_calls,
                } => {
                    let mut parts = Vec::new();
                    if let Some(text) = content.as_ref().filter(|t| !t.is_empty()) {
                        parts.push(AssistantContent::text(text.clone()));
                    }
                    for c in tool_calls {
                        // Stored arguments may be the model's malformed JSON; send an empty object then.
                        let args = serde_json::from_str(&c.arguments)
                            .unwrap_or_else(|_| serde_json::json!({}));
                        parts.push(AssistantContent::tool_call(
                            c.id.clone(),
                            tool_name(&c.name)?,
                            args,
                        ));
                    }
                    if parts.is_empty() {
                        parts.push(AssistantContent::text("(no reply)"));
                    }
                    Message::Assistant(AssistantMessage::new(parts))
                }
                ChatMessage::Tool {
                    call_id,
                    name,
                    content,
                } => Message::tool_result(
                    CallId::from_wire(call_id.clone()),
                    tool_name(name)?,
                    content.clone(),
                ),
            })
        })
        .collect()
}

/// Words and pictures in one user turn, the pictures as base64 data of a type both OpenAI and
/// Anthropic read.
fn user_with_images(content: &str, images: &[ChatImage]) -> Result<Message, LlmError> {
    let mut parts = vec![UserContent::text(content.to_owned())];
    for i in images {
        let media_type = ImageMediaType::from_mime_type(&i.media_type).ok_or_else(|| {
            LlmError::BadResponse(format!("a picture of type {} for the model", i.media_type))
        })?;
        parts.push(UserContent::Image(Image {
            data: DocumentSourceKind::Base64(i.base64.clone()),
            media_type: Some(media_type),
            ..Default::default()
        }));
    }
    Ok(Message::User { content: parts })
}

#[async_trait::async_trait]
impl ChatModel for RigModel {
    fn label(&self) -> String {
        self.label.clone()
    }

    #[tracing::instrument(skip_all, fields(model = %self.label))]
    async fn complete(
        &self,
        system: &str,
        messages: &[ChatMessage],
        tools: &[ToolDef],
    ) -> Result<Completion, LlmError> {
        let defs = tools
            .iter()
            .map(|t| {
                Ok(ToolDefinition::new(
                    tool_name(&t.name)?,
                    t.description.clone(),
                    t.parameters.clone(),
                ))
            })
            .collect::<Result<Vec<_>, LlmError>>()?;
        let request = CompletionRequest::from(to_rig(messages)?)
            .preamble(system)
            .tools(defs)
            .max_tokens(self.max_tokens);
        let response = self
            .model
            .call(request)
            .await
            .map_err(crate::platform::llm::from_provider)?;
        let mut text = String::new();
        let mut tool_calls = Vec::new();
        for part in &response.choice {
            match part {
                AssistantContent::Text(t) => text.push_str(&t.text),
                AssistantContent::ToolCall(c) => {
                    // Malformed arguments stay malformed, so the runtime can tell the model.
                    let raw = c.function.invalid_arguments.clone().unwrap_or_else(|| {
                        serde_json::Value::Object(c.function.arguments.clone()).to_string()
                    });
                    tool_calls.push(ToolCall {
                        id: c.id.wire().into_owned(),
                        name: c.function.name.as_str().to_owned(),
                        arguments: raw,
                    });
                }
                _ => {}
            }
        }
        Ok(Completion {
            text: (!text.is_empty()).then_some(text),
            tool_calls,
        })
    }
}
