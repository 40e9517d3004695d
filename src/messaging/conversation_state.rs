//! A conversation's state as its row keeps it (Intercom's and Chatwoot's conversation tables):
//! open, closed or snoozed, its assignee, and an agent's pause. The inbox (`inbox`) changes it;
//! the conversation's page and list show it.
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Where a conversation stands. A new inbound text makes it open again. The row's `state`
/// column holds it (the same words as `as_str`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(
    feature = "server",
    derive(sea_orm::EnumIter, sea_orm::DeriveActiveEnum),
    sea_orm(rs_type = "String", db_type = "Text")
)]
#[serde(rename_all = "snake_case")]
pub enum ConversationState {
    #[default]
    #[cfg_attr(feature = "server", sea_orm(string_value = "open"))]
    Open,
    #[cfg_attr(feature = "server", sea_orm(string_value = "closed"))]
    Closed,
    /// Out of the open view until `snoozed_until`; then open again.
    #[cfg_attr(feature = "server", sea_orm(string_value = "snoozed"))]
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
            assert_eq!(ConversationState::parse(s.as_str()), Some(s));
        }
    }
}
