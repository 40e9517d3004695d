//! The public API's own types. They are the `/v1` contract, kept apart from the app's internal
//! views so that the app can change without breaking another system's integration.
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Contact {
    pub id: Uuid,
    pub name: String,
    /// E.164, such as `+15551234567`.
    pub phone: Option<String>,
    pub email: Option<String>,
    pub tags: Vec<String>,
    #[schema(value_type = Object)]
    pub custom_fields: serde_json::Map<String, serde_json::Value>,
    pub notes: String,
    /// An IANA zone, such as `America/Chicago`.
    pub time_zone: Option<String>,
    /// Read only: suppression changes only by the compliance rules (a STOP, or an owner in
    /// the app).
    pub opted_out: bool,
    pub opt_out_source: Option<String>,
    /// Consent on record, in words.
    pub consent: String,
    pub consent_at: Option<DateTime<Utc>>,
}

impl From<crate::contacts::model::ContactView> for Contact {
    fn from(c: crate::contacts::model::ContactView) -> Self {
        Self {
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
            consent: c.consent_label,
            consent_at: c.consent_at,
        }
    }
}

/// A page of contacts, with the exact number that match.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ContactList {
    pub data: Vec<Contact>,
    pub total: u64,
    /// Pass as `cursor` for the next page; absent on the last.
    pub next_cursor: Option<String>,
}

/// A new contact: a name or a phone (or both), and anything else known about them.
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewContact {
    /// Empty: the phone number stands for the name.
    pub name: Option<String>,
    /// Any common format; stored as E.164.
    pub phone: Option<String>,
    pub email: Option<String>,
    pub tags: Option<Vec<String>>,
    /// Text, numbers, true or false, by field name.
    #[schema(value_type = Option<Object>)]
    pub custom_fields: Option<serde_json::Map<String, serde_json::Value>>,
    pub notes: Option<String>,
    /// An IANA zone, such as `America/Chicago`; empty: none. One Herald does not know: 422.
    pub time_zone: Option<String>,
    /// Consent to record, with its evidence; absent: none on record.
    pub consent: Option<ConsentWrite>,
}

/// A contact's fields to change: only the fields given change (an empty phone removes it).
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ContactPatch {
    pub name: Option<String>,
    /// Any common format; stored as E.164. Empty: no phone.
    pub phone: Option<String>,
    pub email: Option<String>,
    pub tags: Option<Vec<String>>,
    /// Text, numbers, true or false, by field name; replaces them all.
    #[schema(value_type = Option<Object>)]
    pub custom_fields: Option<serde_json::Map<String, serde_json::Value>>,
    pub notes: Option<String>,
    /// An IANA zone, such as `America/Chicago`; empty: none. One Herald does not know: 422.
    pub time_zone: Option<String>,
    /// Consent to record, with its evidence; absent: the consent on record stays as it is.
    pub consent: Option<ConsentWrite>,
}

impl From<NewContact> for ContactPatch {
    fn from(c: NewContact) -> Self {
        Self {
            name: c.name,
            phone: c.phone,
            email: c.email,
            tags: c.tags,
            custom_fields: c.custom_fields,
            notes: c.notes,
            time_zone: c.time_zone,
            consent: c.consent,
        }
    }
}

/// Where consent came from. `texted_first` is recorded by Herald itself; `none` clears it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ConsentChoice {
    WebForm,
    Imported,
    Verbal,
    None,
}

/// Consent and where it came from.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ConsentWrite {
    pub source: ConsentChoice,
    /// The evidence: where and when they agreed.
    #[serde(default)]
    pub note: String,
}

impl ConsentWrite {
    pub fn to_input(&self) -> crate::compliance::model::ConsentInput {
        use crate::compliance::model::ConsentSource;
        crate::compliance::model::ConsentInput {
            source: match self.source {
                ConsentChoice::WebForm => ConsentSource::WebForm,
                ConsentChoice::Imported => ConsentSource::Imported,
                ConsentChoice::Verbal => ConsentSource::Verbal,
                ConsentChoice::None => ConsentSource::None,
            },
            note: self.note.clone(),
        }
    }
}

/// Which contacts: every test given must hold; an empty filter is everyone. The filter a saved
/// segment holds, in the same words.
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchFilter {
    /// Name, e-mail or tag containing it, or a phone containing its digits.
    pub search: Option<String>,
    /// Tagged with at least one of these.
    #[serde(default)]
    pub tags_any: Vec<String>,
    /// Tagged with every one of these.
    #[serde(default)]
    pub tags_all: Vec<String>,
    /// Tagged with none of these.
    #[serde(default)]
    pub tags_none: Vec<String>,
    pub opted_out: Option<bool>,
    /// Written consent on record (what marketing needs).
    pub marketing_consent: Option<bool>,
    /// They texted us within the last N days.
    pub replied_within_days: Option<u32>,
    /// They have not texted us within the last N days (or never).
    pub no_reply_within_days: Option<u32>,
    /// We texted them within the last N days.
    pub texted_within_days: Option<u32>,
    /// We have not texted them within the last N days (or never).
    pub not_texted_within_days: Option<u32>,
    /// Tests on custom fields.
    #[serde(default)]
    pub fields: Vec<CustomFieldTest>,
    pub created_after: Option<DateTime<Utc>>,
    pub created_before: Option<DateTime<Utc>>,
    /// Only these contacts (a hand-picked list).
    pub ids: Option<Vec<Uuid>>,
}

/// A test on one custom field.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CustomFieldTest {
    pub field: String,
    pub op: crate::contacts::model::FieldOp,
    /// What `equals` and `contains` compare with, ignoring case.
    #[serde(default)]
    pub value: String,
}

