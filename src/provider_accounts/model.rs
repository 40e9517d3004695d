//! The provider account as the settings page shows it: never its secrets.
use serde::{Deserialize, Serialize};

/// What an owner types to connect the organisation's Twilio account.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TwilioAccountInput {
    /// `AC…`
    pub account_sid: String,
    /// The account's Auth Token: Twilio signs webhooks with it, so it is always needed.
    pub auth_token: String,
    /// Optional: an API key (`SK…`) and its secret for REST calls instead of the Auth Token.
    pub api_key_sid: String,
    pub api_key_secret: String,
}

/// The connected account, as far as it may be shown.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProviderAccountView {
    /// The Account SID with all but its last four characters hidden.
    pub account: String,
    /// "auth token" or "API key SK…1234".
    pub rest_auth: String,
    pub connected_by: String,
    pub updated_at: chrono::DateTime<chrono::Utc>,
}

/// The organisation's provider set-up for the settings page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProviderSettings {
    /// "twilio" or "outbox".
    pub transport: String,
    pub connected: Option<ProviderAccountView>,
    /// Whether this server can store credentials (`HERALD_SECRET_KEY` is set).
    pub can_connect: bool,
}

/// `AC1234…cdef` → `AC…cdef`.
pub fn masked(sid: &str) -> String {
    let tail: String = sid
        .chars()
        .rev()
        .take(4)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    format!("{}…{tail}", sid.chars().take(2).collect::<String>())
}

/// Checks the shape of what was typed, the same way on both sides.
pub fn validate(input: &TwilioAccountInput) -> Result<(), String> {
    let sid = input.account_sid.trim();
    if !(sid.starts_with("AC")
        && sid.len() == 34
        && sid[2..].chars().all(|c| c.is_ascii_hexdigit()))
    {
        return Err(
            "The Account SID starts with AC and has 32 hexadecimal characters after it.".into(),
        );
    }
    if input.auth_token.trim().len() < 16 {
        return Err("Paste the account's Auth Token: Twilio signs its webhooks with it.".into());
    }
    let key = input.api_key_sid.trim();
    if !key.is_empty() {
        if !(key.starts_with("SK") && key.len() == 34) {
            return Err("An API key SID starts with SK and has 34 characters.".into());
        }
        if input.api_key_secret.trim().is_empty() {
            return Err("Paste the API key's secret too.".into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sids_are_masked_and_inputs_checked() {
        assert_eq!(masked("AC0123456789abcdef0123456789abcdef"), "AC…cdef");
        let ok = TwilioAccountInput {
            account_sid: "AC0123456789abcdef0123456789abcdef".into(),
            auth_token: "0123456789abcdef0123456789abcdef".into(),
            ..Default::default()
        };
        assert!(validate(&ok).is_ok());
        assert!(validate(&TwilioAccountInput {
            account_sid: "ACnope".into(),
            ..ok.clone()
        })
        .is_err());
        assert!(validate(&TwilioAccountInput {
            auth_token: "short".into(),
            ..ok.clone()
        })
        .is_err());
        assert!(validate(&TwilioAccountInput {
            api_key_sid: "SK0123456789abcdef0123456789abcdef".into(),
            ..ok.clone()
        })
        .unwrap_err()
        .contains("secret"));
    }
}
