//! The team inbox's types, shared by the pages and the server.
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

// The conversation row's own state, kept with the row in `messaging`.
pub use crate::messaging::conversation_state::{Assignee, ConversationState, Triage};
use uuid::Uuid;

/// A conversation's page as the team sees it: the contact, the newest texts, the numbers to
/// answer from, a possible opt-out waiting for a person, and its triage.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConversationView {
    pub contact: crate::contacts::model::ContactView,
    /// The newest messages, oldest first (a page: `older` says whether more came before).
    pub messages: Vec<crate::messaging::model::MessageView>,
    /// The conversation's messages in all.
    #[serde(default)]
    pub message_count: u64,
    /// Where the page of older messages starts (`/api/conversations/older`); None when the
    /// first message is shown.
    #[serde(default)]
    pub older: Option<i64>,
    pub numbers: Vec<crate::phone_numbers::model::PhoneNumberView>,
    /// The number the contact last texted, which the composer picks first.
    pub default_number_id: Option<Uuid>,
    /// A text of theirs that might be an opt-out, waiting for a person (automated texts pause).
    pub possible_opt_out: Option<crate::compliance::model::OptOutReviewView>,
    /// Open, closed or snoozed, and who it is assigned to.
    #[serde(default)]
    pub triage: Triage,
}

/// What a person does to a conversation's state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "to", rename_all = "snake_case")]
pub enum StateChange {
    Open,
    Close,
    /// Snooze for this many minutes from now (the server's clock): 1 to 90 days' worth.
    SnoozeFor {
        minutes: u32,
    },
}

/// How many conversations each inbox view holds, exactly.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InboxCounts {
    pub all: u64,
    pub mine: u64,
    pub unassigned: u64,
    pub unread: u64,
    pub open: u64,
    pub closed: u64,
    pub snoozed: u64,
}

impl InboxCounts {
    /// The count of one view.
    pub fn of(&self, f: crate::messaging::model::InboxFilter) -> u64 {
        use crate::messaging::model::InboxFilter::*;
        match f {
            All => self.all,
            Mine => self.mine,
            Unassigned => self.unassigned,
            Unread => self.unread,
            Open => self.open,
            Closed => self.closed,
            Snoozed => self.snoozed,
        }
    }
}

/// Snoozes the conversation page offers: (label, minutes).
pub const SNOOZES: [(&str, u32); 4] = [
    ("1 hour", 60),
    ("4 hours", 240),
    ("1 day", 1_440),
    ("1 week", 10_080),
];

/// The longest snooze: 90 days.
pub const SNOOZE_MAX_MINUTES: u32 = 90 * 1_440;

/// Notes one page of a conversation's notes shows.
pub const NOTE_PAGE: u64 = 20;
pub const NOTE_MAX_CHARS: usize = 2000;

/// An internal note: for the team, never sent to the contact.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NoteView {
    pub id: Uuid,
    /// Who wrote it (their name; "A former member" once they left).
    pub author: String,
    pub body: String,
    pub created_at: DateTime<Utc>,
    /// The members it mentioned by name, who were notified.
    pub mentioned: Vec<String>,
}

/// Where the next (older) page of notes starts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NoteCursor {
    pub created_at: DateTime<Utc>,
    pub id: Uuid,
}

/// A conversation's notes, newest first, with how many there are.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NotePage {
    pub items: Vec<NoteView>,
    pub total: u64,
    pub next: Option<NoteCursor>,
}