impl From<SearchFilter> for crate::contacts::model::ContactFilter {
    fn from(f: SearchFilter) -> Self {
        Self {
            search: f.search,
            tags_any: f.tags_any,
            tags_all: f.tags_all,
            tags_none: f.tags_none,
            opted_out: f.opted_out,
            marketing_consent: f.marketing_consent,
            replied_within_days: f.replied_within_days,
            no_reply_within_days: f.no_reply_within_days,
            texted_within_days: f.texted_within_days,
            not_texted_within_days: f.not_texted_within_days,
            fields: f
                .fields
                .into_iter()
                .map(|t| crate::contacts::model::FieldTest {
                    field: t.field,
                    op: t.op,
                    value: t.value,
                })
                .collect(),
            created_after: f.created_after,
            created_before: f.created_before,
            ids: f.ids,
        }
    }
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ImportRowError {
    /// 1-based line, the header being line 1.
    pub line: usize,
    pub message: String,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ImportResult {
    pub imported: usize,
    pub errors: Vec<ImportRowError>,
}

/// What deleting a contact took with it. The number's opt-out, if any, stays.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct DeletedContact {
    pub id: Uuid,
    pub deleted: bool,
    /// Their texts, deleted with them.
    pub messages: u64,
    /// Their pictures, deleted with them.
    pub pictures: usize,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Message {
    pub id: Uuid,
    pub contact_id: Uuid,
    pub phone_number_id: Uuid,
    /// `inbound` or `outbound`.
    pub direction: String,
    pub body: String,
    pub media_count: i32,
    /// The provider's status (`queued`, `sent`, `delivered`, `failed`…).
    pub status: String,
    /// Outbound: queued, sending, sent, failed or unknown.
    pub send_state: Option<String>,
    pub error: Option<String>,
    pub created_at: DateTime<Utc>,
}

impl From<crate::messaging::model::MessageView> for Message {
    fn from(m: crate::messaging::model::MessageView) -> Self {
        Self {
            id: m.id,
            contact_id: m.contact_id,
            phone_number_id: m.phone_number_id,
            direction: m.direction.as_str().into(),
            body: m.body,
            media_count: m.media_count,
            status: m.status,
            send_state: m.send_state.map(|s| s.as_str().to_owned()),
            error: m.error,
            created_at: m.created_at,
        }
    }
}

/// A conversation's messages, oldest first.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct MessageList {
    pub data: Vec<Message>,
    /// Pass as `cursor` for the page of older messages; absent when the first is here.
    pub next_cursor: Option<String>,
}

/// A text to send. It goes through every check the app's composer applies.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SendMessage {
    pub contact_id: Uuid,
    /// One of the organisation's numbers; absent: the number the contact last texted, or the
    /// first.
    pub phone_number_id: Option<Uuid>,
    pub body: String,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Conversation {
    pub contact_id: Uuid,
    pub contact_name: String,
    pub contact_phone: Option<String>,
    pub last_body: String,
    pub last_direction: String,
    pub last_at: DateTime<Utc>,
    pub unread: u64,
    /// `open`, `closed` or `snoozed`.
    pub state: String,
    pub assignee_id: Option<Uuid>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ConversationList {
    pub data: Vec<Conversation>,
    pub total: u64,
    pub next_cursor: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Plan {
    pub id: Uuid,
    pub agent_id: Uuid,
    pub agent_name: String,
    pub title: String,
    pub summary: String,
    /// drafting, awaiting_approval, approved, rejected, executing, done, failed or stopped.
    pub status: String,
    /// human_review, auto or risk_gated.
    pub approval_policy: String,
    pub decision_reason: Option<String>,
    pub approved_by_name: Option<String>,
    pub approved_at: Option<DateTime<Utc>>,
    pub error: Option<String>,
    /// What the plan does, as the app's plan card reads it.
    #[schema(value_type = Object)]
    pub action: serde_json::Value,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<crate::plans::model::PlanView> for Plan {
    fn from(p: crate::plans::model::PlanView) -> Self {
        Self {
            id: p.id,
            agent_id: p.agent_id,
            agent_name: p.agent_name,
            title: p.title,
            summary: p.summary,
            status: p.status.as_str().into(),
            approval_policy: p.approval_policy.as_str().into(),
            decision_reason: p.decision_reason,
            approved_by_name: p.approved_by_name,
            approved_at: p.approved_at,
            error: p.error,
            action: serde_json::to_value(&p.action).unwrap_or_default(),
            created_at: p.created_at,
            updated_at: p.updated_at,
        }
    }
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PlanList {
    pub data: Vec<Plan>,
    pub total: u64,
    pub next_cursor: Option<String>,
}

/// Why a plan is rejected: it goes back to the agent, to revise the plan.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Rejection {
    pub reason: String,
}

/// Why a plan is stopped, if you say.
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StopReason {
    #[serde(default)]
    pub reason: String,
}

/// A saved filter. `GET /v1/contacts?segment_id=…` lists its members with their exact count.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Segment {
    pub id: Uuid,
    pub name: String,
    /// The filter, as the app saved it.
    #[schema(value_type = Object)]
    pub filter: serde_json::Value,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct SegmentList {
    pub data: Vec<Segment>,
    pub total: u64,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PhoneNumber {
    pub id: Uuid,
    pub number: String,
    pub friendly_name: String,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PhoneNumberList {
    pub data: Vec<PhoneNumber>,
    pub total: u64,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Agent {
    pub id: Uuid,
    pub name: String,
    /// `autonomous` or `suggest`.
    pub send_mode: String,
    pub number_ids: Vec<Uuid>,
    pub planning_enabled: bool,
    pub plan_approval: String,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct AgentList {
    pub data: Vec<Agent>,
    pub total: u64,
}
