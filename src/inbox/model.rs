//! The team inbox's types, shared by the pages and the server.
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Where a conversation stands. A new inbound text makes it open again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConversationState {
    #[default]
    Open,
    Closed,
    /// Out of the open view until `snoozed_until`; then open again.
    Snoozed,
}

impl ConversationState {
    pub fn as_str(self) -> &'static str {
        match self {
            ConversationState::Open => "open",
            ConversationState::Closed => "closed",
            ConversationState::Snoozed => "snoozed",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "open" => Some(ConversationState::Open),
            "closed" => Some(ConversationState::Closed),
            "snoozed" => Some(ConversationState::Snoozed),
            _ => None,
        }
    }

    /// The state as people see it at `now`: a snooze that is due is open, whether or not the
    /// waker has reached it yet.
    pub fn at(self, snoozed_until: Option<DateTime<Utc>>, now: DateTime<Utc>) -> Self {
        match (self, snoozed_until) {
            (ConversationState::Snoozed, Some(until)) if until <= now => ConversationState::Open,
            (s, _) => s,
        }
    }
}

/// The member a conversation is assigned to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Assignee {
    pub user_id: Uuid,
    pub name: String,
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

/// A conversation's triage, as its page shows it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Triage {
    pub state: ConversationState,
    pub snoozed_until: Option<DateTime<Utc>>,
    pub assignee: Option<Assignee>,
    /// Autonomous agents stay silent here until then: a person took over.
    #[serde(default)]
    pub ai_paused_until: Option<DateTime<Utc>>,
    /// Who took over (their name), while the pause lasts.
    #[serde(default)]
    pub ai_paused_by: Option<String>,
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

/// Snoozes the conversation page offers: (label, minutes).
pub const SNOOZES: [(&str, u32); 4] = [
    ("1 hour", 60),
    ("4 hours", 240),
    ("1 day", 1_440),
    ("1 week", 10_080),
];

/// The longest snooze: 90 days.
pub const SNOOZE_MAX_MINUTES: u32 = 90 * 1_440;

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    #[test]
    fn a_due_snooze_reads_as_open() {
        let now = Utc::now();
        let s = ConversationState::Snoozed;
        assert_eq!(s.at(Some(now + Duration::minutes(1)), now), s);
        assert_eq!(s.at(Some(now), now), ConversationState::Open);
        assert_eq!(
            ConversationState::Closed.at(None, now),
            ConversationState::Closed
        );
        for s in [
            ConversationState::Open,
            ConversationState::Closed,
            ConversationState::Snoozed,
        ] {
            assert_eq!(ConversationState::parse(s.as_str()), Some(s));
        }
    }
}

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
