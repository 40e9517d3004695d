//! Phone numbers parsed and normalised to E.164.
use crate::error::AppError;

/// Parses `raw` (national numbers read in `default_region`) into E.164, or says why not.
pub fn normalize_phone(raw: &str, default_region: &str) -> Result<String, AppError> {
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
    Ok(parsed.format().mode(phonenumber::Mode::E164).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

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
