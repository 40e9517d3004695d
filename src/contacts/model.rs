//! Contact types shared by the contacts page and the server.
use crate::contacts::consent::{ConsentInput, ConsentSource};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Contacts a hand-picked list (a plan's per-contact changes, an audience's include or exclude
/// list) may name. Anything larger is a segment.
pub const HAND_PICKED_MAX: usize = 500;

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
    /// The carrier said this number cannot receive texts, in words: campaigns leave them out
    /// until a person clears it.
    #[serde(default)]
    pub unreachable: Option<String>,
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
#[cfg_attr(feature = "server", derive(schemars::JsonSchema, utoipa::ToSchema))]
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
#[cfg_attr(feature = "server", derive(schemars::JsonSchema, utoipa::ToSchema))]
pub struct FieldTest {
    pub field: String,
    pub op: FieldOp,
    #[serde(default)]
    pub value: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(schemars::JsonSchema, utoipa::ToSchema))]
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

/// A segment: a saved, named filter, evaluated anew each time it is read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SegmentView {
    pub id: Uuid,
    pub name: String,
    pub filter: ContactFilter,
    pub created_at: chrono::DateTime<chrono::Utc>,
}

/// The organisation's segments in name order, at most a page of them, with how many there are.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SegmentList {
    pub items: Vec<SegmentView>,
    pub total: u64,
}

impl ContactFilter {
    /// The filter in words, for a plan card or a segment: "tagged vip · no reply in 30 days".
    pub fn describe(&self) -> String {
        let list = |l: &[String], join: &str| l.join(join);
        let mut parts = Vec::new();
        if let Some(s) = self.search.as_deref().filter(|s| !s.trim().is_empty()) {
            parts.push(format!("matching \u{201c}{}\u{201d}", s.trim()));
        }
        if !self.tags_any.is_empty() {
            parts.push(format!("tagged {}", list(&self.tags_any, " or ")));
        }
        if !self.tags_all.is_empty() {
            parts.push(format!("tagged {}", list(&self.tags_all, " and ")));
        }
        if !self.tags_none.is_empty() {
            parts.push(format!("not tagged {}", list(&self.tags_none, " or ")));
        }
        match self.opted_out {
            Some(true) => parts.push("opted out".into()),
            Some(false) => parts.push("not opted out".into()),
            None => {}
        }
        match self.marketing_consent {
            Some(true) => parts.push("written consent on record".into()),
            Some(false) => parts.push("no written consent".into()),
            None => {}
        }
        let days = |n: u32| {
            if n == 1 {
                "1 day".to_owned()
            } else {
                format!("{n} days")
            }
        };
        if let Some(d) = self.replied_within_days {
            parts.push(format!("replied in the last {}", days(d)));
        }
        if let Some(d) = self.no_reply_within_days {
            parts.push(format!("no reply in {}", days(d)));
        }
        if let Some(d) = self.texted_within_days {
            parts.push(format!("texted in the last {}", days(d)));
        }
        if let Some(d) = self.not_texted_within_days {
            parts.push(format!("not texted in {}", days(d)));
        }
        for t in &self.fields {
            parts.push(match t.op {
                FieldOp::Equals => format!("{} is \u{201c}{}\u{201d}", t.field, t.value),
                FieldOp::Contains => format!("{} contains \u{201c}{}\u{201d}", t.field, t.value),
                FieldOp::Present => format!("{} is set", t.field),
            });
        }
        // By hand: chrono's `format` would bring strftime into the web client.
        let date = |at: chrono::DateTime<chrono::Utc>| {
            use chrono::Datelike;
            format!("{:04}-{:02}-{:02}", at.year(), at.month(), at.day())
        };
        if let Some(at) = self.created_after {
            parts.push(format!("added after {}", date(at)));
        }
        if let Some(at) = self.created_before {
            parts.push(format!("added before {}", date(at)));
        }
        if let Some(ids) = &self.ids {
            parts.push(format!("{} chosen contacts", ids.len()));
        }
        if parts.is_empty() {
            return "every contact".into();
        }
        parts.join(" \u{b7} ")
    }
}

#[cfg(test)]
mod describe_tests {
    use super::*;

    #[test]
    fn a_filter_in_words() {
        assert_eq!(ContactFilter::default().describe(), "every contact");
        let f = ContactFilter {
            tags_any: vec!["vip".into()],
            no_reply_within_days: Some(30),
            opted_out: Some(false),
            ..Default::default()
        };
        assert_eq!(
            f.describe(),
            "tagged vip \u{b7} not opted out \u{b7} no reply in 30 days"
        );
    }
}
