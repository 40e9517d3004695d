//! The organisation settings form, shared by the settings page and the server.
use serde::{Deserialize, Serialize};

/// The organisation's name, at most this many characters.
pub const MAX_NAME_CHARS: usize = 120;
/// The organisation's rules, at most this many characters: they ride in every agent's prompt.
pub const MAX_RULES_CHARS: usize = 4000;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OrgSettings {
    pub name: String,
    /// An IANA zone such as "America/Los_Angeles".
    pub time_zone: String,
    /// Instructions every agent of the organisation follows; empty for none.
    pub rules: String,
    /// After a person texts a contact by hand, autonomous agents stay silent in that
    /// conversation for this many hours (the handoff).
    #[serde(default = "ai_pause_hours_default")]
    pub ai_pause_hours: u32,
    /// Domains a member's saved reply may turn into Herald short links, one per line (an
    /// owner's replies shorten any link).
    #[serde(default)]
    pub link_domains: String,
}

/// A day: what peers pause their AI for after a person replies.
pub const AI_PAUSE_HOURS_DEFAULT: u32 = 24;
// The same day as a new organisation's row is written with.
#[cfg(feature = "server")]
const _: () = assert!(
    AI_PAUSE_HOURS_DEFAULT as i32 * 60
        == crate::auth::entity::organization::AI_PAUSE_MINUTES_DEFAULT
);
/// A month at most.
pub const AI_PAUSE_HOURS_MAX: u32 = 720;

fn ai_pause_hours_default() -> u32 {
    AI_PAUSE_HOURS_DEFAULT
}

impl OrgSettings {
    /// The settings as they are stored: trimmed, or the reason they cannot be.
    pub fn cleaned(&self) -> Result<OrgSettings, String> {
        let name = self.name.trim();
        if name.is_empty() {
            return Err("The organisation needs a name.".into());
        }
        if name.chars().count() > MAX_NAME_CHARS {
            return Err(format!(
                "The name is longer than {MAX_NAME_CHARS} characters."
            ));
        }
        let rules = self.rules.trim();
        if rules.chars().count() > MAX_RULES_CHARS {
            return Err(format!(
                "The rules are longer than {MAX_RULES_CHARS} characters; every agent reads them on every turn."
            ));
        }
        if !(1..=AI_PAUSE_HOURS_MAX).contains(&self.ai_pause_hours) {
            return Err(format!(
                "The AI pause after a person's text lasts 1 to {AI_PAUSE_HOURS_MAX} hours."
            ));
        }
        let mut domains = Vec::new();
        for d in self.link_domains.split(['\n', ',']).map(str::trim) {
            let d = d.trim_start_matches("*.").to_ascii_lowercase();
            if d.is_empty() {
                continue;
            }
            let plain = d.contains('.')
                && d.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-');
            if !plain {
                return Err(format!(
                    "\"{d}\" is not a domain; write one per line, such as example.com."
                ));
            }
            domains.push(d);
        }
        if domains.len() > 50 {
            return Err("List at most 50 link domains.".into());
        }
        Ok(OrgSettings {
            name: name.to_owned(),
            time_zone: self.time_zone.trim().to_owned(),
            rules: rules.to_owned(),
            ai_pause_hours: self.ai_pause_hours,
            link_domains: domains.join("\n"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleaning_trims_and_bounds() {
        let s = OrgSettings {
            name: "  Acme  ".into(),
            time_zone: " UTC ".into(),
            rules: "\n Never quote prices. \n".into(),
            ai_pause_hours: 24,
            link_domains: " *.Shop.example\n\nbook.example ".into(),
        };
        let c = s.cleaned().unwrap();
        assert_eq!(c.link_domains, "shop.example\nbook.example");
        assert!(OrgSettings {
            link_domains: "https://x.example/".into(),
            ..s.clone()
        }
        .cleaned()
        .unwrap_err()
        .contains("is not a domain"));
        assert_eq!(
            (c.name.as_str(), c.time_zone.as_str(), c.rules.as_str()),
            ("Acme", "UTC", "Never quote prices.")
        );
        assert!(OrgSettings {
            name: " ".into(),
            ..s.clone()
        }
        .cleaned()
        .is_err());
        let long = OrgSettings {
            rules: "é".repeat(MAX_RULES_CHARS + 1),
            ..s.clone()
        };
        assert!(long.cleaned().unwrap_err().contains("4000"));
        let at_limit = OrgSettings {
            rules: "é".repeat(MAX_RULES_CHARS),
            ..s
        };
        assert!(at_limit.cleaned().is_ok(), "characters, not bytes");
        for hours in [0, AI_PAUSE_HOURS_MAX + 1] {
            let bad = OrgSettings {
                ai_pause_hours: hours,
                ..c.clone()
            };
            assert!(bad.cleaned().unwrap_err().contains("1 to 720 hours"));
        }
    }
}
