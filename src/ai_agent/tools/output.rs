//! What each agent tool answers, as types: a tool serialises its result through one of these, and
//! its output schema (schemars) is generated from the same type, so a step plan's references are
//! checked against exactly what the tool returns.
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use uuid::Uuid;

/// The JSON schema of an output type.
pub fn schema_of<T: JsonSchema>() -> Value {
    serde_json::to_value(schemars::schema_for!(T)).unwrap_or_else(|_| serde_json::json!({}))
}

/// A tool's typed result as the JSON the model and later steps read.
pub fn to_json<T: Serialize>(out: &T) -> Value {
    serde_json::to_value(out).unwrap_or_default()
}

/// A contact in a list: enough to text, tag or look them up.
#[derive(Serialize, JsonSchema)]
pub struct ContactBrief {
    pub id: Uuid,
    pub name: String,
    pub phone: Option<String>,
    pub tags: Vec<String>,
    pub opted_out: bool,
}

/// `search_contacts`: how many match, exactly, and the first 50 in name order.
#[derive(Serialize, JsonSchema)]
pub struct ContactsFound {
    pub count: usize,
    pub contacts: Vec<ContactBrief>,
}

/// `get_contact`: the whole record.
#[derive(Serialize, JsonSchema)]
pub struct ContactRecord {
    pub id: Uuid,
    pub name: String,
    pub phone: Option<String>,
    pub email: Option<String>,
    pub tags: Vec<String>,
    pub custom_fields: serde_json::Map<String, Value>,
    pub notes: String,
    pub time_zone: Option<String>,
    pub opted_out: bool,
    pub opt_out_source: Option<String>,
}

impl From<crate::contacts::model::ContactView> for ContactRecord {
    fn from(c: crate::contacts::model::ContactView) -> Self {
        ContactRecord {
            id: c.id,
            name: c.name,
            phone: c.phone,
            email: c.email,
            tags: c.tags,
            custom_fields: c.custom_fields,
            notes: c.notes,
            time_zone: c.time_zone,
            opted_out: c.opted_out,
            opt_out_source: c.opt_out_source,
        }
    }
}

/// `find_contacts`: the exact count and the first contacts.
#[derive(Serialize, JsonSchema)]
pub struct FoundContacts {
    pub count: usize,
    pub contacts: Vec<FoundContact>,
}

#[derive(Serialize, JsonSchema)]
pub struct FoundContact {
    pub id: Uuid,
    pub name: String,
    pub phone: Option<String>,
    pub tags: Vec<String>,
    pub opted_out: bool,
    /// When they last texted; none if never.
    pub last_reply_at: Option<DateTime<Utc>>,
}

/// `find_quiet_contacts`: the exact count, and the first of them in name order.
#[derive(Serialize, JsonSchema)]
pub struct QuietContacts {
    pub days: i64,
    /// How many contacts have not texted in `days` days, exactly.
    pub count: u64,
    /// The first of them (at most 500); `note` says when there are more.
    pub quiet: Vec<QuietContact>,
    /// How many have texted in `days` days, exactly.
    pub replied_recently: u64,
    /// Set when `quiet` is not all of them: say so, and plan over a filter instead of a list.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct QuietContact {
    pub id: Uuid,
    pub name: String,
    pub tags: Vec<String>,
    pub opted_out: bool,
}

/// `recent_messages`: one text.
#[derive(Serialize, JsonSchema)]
pub struct MessageBrief {
    pub direction: String,
    pub body: String,
    pub at: DateTime<Utc>,
}

/// `check_opt_out`.
#[derive(Serialize, JsonSchema)]
pub struct OptOutState {
    pub contact_id: Uuid,
    pub opted_out: bool,
    pub source: Option<String>,
}

/// `list_tags`: every tag in use, with how many contacts carry it.
#[derive(Serialize, JsonSchema)]
pub struct TagList {
    pub tags: Vec<TagCount>,
}

#[derive(Serialize, JsonSchema)]
pub struct TagCount {
    pub tag: String,
    pub contacts: usize,
}

/// `tag_contacts`: each contact's tags after the change.
#[derive(Serialize, JsonSchema)]
pub struct Retagged {
    pub changed: usize,
    pub contacts: Vec<ContactTags>,
}

#[derive(Serialize, JsonSchema)]
pub struct ContactTags {
    pub id: Uuid,
    pub tags: Vec<String>,
}

/// `set_custom_field`.
#[derive(Serialize, JsonSchema)]
pub struct FieldSet {
    pub contact_id: Uuid,
    pub field: String,
    pub value: String,
}

/// `add_note`.
#[derive(Serialize, JsonSchema)]
pub struct NoteAdded {
    pub contact_id: Uuid,
    pub notes: String,
}

/// `send_sms`: the text as the send ledger holds it.
#[derive(Serialize, JsonSchema)]
pub struct TextSent {
    pub sent: bool,
    pub message_id: Uuid,
    pub status: String,
    pub from_number_id: Uuid,
    /// A plan's text that met the recipient's quiet hours: scheduled for the window (its
    /// `message_id` is the scheduled text's), and when it will go, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waits: Option<String>,
}

/// `send_sms`, simulated: the text it would send, shaped like `TextSent` (nothing was sent, so
/// no message id), with its recipient, from-number, segments and cost.
#[derive(Serialize, JsonSchema)]
pub struct TextPreview {
    #[serde(flatten)]
    pub text: TextSent,
    pub to_name: String,
    pub to: String,
    pub from: String,
    pub segments: usize,
    pub cost_usd: f64,
}

/// `start_campaign`: the campaign it started (drafting; sending waits for the review sheet).
#[derive(Serialize, JsonSchema)]
pub struct CampaignStarted {
    pub operation_id: Uuid,
    pub contacts: usize,
    pub status: String,
}

/// `start_campaign`, simulated: whom it would text (the opted out left out) and the cost.
#[derive(Serialize, JsonSchema)]
pub struct CampaignPreview {
    #[serde(flatten)]
    pub started: CampaignStarted,
    pub from: String,
    pub texts: usize,
    pub left_out: usize,
    pub segments: usize,
    pub cost_usd: f64,
}

/// `schedule_text`: the text waiting for its time.
#[derive(Serialize, JsonSchema)]
pub struct TextScheduled {
    pub scheduled_id: Uuid,
    pub contact_id: Uuid,
    pub send_at: DateTime<Utc>,
    pub status: String,
}

/// `escalate_to_user`.
#[derive(Serialize, JsonSchema)]
pub struct Escalated {
    pub escalated: bool,
    pub notification_id: Option<Uuid>,
}

/// `propose_sms_replies`.
#[derive(Serialize, JsonSchema)]
pub struct Proposed {
    pub proposed: usize,
    pub suggestion_id: Uuid,
}
