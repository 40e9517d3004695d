//! A Twilio webhook's form, read once. Twilio never repeats a key, so a form that does is refused:
//! with two `To`s, one could be used to choose the verifying token and the other to route the
//! text (issue 49 §1). The number a request is about ("our" number: `To` of a text, `From` of a
//! status callback) is normalised here, once, and both the token and the routing read that value.
use crate::contacts::phone::normalize_phone;
use crate::messaging::inbound::WebhookError;
use std::collections::HashSet;

/// The form's pairs, in the order they came (the signature sorts them itself), each key once.
#[derive(Clone, Debug, PartialEq)]
pub struct WebhookForm {
    pairs: Vec<(String, String)>,
}

impl WebhookForm {
    /// Parses a urlencoded body; a repeated key, or bytes that are not a form, are refused.
    pub fn parse(bytes: &[u8]) -> Result<Self, WebhookError> {
        let pairs: Vec<(String, String)> = serde_urlencoded::from_bytes(bytes)
            .map_err(|e| WebhookError::BadRequest(format!("not a form body: {e}")))?;
        Self::from_pairs(pairs)
    }

    /// A form from pairs already decoded (the simulator's); a repeated key is refused.
    pub fn from_pairs(pairs: Vec<(String, String)>) -> Result<Self, WebhookError> {
        let mut seen = HashSet::with_capacity(pairs.len());
        for (k, _) in &pairs {
            if !seen.insert(k.as_str()) {
                return Err(WebhookError::BadRequest(format!(
                    "the parameter {} is repeated; Twilio sends each once",
                    printable(k)
                )));
            }
        }
        Ok(Self { pairs })
    }

    /// Every pair, for the signature.
    pub fn pairs(&self) -> &[(String, String)] {
        &self.pairs
    }

    /// The value of `key`, if the form has it.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The value of `key`, trimmed, when it is not blank.
    pub fn non_blank(&self, key: &str) -> Option<&str> {
        self.get(key).map(str::trim).filter(|v| !v.is_empty())
    }

    /// The number `key` names, in E.164 (or a short code) as numbers are stored; None when the
    /// form lacks it or it is not a phone number. The token and the routing both read this.
    pub fn number(&self, key: &str, region: &str) -> Option<String> {
        self.non_blank(key)
            .and_then(|n| normalize_phone(n, region).ok())
            .map(String::from)
    }
}

/// A key as it may be quoted in an error: short, and without control characters.
fn printable(key: &str) -> String {
    let shown: String = key.chars().filter(|c| !c.is_control()).take(40).collect();
    format!("{shown:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_key_is_refused_with_its_name() {
        let err = WebhookForm::parse(b"To=%2B14155550100&Body=hi&To=%2B14155550199").unwrap_err();
        assert_eq!(
            err,
            WebhookError::BadRequest(
                "the parameter \"To\" is repeated; Twilio sends each once".into()
            )
        );
    }

    #[test]
    fn our_number_is_normalised_once() {
        let form = WebhookForm::parse(b"To=(415)%20555-0100&From=%2B14155550111").unwrap();
        assert_eq!(form.number("To", "US").as_deref(), Some("+14155550100"));
        assert_eq!(form.number("Missing", "US"), None);
        assert_eq!(form.get("From"), Some("+14155550111"));
    }

    #[test]
    fn order_does_not_matter_to_the_values() {
        let a = WebhookForm::parse(b"A=1&B=2").unwrap();
        let b = WebhookForm::parse(b"B=2&A=1").unwrap();
        assert_eq!(a.get("A"), b.get("A"));
        assert_eq!(a.get("B"), b.get("B"));
    }
}
