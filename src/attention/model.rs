//! The counts shown beside the navigation.
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attention {
    /// Conversations with at least one unread inbound text.
    pub unread_conversations: u64,
    /// Plans of the organisation waiting for a person's approval.
    pub plans_awaiting_approval: u64,
    /// Steps of running plans waiting for a person's confirmation.
    #[serde(default)]
    pub steps_waiting: u64,
    /// The member's own unread notifications.
    pub unread_notifications: u64,
    /// Texts that might be opt-outs, waiting for a person to decide.
    #[serde(default)]
    pub possible_opt_outs: u64,
    /// Open conversations assigned to the member (the inbox's "Mine"), counted up to
    /// `BADGE_MAX + 1`: more than `BADGE_MAX` shows as "999+".
    #[serde(default)]
    pub mine: u64,
    /// Open conversations nobody is assigned (the inbox's "Unassigned"), counted the same way.
    #[serde(default)]
    pub unassigned: u64,
    /// For owners: what blocks the organisation's texts and only they can fix, in words (a
    /// number carriers refuse as unregistered). Shown above every page.
    #[serde(default)]
    pub banners: Vec<String>,
}

/// The largest count a sidebar badge shows as a number; past it, "999+".
pub const BADGE_MAX: u64 = 999;

/// A badge's text: the count, or "999+" past `BADGE_MAX`.
pub fn badge(n: u64) -> String {
    if n > BADGE_MAX {
        format!("{BADGE_MAX}+")
    } else {
        n.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_badge_says_when_it_stops_counting() {
        assert_eq!(badge(0), "0");
        assert_eq!(badge(999), "999");
        assert_eq!(badge(1000), "999+");
        assert_eq!(badge(25_000), "999+");
    }
}
