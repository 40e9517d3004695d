//! A phone number where one is meant: E.164 (`+14155552671`) or a short code (`12345`), checked
//! when it is made, so that what takes one never has to check again. Reading what a person
//! typed (national formats, a default region) is `contacts::phone::normalize_phone`, which
//! answers one; a sender that is neither (an alphanumeric sender ID) is not a `PhoneNumber`.
use serde::{Deserialize, Serialize};
use std::fmt;

/// E.164 or a short code. On the server it is a column's type too (a text column): a number
/// read back is one Herald wrote, checked when it was made.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(sea_orm::DeriveValueType))]
#[serde(try_from = "String", into = "String")]
pub struct PhoneNumber(String);

/// Text that is neither an E.164 number nor a short code.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is neither a phone number in E.164 form (+14155552671) nor a short code")]
pub struct NotANumber(pub String);

impl PhoneNumber {
    /// `text` as it is, when it is E.164 (a `+` and 3 to 15 digits) or a short code (3 to 8
    /// digits).
    pub fn new(text: impl Into<String>) -> Result<Self, NotANumber> {
        let text = text.into();
        let digits = |d: &str, n: std::ops::RangeInclusive<usize>| {
            n.contains(&d.len()) && d.bytes().all(|b| b.is_ascii_digit())
        };
        let ok = match text.strip_prefix('+') {
            Some(d) => digits(d, 3..=15),
            None => digits(&text, 3..=8),
        };
        if ok {
            Ok(Self(text))
        } else {
            Err(NotANumber(text))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }

    /// A short code: it sends, but a person's text cannot go to it.
    pub fn is_short_code(&self) -> bool {
        !self.0.starts_with('+')
    }
}

impl fmt::Display for PhoneNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Read as the text it is (never written through: a `PhoneNumber` stays a number).
impl std::ops::Deref for PhoneNumber {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for PhoneNumber {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for PhoneNumber {
    type Error = NotANumber;
    fn try_from(text: String) -> Result<Self, NotANumber> {
        Self::new(text)
    }
}

impl From<PhoneNumber> for String {
    fn from(n: PhoneNumber) -> String {
        n.0
    }
}

impl PartialEq<str> for PhoneNumber {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<String> for PhoneNumber {
    fn eq(&self, other: &String) -> bool {
        &self.0 == other
    }
}

impl PartialEq<&str> for PhoneNumber {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn e164_and_short_codes_are_numbers_and_nothing_else_is() {
        for ok in [
            "+14155552671",
            "+447911123456",
            "+123",
            "12345",
            "123",
            "12345678",
        ] {
            assert!(PhoneNumber::new(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "+",
            "+12",
            "+1234567890123456",
            "14155552671x",
            "12",
            "123456789",
            "ACME",
            "+1 415 555 2671",
            " +14155552671",
            "=1+1",
        ] {
            assert_eq!(PhoneNumber::new(bad), Err(NotANumber(bad.into())), "{bad}");
        }
        assert!(PhoneNumber::new("12345").unwrap().is_short_code());
        assert!(!PhoneNumber::new("+14155552671").unwrap().is_short_code());
    }

    #[test]
    fn it_travels_as_its_string_and_is_checked_on_the_way_in() {
        let n = PhoneNumber::new("+14155552671").unwrap();
        assert_eq!(serde_json::to_string(&n).unwrap(), "\"+14155552671\"");
        let back: PhoneNumber = serde_json::from_str("\"+14155552671\"").unwrap();
        assert_eq!(back, n);
        assert!(serde_json::from_str::<PhoneNumber>("\"call me\"").is_err());
        assert_eq!(n, "+14155552671");
        assert_eq!(n.to_string(), "+14155552671");
    }
}
