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

/// A contact's fields to write. On create, `name` and `phone` are needed; on update, only the
/// fields given change.
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ContactWrite {
    pub name: Option<String>,
    /// Any common format; stored as E.164.
    pub phone: Option<String>,
    pub email: Option<String>,
    pub tags: Option<Vec<String>>,
    #[schema(value_type = Option<Object>)]
    pub custom_fields: Option<serde_json::Map<String, serde_json::Value>>,
    pub notes: Option<String>,
    pub time_zone: Option<String>,
    /// Consent to record, with its evidence; absent: the consent on record stays as it is.
    pub consent: Option<ConsentWrite>,
}

/// Consent and where it came from.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ConsentWrite {
    /// web_form, imported or verbal (texted_first is recorded by Herald itself; none clears it).
    pub source: String,
    /// The evidence: where and when they agreed.
    #[serde(default)]
    pub note: String,
}

impl ConsentWrite {
    pub fn to_input(&self) -> Result<crate::compliance::model::ConsentInput, String> {
        use crate::compliance::model::ConsentSource;
        let source = ConsentSource::parse(&self.source)
            .filter(|s| *s != ConsentSource::TextedFirst)
            .ok_or_else(|| {
                format!(
                    "\"{}\" is not a consent source: web_form, imported, verbal or none.",
                    self.source
                )
            })?;
        Ok(crate::compliance::model::ConsentInput {
            source,
            note: self.note.clone(),
        })
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
            send_state: m.send_state,
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

/// Why a plan is rejected or stopped.
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Reason {
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
