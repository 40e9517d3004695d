//! A conversation's state as its row keeps it (Intercom's and Chatwoot's conversation tables):
//! open, closed or snoozed, its assignee, and an agent's pause. The inbox (`inbox`) changes it;
//! the conversation's page and list show it.
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

crate::text_enum! {
    /// Where a conversation stands. A new inbound text makes it open again. The row's `state`
    /// column holds it (the same words as `as_str`).
    #[derive(Default)]
    pub enum ConversationState {
        #[default]
        Open = "open",
        Closed = "closed",
        /// Out of the open view until `snoozed_until`; then open again.
        Snoozed = "snoozed",
    }
}

impl ConversationState {
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
            assert_eq!(ConversationState::from_text(s.as_str()), Some(s));
        }
    }
}
