//! Operation and item types shared by the operation card, the draft review sheet and the server.
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

crate::text_enum! {
    /// Where a campaign stands; its row's `status` (and `paused_from`) hold it, in the words of
    /// `as_str`.
    pub enum OperationStatus {
        Drafting = "drafting",
        AwaitingApproval = "awaiting_approval",
        Sending = "sending",
        Done = "done",
        Cancelled = "cancelled",
        Failed = "failed",
        /// Its plan was stopped: nothing is drafted or sent until an owner resumes it. Shown while
        /// the row's `paused_from` is set; the row itself waits in review.
        Paused = "paused",
    }
}

impl OperationStatus {
    /// The status named `s`; an unknown word reads as failed.
    pub fn parse(s: &str) -> Self {
        Self::from_text(s).unwrap_or(Self::Failed)
    }
}

crate::text_enum! {
    /// Where one contact's text of a campaign stands: pending → drafting → drafted → (sending) →
    /// sent | failed; or skipped, cancelled. The item row's `status` holds it (the words of `as_str`).
    pub enum ItemStatus {
        Pending = "pending",
        Drafting = "drafting",
        Drafted = "drafted",
        Sending = "sending",
        Sent = "sent",
        Failed = "failed",
        Skipped = "skipped",
        /// Sent or not, Herald cannot tell: a person decides (send anyway, or mark as sent).
        Unknown = "unknown",
        Cancelled = "cancelled",
    }
}

impl ItemStatus {}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OperationView {
    pub id: Uuid,
    pub plan_id: Option<Uuid>,
    pub status: OperationStatus,
    pub message_concept: String,
    pub from_number: String,
    pub total: i32,
    pub drafted: i32,
    pub sent: i32,
    pub failed: i32,
    pub skipped: i32,
    /// Texts Herald cannot tell were sent: each waits for a person ("send anyway" or "mark as sent").
    #[serde(default)]
    pub unknown: i32,
    /// Skip reasons with how many items each.
    pub skip_reasons: Vec<(String, i32)>,
    /// The pictures every text of the campaign carries (each then goes as one MMS).
    #[serde(default)]
    pub pictures: Vec<crate::media::model::UploadView>,
    pub error: Option<String>,
    /// Why it is paused, in words (its plan was stopped, or it paused itself).
    #[serde(default)]
    pub paused_reason: Option<String>,
    /// Its texts carriers filtered as spam (error 30007).
    #[serde(default)]
    pub filtered: i32,
    /// Its links go out as tracked short links starting with this (`PUBLIC_URL/l/`); None:
    /// as written. The sheet counts segments and cost on the text as sent.
    #[serde(default)]
    pub link_prefix: Option<String>,
    /// How many of its contacts clicked one of its links.
    #[serde(default)]
    pub clicked: i32,
    /// When it should finish, and what holds it back (while it is still to send).
    #[serde(default)]
    pub finish: Option<FinishEstimate>,
    /// Sending waits until then (a campaign scheduled for a date and time).
    #[serde(default)]
    pub send_after: Option<DateTime<Utc>>,
    /// A person's own words (New campaign), not a model's drafts: nothing regenerates them.
    #[serde(default)]
    pub written: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A campaign's estimated finish, from its sender profile, its recipients' quiet hours and the
/// brand's daily cap (`campaign::estimate`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FinishEstimate {
    /// For the card: when, in the organisation's zone, and what holds it back.
    pub words: String,
    /// "rate", "quiet_hours" or "daily_cap".
    pub held_by: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ItemView {
    pub id: Uuid,
    /// Its place in the audience, from 0.
    pub position: i32,
    pub contact_id: Uuid,
    pub contact_name: String,
    pub phone: Option<String>,
    pub status: ItemStatus,
    pub skip_reason: Option<String>,
    pub draft: Option<String>,
    pub edited: bool,
    /// The contact texted in after this draft was written.
    pub replied_since_drafting: bool,
    pub error: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReviewSheet {
    pub operation: OperationView,
    /// One page of the items, in audience order: those after position `after`, at most
    /// `SHEET_PAGE`.
    pub items: Vec<ItemView>,
    /// How many items the operation has in all.
    pub total_items: u64,
    /// The page began after this position (None: the first page).
    pub after: Option<i32>,
    /// The next page begins after this position (None: this is the last page).
    pub next_after: Option<i32>,
    /// The estimated cost of every text drafted for sending, sent or not, in dollars: counted on
    /// the text as sent (each link as its short link), one MMS a text with a picture.
    pub cost: f64,
    /// Some draft carries a link (the sheet then offers to shorten and track them).
    pub linked: bool,
    /// The digest of all the drafts (not just this page): "Approve all" sends it back, so that
    /// what is approved is what was seen.
    pub digest: String,
    /// Other campaigns within a day of this one that text some of the same contacts, in words
    /// ("212 of these contacts are in 'Saturday opening', sending tomorrow 10:00").
    #[serde(default)]
    pub overlaps: Vec<String>,
    /// When a scheduled campaign sends, in words at the business ("Sends tomorrow 10:00").
    #[serde(default)]
    pub schedule: Option<String>,
}

/// A page of the Operations list, newest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OperationsPage {
    pub items: Vec<OperationView>,
    /// How many operations the member may see in all.
    pub total: u64,
    /// The next (older) page begins after this operation (None: this is the last page).
    pub next_before: Option<Uuid>,
}

/// Operations on one page of the Operations list.
pub const OPERATIONS_PAGE: u64 = 20;

/// Items on one page of the review sheet.
pub const SHEET_PAGE: usize = 100;

/// Why a campaign its stopped plan paused waits, on its card.
pub const STOPPED_BY_PLAN: &str =
    "Paused: its plan was stopped. Nothing is drafted or sent until an owner resumes it.";

/// Whom a person's own campaign (the New campaign screen) goes to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WrittenAudience {
    /// A saved segment, by id.
    Segment { id: Uuid },
    /// Everyone with this tag.
    Tag { tag: String },
    /// A filter (the Contacts page's, as it was when "Text these" was pressed).
    Filter {
        filter: crate::contacts::model::ContactFilter,
    },
}

/// A campaign a person writes: to whom, the words (with merge fields), from which number, when.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WrittenCampaign {
    pub audience: WrittenAudience,
    pub body: String,
    /// One of the organisation's numbers (None: its first).
    #[serde(default)]
    pub from_number_id: Option<Uuid>,
    /// Not before this date and time at the business (its time zone; None: as soon as it is
    /// approved). Each contact's quiet hours apply as well.
    #[serde(default)]
    pub send_at_local: Option<chrono::NaiveDateTime>,
    /// Pictures every text carries (uploads of the organisation's).
    #[serde(default)]
    pub picture_ids: Vec<Uuid>,
}

/// Who a written campaign's audience reaches, counted exactly, and who is left out and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AudienceSummary {
    /// The audience in words, to follow a count ("contacts in the segment 'Regulars'",
    /// "contacts tagged vip").
    pub label: String,
    /// Contacts the audience names.
    pub matched: u64,
    /// Those who will be texted.
    pub reachable: u64,
    /// Those left out, by reason, the commonest first.
    pub left_out: Vec<(String, u64)>,
    /// Campaigns within a day that text some of the same contacts, in words.
    pub overlaps: Vec<String>,
}

/// One filled-in text of the preview.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SampleText {
    pub contact_name: String,
    pub text: String,
}
