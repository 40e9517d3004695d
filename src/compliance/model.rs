//! Compliance types shared by the pages and the server: consent on record, a text's purpose, and
//! the "possible opt-out" items a person decides.
use serde::{Deserialize, Serialize};
use uuid::Uuid;

pub use crate::contacts::consent::{ConsentInput, ConsentSource};

// Why a text is sent is the text's own (`messaging`), read here by the send check.
pub use crate::messaging::model::Purpose;

/// A text the rules found might be an opt-out, waiting for a person.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OptOutReviewView {
    pub id: Uuid,
    pub contact_id: Uuid,
    pub contact_name: String,
    pub phone: String,
    pub body: String,
    /// The words that made it look like one.
    pub matched: String,
    pub created_at: chrono::DateTime<chrono::Utc>,
}

/// A page of open possible opt-outs, with the exact total.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OptOutReviewPage {
    pub items: Vec<OptOutReviewView>,
    pub total: u64,
}

/// Longest wording a setting may hold: a HELP answer or confirmation must fit a text or two.
pub const MAX_WORDING_CHARS: usize = 320;

/// The organisation's texting-law settings (Settings → Texting law). Empty wording means the
/// default, which `defaults` shows.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ComplianceSettings {
    /// The answer to HELP or INFO.
    pub help_text: String,
    /// The one text an opt-out gets.
    pub opt_out_reply: String,
    /// Whether an autonomous agent's first reply in a conversation says it is automated.
    pub ai_disclosure: bool,
    pub ai_disclosure_text: String,
    /// Extra words or phrases that opt a person out, one per line.
    pub opt_out_phrases: String,
}

/// The settings with the defaults in force where the organisation has none of its own.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ComplianceSettingsView {
    pub settings: ComplianceSettings,
    pub default_help_text: String,
    pub default_opt_out_reply: String,
    pub default_ai_disclosure_text: String,
}

impl ComplianceSettings {
    /// Trimmed and bounded, or why not.
    pub fn cleaned(&self) -> Result<ComplianceSettings, String> {
        let bounded = |what: &str, s: &str| {
            let s = s.trim();
            if s.chars().count() > MAX_WORDING_CHARS {
                Err(format!(
                    "The {what} is longer than {MAX_WORDING_CHARS} characters."
                ))
            } else {
                Ok(s.to_owned())
            }
        };
        let opt_out_reply = bounded("opt-out confirmation", &self.opt_out_reply)?;
        let lower = opt_out_reply.to_lowercase();
        if ["%", "sale", "offer", "discount", "deal", "http"]
            .iter()
            .any(|w| lower.contains(w))
        {
            return Err(
                "The opt-out confirmation may carry no marketing: no offers, discounts or links."
                    .into(),
            );
        }
        let phrases: Vec<String> = self
            .opt_out_phrases
            .lines()
            .map(|l| l.trim().to_owned())
            .filter(|l| !l.is_empty())
            .collect();
        if phrases.len() > 200 || phrases.iter().any(|p| p.chars().count() > 80) {
            return Err("Keep to 200 opt-out phrases of at most 80 characters each.".into());
        }
        Ok(ComplianceSettings {
            help_text: bounded("HELP answer", &self.help_text)?,
            opt_out_reply,
            ai_disclosure: self.ai_disclosure,
            ai_disclosure_text: bounded("AI disclosure", &self.ai_disclosure_text)?,
            opt_out_phrases: phrases.join("\n"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consent_sources_round_trip_and_only_written_allows_marketing() {
        for c in ConsentSource::ALL {
            assert_eq!(ConsentSource::parse(c.as_str()), Some(c));
        }
        assert_eq!(
            ConsentSource::parse(" Web form "),
            Some(ConsentSource::WebForm)
        );
        assert_eq!(ConsentSource::parse("yes"), None);
        let marketing: Vec<_> = ConsentSource::ALL
            .into_iter()
            .filter(|c| c.allows_marketing())
            .collect();
        assert_eq!(
            marketing,
            vec![ConsentSource::WebForm, ConsentSource::Imported]
        );
    }

    #[test]
    fn compliance_settings_refuse_marketing_in_the_confirmation() {
        let s = ComplianceSettings {
            opt_out_reply: "You're out. 20% off if you come back!".into(),
            ..Default::default()
        };
        assert!(s.cleaned().unwrap_err().contains("no marketing"));
        let s = ComplianceSettings {
            opt_out_phrases: " no gracias \n\n  basta ya ".into(),
            ..Default::default()
        };
        assert_eq!(s.cleaned().unwrap().opt_out_phrases, "no gracias\nbasta ya");
    }

    #[test]
    fn unknown_purposes_get_the_strictest_rules() {
        assert_eq!(Purpose::parse(None), Purpose::Outreach);
        assert_eq!(Purpose::parse(Some("reply")), Purpose::Reply);
        assert_eq!(Purpose::parse(Some("x")), Purpose::Outreach);
    }
}
