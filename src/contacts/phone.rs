//! Phone numbers parsed and normalised to E.164.
use crate::error::AppError;
use crate::phone::PhoneNumber;

/// Parses `raw` (national numbers read in `default_region`) into E.164, or says why not.
pub fn normalize_phone(raw: &str, default_region: &str) -> Result<PhoneNumber, AppError> {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return Err(AppError::validation("Enter a phone number."));
    }
    let region = default_region.parse::<phonenumber::country::Id>().ok();
    let parsed = phonenumber::parse(region, trimmed)
        .map_err(|_| AppError::Validation(format!("\"{trimmed}\" is not a phone number.")))?;
    if !phonenumber::is_valid(&parsed) {
        return Err(AppError::Validation(format!(
            "\"{trimmed}\" is not a valid phone number; include the country code, like +1 415 555 2671."
        )));
    }
    let e164 = parsed.format().mode(phonenumber::Mode::E164).to_string();
    PhoneNumber::new(e164).map_err(|e| AppError::Validation(e.to_string()))
}

pub use crate::contacts::model::can_text;

/// The most characters kept of a sender that is not a phone number.
pub const MAX_SENDER_CHARS: usize = 32;

/// A sender that is not a phone number (a short code, an alphanumeric sender ID), kept as it
/// came so that its text is not lost: trimmed, printable, at most `MAX_SENDER_CHARS`.
pub fn sender_id(raw: &str) -> Result<String, AppError> {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return Err(AppError::validation("The sender is empty."));
    }
    if trimmed.chars().count() > MAX_SENDER_CHARS || trimmed.chars().any(char::is_control) {
        return Err(AppError::validation(
            "The sender is neither a phone number nor a sender ID.",
        ));
    }
    // No carrier gives out such a sender ID; in a spreadsheet it would run as a formula. A `+`
    // before digits only is a number libphonenumber does not know: kept, it runs nothing.
    let digits_after_plus = trimmed
        .strip_prefix('+')
        .is_some_and(|d| d.chars().all(|c| c.is_ascii_digit() || c == ' '));
    if trimmed.starts_with(['=', '+', '-', '@']) && !digits_after_plus {
        return Err(AppError::validation(
            "The sender is neither a phone number nor a sender ID (it starts with = + - or @).",
        ));
    }
    Ok(trimmed.to_owned())
}

/// Either the E.164 form of `raw`, or `raw` kept as a sender ID that cannot be texted back.
pub fn sender(raw: &str, default_region: &str) -> Result<String, AppError> {
    normalize_phone(raw, default_region)
        .map(PhoneNumber::into_string)
        .or_else(|_| sender_id(raw))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_sender_is_kept_and_only_numbers_can_be_texted() {
        assert_eq!(sender("+1 415 555 2671", "US").unwrap(), "+14155552671");
        assert_eq!(sender("+447700900123", "US").unwrap(), "+447700900123");
        assert!(can_text("+14155552671"));
        for id in ["ACME", "12345", "My-Bank", "262966"] {
            let kept = sender(id, "US").unwrap();
            assert_eq!(kept, id);
            assert!(!can_text(&kept), "{id} cannot be texted back");
        }
        assert!(sender("", "US").is_err());
        assert!(sender("a\u{7}bell", "US").is_err());
        assert!(sender(&"x".repeat(33), "US").is_err());
        for formula in ["=cmd|' /C calc'!A0", "+HYPERLINK(1)", "-2+3", "@SUM(A1)"] {
            assert!(sender(formula, "US").is_err(), "{formula}");
        }
        assert!(!can_text("+"));
        assert!(!can_text("+1415abc2671"));
    }

    #[test]
    fn common_formats_become_e164() {
        assert_eq!(
            normalize_phone("(415) 555-2671", "US").unwrap(),
            "+14155552671"
        );
        assert_eq!(
            normalize_phone("+44 20 7946 0958", "US").unwrap(),
            "+442079460958"
        );
        assert_eq!(
            normalize_phone("+1 415-555-2671", "GB").unwrap(),
            "+14155552671"
        );
    }

    #[test]
    fn garbage_is_refused_with_a_message() {
        for bad in ["", "hello", "123", "+1 000 000 0000"] {
            let err = normalize_phone(bad, "US").unwrap_err();
            assert!(matches!(err, AppError::Validation(_)), "{bad}: {err:?}");
        }
    }
}
