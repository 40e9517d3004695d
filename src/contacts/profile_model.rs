//! What the contact page shows (issue 28 §5), and what merging two duplicates did.
use crate::contacts::model::ContactView;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// How many campaigns and plans the contact page lists; it says how many there are in all.
pub const TOUCHES_SHOWN: usize = 20;

/// One contact with everything that touched them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ContactProfile {
    pub contact: ContactView,
    /// The conversation (one per contact), if anyone ever texted.
    pub conversation: Option<ConversationSummary>,
    /// Each business number that texted with them, most recent first.
    pub numbers: Vec<NumberUse>,
    /// Campaigns and plans that included them, newest first: at most `TOUCHES_SHOWN`.
    pub touches: Vec<Touch>,
    /// How many campaigns and plans included them in all (exact).
    pub touches_total: u64,
    /// How many duplicates were merged into this contact.
    pub merged: u64,
    /// Their clicks on the tracked links texted to them (campaigns' and saved replies'), and
    /// the last one's time.
    #[serde(default)]
    pub link_clicks: u64,
    #[serde(default)]
    pub last_click_at: Option<DateTime<Utc>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConversationSummary {
    /// open, closed or snoozed.
    pub state: String,
    pub assignee: Option<String>,
    pub message_count: i64,
    pub unread_count: i32,
    pub last_at: DateTime<Utc>,
    pub last_body: String,
}

/// One business number's share of the conversation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NumberUse {
    pub number: String,
    pub friendly_name: String,
    pub texts: u64,
    pub last_at: DateTime<Utc>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TouchKind {
    /// A campaign's item for them: `id` is the campaign (operation).
    Campaign,
    /// A plan whose audience held them and that has no campaign item for them (yet): `id` is the
    /// plan.
    Plan,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Touch {
    pub kind: TouchKind,
    pub id: Uuid,
    pub title: String,
    /// The campaign's or plan's state.
    pub status: String,
    /// For a campaign: what happened to their text (sent, skipped and why, …).
    pub outcome: Option<String>,
    pub at: DateTime<Utc>,
}

/// What a merge moves (a preview) or moved: `merged` goes into `kept` and is removed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MergeReport {
    pub kept: Uuid,
    pub merged_name: String,
    pub messages: u64,
    pub notes: u64,
    pub scheduled_texts: u64,
    /// Agent threads re-keyed to the kept contact; those whose agent already had a thread with
    /// the kept contact are archived (their unanswered texts move to it).
    pub threads_moved: u64,
    pub threads_archived: u64,
    pub campaign_items: u64,
    /// Tags the kept contact gains.
    pub tags_added: Vec<String>,
    /// Whether the merged contact ends opted out (either was).
    pub opted_out: bool,
    /// The consent kept: the stricter of the two.
    pub consent_label: String,
    /// The merged contact's number when it differs from the kept one's: texts from it will start
    /// a new contact.
    pub phone_dropped: Option<String>,
    /// False for a preview: nothing was changed.
    pub done: bool,
}
