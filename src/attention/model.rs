//! The counts shown beside the navigation.
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attention {
    /// Conversations with at least one unread inbound text.
    pub unread_conversations: u64,
    /// Plans of the organisation waiting for a person's approval.
    pub plans_awaiting_approval: u64,
    /// The member's own unread notifications.
    pub unread_notifications: u64,
    /// Texts that might be opt-outs, waiting for a person to decide.
    #[serde(default)]
    pub possible_opt_outs: u64,
    /// Open conversations assigned to the member (the inbox's "Mine").
    #[serde(default)]
    pub mine: u64,
    /// Open conversations nobody is assigned (the inbox's "Unassigned").
    #[serde(default)]
    pub unassigned: u64,
}
