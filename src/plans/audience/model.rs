//! A plan's audience that the server resolves: a saved segment or a filter, less the contacts
//! left out by hand, plus those added by hand. A model writes a few tokens; the members are
//! counted and paged in SQL, and never written out in the plan.
use crate::contacts::model::{ContactCursor, ContactFilter};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

pub use crate::contacts::model::HAND_PICKED_MAX;

/// Who a tag or campaign plan reaches, resolved by the server when the plan is presented and
/// again when it is approved.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(schemars::JsonSchema))]
pub struct Audience {
    /// A saved segment, by its name. Give this or `filter`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segment: Option<String>,
    /// A filter on the contacts. Give this or `segment`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<ContactFilter>,
    /// Contacts to leave out, each with the reason (at most 500).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<AudienceEntry>,
    /// Contacts to add to the filter's, each with the reason (at most 500).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub include: Vec<AudienceEntry>,
    /// Set by the server: how many members its last resolution found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "server", schemars(skip))]
    pub members: Option<u64>,
    /// Set by the server from the agent's lessons: everyone with the tag is left out, with the
    /// lesson as the reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "server", schemars(skip))]
    pub lessons: Vec<(String, String)>,
    /// Set by the server when a resolution at approval found a different membership: what
    /// changed. Approval was refused once for it; the card shows it until the plan is decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "server", schemars(skip))]
    pub changed: Option<String>,
}

/// One hand-picked contact, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(schemars::JsonSchema))]
pub struct AudienceEntry {
    pub contact_id: Uuid,
    #[serde(default)]
    pub reason: String,
}

/// A member of a resolved audience, as the card lists them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AudienceMember {
    pub contact_id: Uuid,
    pub name: String,
    pub phone: Option<String>,
}

/// One page of a plan's members (name order), optionally searched, with the exact total.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AudiencePage {
    pub items: Vec<AudienceMember>,
    pub total: u64,
    /// Where the next page starts; None on the last page.
    pub next: Option<ContactCursor>,
}

/// A resolved audience as the plan card shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AudienceView {
    /// "Segment “VIP”: tagged vip" or the filter in words.
    pub label: String,
    /// Members, exactly, at the last resolution.
    pub members: u64,
    /// Contacts the filter matched that are left out, by reason, largest group first.
    pub exclusions: Vec<(String, u64)>,
    /// The first page of members.
    pub first: AudiencePage,
    /// Set when a resolution found a different membership than the one before it ("212 joined,
    /// 17 left since this plan was written"): approval was refused until a person saw it.
    pub changed: Option<String>,
}

/// "212 joined, 17 left since this plan was written", or None when nobody did.
pub fn change_note(joined: u64, left: u64) -> Option<String> {
    if joined == 0 && left == 0 {
        return None;
    }
    let mut parts = Vec::new();
    if joined > 0 {
        parts.push(format!("{joined} joined"));
    }
    if left > 0 {
        parts.push(format!("{left} left"));
    }
    Some(format!("{} since this plan was written", parts.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_change_note_says_who_came_and_went() {
        assert_eq!(change_note(0, 0), None);
        assert_eq!(
            change_note(212, 17).as_deref(),
            Some("212 joined, 17 left since this plan was written")
        );
        assert_eq!(
            change_note(0, 3).as_deref(),
            Some("3 left since this plan was written")
        );
    }

    #[test]
    fn a_model_writes_a_few_tokens() {
        let a: Audience = serde_json::from_str(
            r#"{"filter": {"no_reply_within_days": 30}, "exclude": [{"contact_id": "00000000-0000-0000-0000-000000000001", "reason": "asked for no texts"}]}"#,
        )
        .unwrap();
        assert_eq!(a.filter.unwrap().no_reply_within_days, Some(30));
        assert_eq!(a.exclude.len(), 1);
        assert_eq!(a.members, None);
    }
}
