//! Contact types shared by the contacts page and the server.
use crate::compliance::model::{ConsentInput, ConsentSource};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ContactView {
    pub id: Uuid,
    pub name: String,
    pub phone: Option<String>,
    pub email: Option<String>,
    pub tags: Vec<String>,
    pub custom_fields: serde_json::Map<String, serde_json::Value>,
    pub notes: String,
    pub time_zone: Option<String>,
    pub opted_out: bool,
    pub opt_out_source: Option<String>,
    /// Consent on record: its source (and words for it), when, and the evidence note.
    pub consent_source: ConsentSource,
    pub consent_label: String,
    pub consent_at: Option<chrono::DateTime<chrono::Utc>>,
    pub consent_note: String,
    /// Without a zone of its own: the zone its area code suggests, said as inferred.
    pub inferred_zone: Option<String>,
}

/// What the contact form sends; the phone may be in any common format.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ContactInput {
    pub name: String,
    pub phone: String,
    pub email: String,
    pub tags: Vec<String>,
    #[serde(default)]
    pub custom_fields: serde_json::Map<String, serde_json::Value>,
    #[serde(default)]
    pub notes: String,
    #[serde(default)]
    pub time_zone: String,
    /// None: leave the consent on record as it is (a new contact gets none).
    #[serde(default)]
    pub consent: Option<ConsentInput>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImportRowError {
    /// 1-based line in the file, counting the header as line 1.
    pub line: usize,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImportReport {
    pub imported: usize,
    pub errors: Vec<ImportRowError>,
}

/// Splits "a, b ,c" into clean, de-duplicated tags.
pub fn parse_tags(raw: &str) -> Vec<String> {
    let mut tags: Vec<String> = Vec::new();
    for t in raw.split([',', ';']).map(|t| t.trim().to_lowercase()) {
        if !t.is_empty() && !tags.contains(&t) {
            tags.push(t);
        }
    }
    tags
}

/// Whether a stored sender can be texted back: only an E.164 number can (a plus and up to 15
/// digits; some valid numbers are short, like a German "+491640"). Short codes and alphanumeric
/// sender IDs are kept as they came, without a plus, and cannot.
pub fn can_text(phone: &str) -> bool {
    phone
        .strip_prefix('+')
        .is_some_and(|d| (3..=15).contains(&d.len()) && d.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn tags_are_trimmed_lowercased_and_unique() {
        assert_eq!(super::parse_tags(" VIP, lead;vip ,, "), vec!["vip", "lead"]);
    }
}

/// Which contacts: every test given must hold, and an empty filter is everyone. The server
/// evaluates it in SQL (`contacts::filter`), so counts are exact at any size and nobody, a model
/// least of all, has to list the members.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ContactFilter {
    /// Name, e-mail or tag containing it, or a phone containing its digits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<String>,
    /// Tagged with at least one of these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags_any: Vec<String>,
    /// Tagged with every one of these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags_all: Vec<String>,
    /// Tagged with none of these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags_none: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opted_out: Option<bool>,
    /// Written consent on record (what marketing needs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marketing_consent: Option<bool>,
    /// They texted us within the last N days.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replied_within_days: Option<u32>,
    /// They have not texted us within the last N days (or never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_reply_within_days: Option<u32>,
    /// We texted them within the last N days.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub texted_within_days: Option<u32>,
    /// We have not texted them within the last N days (or never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_texted_within_days: Option<u32>,
    /// Tests on custom fields.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldTest>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_after: Option<chrono::DateTime<chrono::Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_before: Option<chrono::DateTime<chrono::Utc>>,
    /// Only these contacts (a hand-picked list, at most 500).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ids: Option<Vec<Uuid>>,
}

/// A test on one custom field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FieldTest {
    pub field: String,
    pub op: FieldOp,
    #[serde(default)]
    pub value: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldOp {
    /// Equal, ignoring case.
    Equals,
    /// Containing the value, ignoring case.
    Contains,
    /// Set to something not empty.
    Present,
}

/// Where the next page of contacts starts: after this one, in name order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContactCursor {
    pub name: String,
    pub id: Uuid,
}

/// One page of the contacts a filter matches, in name order, with the exact number it matches.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ContactPage {
    pub items: Vec<ContactView>,
    pub total: u64,
    /// The next page's start; None on the last page.
    pub next: Option<ContactCursor>,
}
