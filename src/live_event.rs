//! What signed-in pages hear as things happen (`LiveEvent`), what each page listens to
//! (`LiveTopic`), and a text's direction, which both name: the base of the live updates, below
//! every domain that publishes them (the hub is `platform::live`).
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
    /// A member got a notification.
    NotificationCreated {
        user_id: Uuid,
    },
    /// A person's sessions ended (removed, or signed out everywhere): their open pages close.
    AccessEnded {
        user_id: Uuid,
    },
    /// Events were missed (the page fell behind): read everything again.
    Resync,
}

impl LiveEvent {
    pub fn contact_id(&self) -> Uuid {
        match self {
            LiveEvent::MessageCreated { contact_id, .. }
            | LiveEvent::MessageUpdated { contact_id, .. }
            | LiveEvent::ContactChanged { contact_id }
            | LiveEvent::SuggestionsReady { contact_id, .. }
            | LiveEvent::ThreadUpdated { contact_id, .. } => *contact_id,
            LiveEvent::PlanUpdated { .. }
            | LiveEvent::OperationUpdated { .. }
            | LiveEvent::NotificationCreated { .. }
            | LiveEvent::AccessEnded { .. }
            | LiveEvent::Resync => Uuid::nil(),
        }
    }
}

/// What one page listens to: the events it shows, and nothing of the rest of the organisation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LiveTopic {
    /// Conversations and their latest messages.
    Inbox,
    /// One contact's conversation: its messages, suggestions and agent threads.
    Conversation(Uuid),
    Operations,
    Operation(Uuid),
    /// Plans (and the operations their cards show).
    Plans,
    Plan(Uuid),
    /// One agent thread (and the plan cards in it).
    Thread(Uuid),
    /// Any agent thread: the agents page and the assistant.
    Threads,
    /// The member's own notifications.
    Notifications,
}

impl LiveTopic {
    /// Whether a page on this topic wants `e`; `user` is the page's member.
    pub fn wants(&self, e: &LiveEvent, user: Uuid) -> bool {
        use LiveEvent as E;
        if matches!(e, E::Resync) {
            return true;
        }
        if let E::AccessEnded { user_id } = e {
            return *user_id == user;
        }
        match self {
            LiveTopic::Inbox => matches!(
                e,
                E::MessageCreated { .. } | E::MessageUpdated { .. } | E::ContactChanged { .. }
            ),
            LiveTopic::Conversation(c) => {
                !matches!(
                    e,
                    E::PlanUpdated { .. }
                        | E::OperationUpdated { .. }
                        | E::NotificationCreated { .. }
                ) && e.contact_id() == *c
            }
            LiveTopic::Operations => matches!(e, E::OperationUpdated { .. }),
            LiveTopic::Operation(o) => {
                matches!(e, E::OperationUpdated { operation_id } if operation_id == o)
            }
            LiveTopic::Plans => matches!(e, E::PlanUpdated { .. } | E::OperationUpdated { .. }),
            LiveTopic::Plan(p) => {
                matches!(e, E::PlanUpdated { plan_id } if plan_id == p)
                    || matches!(e, E::OperationUpdated { .. })
            }
            LiveTopic::Thread(t) => {
                matches!(e, E::ThreadUpdated { thread_id, .. } if thread_id == t)
                    || matches!(e, E::PlanUpdated { .. } | E::OperationUpdated { .. })
            }
            LiveTopic::Threads => matches!(
                e,
                E::ThreadUpdated { .. } | E::PlanUpdated { .. } | E::OperationUpdated { .. }
            ),
            LiveTopic::Notifications => {
                matches!(e, E::NotificationCreated { user_id } if *user_id == user)
            }
        }
    }

    /// The topic as a query parameter: `conversation:<uuid>`, `inbox`, …
    pub fn to_param(&self) -> String {
        match self {
            LiveTopic::Inbox => "inbox".into(),
            LiveTopic::Conversation(id) => format!("conversation:{id}"),
            LiveTopic::Operations => "operations".into(),
            LiveTopic::Operation(id) => format!("operation:{id}"),
            LiveTopic::Plans => "plans".into(),
            LiveTopic::Plan(id) => format!("plan:{id}"),
            LiveTopic::Thread(id) => format!("thread:{id}"),
            LiveTopic::Threads => "threads".into(),
            LiveTopic::Notifications => "notifications".into(),
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        let (kind, id) = match s.split_once(':') {
            Some((k, id)) => (k, Some(id.parse::<Uuid>().ok()?)),
            None => (s, None),
        };
        Some(match (kind, id) {
            ("inbox", None) => LiveTopic::Inbox,
            ("conversation", Some(id)) => LiveTopic::Conversation(id),
            ("operations", None) => LiveTopic::Operations,
            ("operation", Some(id)) => LiveTopic::Operation(id),
            ("plans", None) => LiveTopic::Plans,
            ("plan", Some(id)) => LiveTopic::Plan(id),
            ("thread", Some(id)) => LiveTopic::Thread(id),
            ("threads", None) => LiveTopic::Threads,
            ("notifications", None) => LiveTopic::Notifications,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_round_trip_and_filter() {
        let c = Uuid::new_v4();
        for t in [
            LiveTopic::Inbox,
            LiveTopic::Conversation(c),
            LiveTopic::Operation(c),
            LiveTopic::Threads,
            LiveTopic::Notifications,
        ] {
            assert_eq!(LiveTopic::parse(&t.to_param()), Some(t));
        }
        assert_eq!(LiveTopic::parse("conversation:nope"), None);
        let created = LiveEvent::MessageCreated {
            contact_id: c,
            message_id: Uuid::nil(),
            direction: Direction::Inbound,
        };
        assert!(LiveTopic::Conversation(c).wants(&created, Uuid::nil()));
        assert!(!LiveTopic::Conversation(Uuid::new_v4()).wants(&created, Uuid::nil()));
        assert!(!LiveTopic::Operations.wants(&created, Uuid::nil()));
        let me = Uuid::new_v4();
        let note = LiveEvent::NotificationCreated { user_id: me };
        assert!(LiveTopic::Notifications.wants(&note, me));
        assert!(!LiveTopic::Notifications.wants(&note, Uuid::new_v4()));
    }
}
