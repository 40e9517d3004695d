//! Message and conversation types shared by the inbox, the composer and the server.
use crate::contacts::model::ContactView;
use crate::phone_numbers::model::PhoneNumberView;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Inbound,
    Outbound,
}

impl Direction {
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Inbound => "inbound",
            Direction::Outbound => "outbound",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MessageView {
    pub id: Uuid,
    pub contact_id: Uuid,
    pub phone_number_id: Uuid,
    pub direction: Direction,
    pub body: String,
    pub media_count: i32,
    pub media_urls: Vec<String>,
    pub status: String,
    pub ai_origin: Option<String>,
    pub keyword: Option<String>,
    pub error: Option<String>,
    pub created_at: DateTime<Utc>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConversationSummary {
    pub contact_id: Uuid,
    pub contact_name: String,
    pub contact_phone: Option<String>,
    pub last_body: String,
    pub last_direction: Direction,
    pub last_at: DateTime<Utc>,
    pub unread: u64,
    pub opted_out: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConversationView {
    pub contact: ContactView,
    pub messages: Vec<MessageView>,
    pub numbers: Vec<PhoneNumberView>,
    /// The number the contact last texted, which the composer picks first.
    pub default_number_id: Option<Uuid>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SendSmsRequest {
    pub contact_id: Uuid,
    pub phone_number_id: Uuid,
    pub body: String,
    /// `Some("suggestion")` when the body came from a suggestion card.
    #[serde(default)]
    pub ai_origin: Option<String>,
}

/// Pushed to signed-in pages of the same organisation as things happen.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum LiveEvent {
    MessageCreated {
        contact_id: Uuid,
        message_id: Uuid,
        direction: Direction,
    },
    MessageUpdated {
        contact_id: Uuid,
        message_id: Uuid,
        status: String,
    },
    ContactChanged {
        contact_id: Uuid,
    },
    SuggestionsReady {
        contact_id: Uuid,
        message_id: Uuid,
    },
    ThreadUpdated {
        contact_id: Uuid,
        thread_id: Uuid,
    },
    PlanUpdated {
        plan_id: Uuid,
    },
    OperationUpdated {
        operation_id: Uuid,
    },
}

impl LiveEvent {
    pub fn contact_id(&self) -> Uuid {
        match self {
            LiveEvent::MessageCreated { contact_id, .. }
            | LiveEvent::MessageUpdated { contact_id, .. }
            | LiveEvent::ContactChanged { contact_id }
            | LiveEvent::SuggestionsReady { contact_id, .. }
            | LiveEvent::ThreadUpdated { contact_id, .. } => *contact_id,
            LiveEvent::PlanUpdated { .. } | LiveEvent::OperationUpdated { .. } => Uuid::nil(),
        }
    }
}

/// What the phone simulator sends: from a contact or a typed number, to one of the organisation's numbers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimulatedText {
    pub from: String,
    pub to_number_id: Uuid,
    pub body: String,
}

/// The longest body Herald sends: ten concatenated segments, as Twilio allows.
pub const MAX_SMS_CHARS: usize = 1600;
