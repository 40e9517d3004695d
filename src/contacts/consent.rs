//! A contact's consent on record: where it came from, and the form's input. Compliance reads it
//! (`compliance::gate`) to decide what may be sent; it is kept with the contact.
use serde::{Deserialize, Serialize};

/// Where a contact's consent came from. Marketing needs prior express *written* consent (TCPA),
/// so only a web form or an import whose file records consent allow it; a contact who texted
/// first may be answered, and verbal consent covers informational texts only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConsentSource {
    #[default]
    None,
    TextedFirst,
    WebForm,
    Imported,
    Verbal,
}

impl ConsentSource {
    pub const ALL: [ConsentSource; 5] = [
        ConsentSource::None,
        ConsentSource::TextedFirst,
        ConsentSource::WebForm,
        ConsentSource::Imported,
        ConsentSource::Verbal,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ConsentSource::None => "none",
            ConsentSource::TextedFirst => "texted_first",
            ConsentSource::WebForm => "web_form",
            ConsentSource::Imported => "imported",
            ConsentSource::Verbal => "verbal",
        }
    }

    /// Reads a stored or typed value ("web form", "Web-Form" and "web_form" alike).
    pub fn parse(s: &str) -> Option<ConsentSource> {
        let key: String = s
            .trim()
            .to_lowercase()
            .chars()
            .map(|c| if c == ' ' || c == '-' { '_' } else { c })
            .collect();
        Self::ALL.into_iter().find(|c| c.as_str() == key)
    }

    /// Words for the contact page and the review sheet.
    pub fn label(self) -> &'static str {
        match self {
            ConsentSource::None => "No consent on record",
            ConsentSource::TextedFirst => "Texted us first (replies only)",
            ConsentSource::WebForm => "Web form (written)",
            ConsentSource::Imported => "Imported with consent (written)",
            ConsentSource::Verbal => "Verbal (informational texts only)",
        }
    }

    /// Whether marketing (a campaign, a plan's text, outreach) may be sent on it.
    pub fn allows_marketing(self) -> bool {
        matches!(self, ConsentSource::WebForm | ConsentSource::Imported)
    }
}

/// Consent as a form sends it: the source and an evidence note.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ConsentInput {
    pub source: ConsentSource,
    #[serde(default)]
    pub note: String,
}
