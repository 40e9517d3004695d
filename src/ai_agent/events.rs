//! `AiThreadEventPayload`: what a thread remembers, one JSON payload per event.
use crate::ai_agent::llm::{ChatMessage, ToolCall};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum AiThreadEventPayload {
    /// An operator's message to the agent; `plan_mode` asks for a read-only planning turn.
    UserMessage {
        text: String,
        #[serde(default)]
        plan_mode: bool,
    },
    /// A text from a contact to one of the organisation's numbers.
    InboundSms {
        message_id: Uuid,
        contact_id: Uuid,
        phone_number_id: Uuid,
        text: String,
    },
    /// What the model said and the tools it asked for.
    Assistant {
        text: Option<String>,
        tool_calls: Vec<ToolCall>,
    },
    ToolResult {
        call_id: String,
        name: String,
        content: String,
        is_error: bool,
    },
    /// A turn began over these pending inputs (each input is in exactly one turn).
    TurnStarted { inputs: Vec<Uuid> },
    /// A turn that failed after retries; its inputs were escalated.
    TurnFailed { error: String },
}

impl AiThreadEventPayload {
    pub fn inbound_sms(
        message_id: Uuid,
        contact_id: Uuid,
        phone_number_id: Uuid,
        text: impl Into<String>,
    ) -> Self {
        Self::InboundSms {
            message_id,
            contact_id,
            phone_number_id,
            text: text.into(),
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Self::UserMessage { .. } => "user_message",
            Self::InboundSms { .. } => "inbound_sms",
            Self::Assistant { .. } => "assistant",
            Self::ToolResult { .. } => "tool_result",
            Self::TurnStarted { .. } => "turn_started",
            Self::TurnFailed { .. } => "turn_failed",
        }
    }

    /// Inputs wait to be processed by a turn; everything else is the turn's own record.
    pub fn is_input(&self) -> bool {
        matches!(self, Self::UserMessage { .. } | Self::InboundSms { .. })
    }

    /// The words this event adds to the conversation, when it is an input.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::UserMessage { text, .. } | Self::InboundSms { text, .. } => Some(text),
            _ => None,
        }
    }

    /// Text messages have no app page to point at.
    pub fn page_context(&self) -> Option<&str> {
        None
    }

    /// The message the model sees for this event.
    pub fn to_chat(&self) -> Option<ChatMessage> {
        match self {
            Self::UserMessage { text, .. } => Some(ChatMessage::User { content: text.clone() }),
            Self::InboundSms { contact_id, phone_number_id, text, .. } => Some(ChatMessage::User {
                content: format!(
                    "Inbound SMS from contact {contact_id} to our number {phone_number_id}. Text: \"{text}\""
                ),
            }),
            Self::Assistant { text, tool_calls } => {
                Some(ChatMessage::Assistant { content: text.clone(), tool_calls: tool_calls.clone() })
            }
            Self::ToolResult { call_id, name, content, .. } => {
                Some(ChatMessage::Tool { call_id: call_id.clone(), name: name.clone(), content: content.clone() })
            }
            Self::TurnStarted { .. } | Self::TurnFailed { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inbound_sms_round_trips_and_reads_as_its_text() {
        let e = AiThreadEventPayload::inbound_sms(Uuid::nil(), Uuid::nil(), Uuid::nil(), "hello");
        let json = serde_json::to_value(&e).unwrap();
        assert_eq!(json["type"], "InboundSms");
        assert_eq!(
            serde_json::from_value::<AiThreadEventPayload>(json).unwrap(),
            e
        );
        assert_eq!(e.as_text(), Some("hello"));
        assert_eq!(e.page_context(), None);
        assert!(e.is_input());
        assert_eq!(e.kind(), "inbound_sms");
    }
}
