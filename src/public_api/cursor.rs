//! Opaque page cursors: the next page's start, as base64url JSON that the caller hands back.
use crate::public_api::problem::{ApiResult, Problem};
use base64::Engine;
use serde::{de::DeserializeOwned, Serialize};

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;

pub fn encode<T: Serialize>(c: &T) -> String {
    B64.encode(serde_json::to_vec(c).unwrap_or_default())
}

pub fn decode<T: DeserializeOwned>(s: Option<&str>) -> ApiResult<Option<T>> {
    let Some(s) = s.filter(|s| !s.is_empty()) else {
        return Ok(None);
    };
    B64.decode(s)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .map(Some)
        .ok_or_else(|| Problem::bad_request("That cursor is not one this API gave out."))
}

/// A page size: 1 to 200, 50 unless asked.
pub fn limit(asked: Option<u64>) -> ApiResult<u64> {
    match asked {
        None => Ok(50),
        Some(n) if (1..=200).contains(&n) => Ok(n),
        Some(_) => Err(Problem::bad_request("limit is 1 to 200.")),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_cursor_reads_back_and_a_forged_one_is_refused() {
        let c = super::encode(&("Ann".to_string(), 7));
        let back: Option<(String, i32)> = super::decode(Some(&c)).unwrap();
        assert_eq!(back, Some(("Ann".into(), 7)));
        assert!(super::decode::<(String, i32)>(Some("not a cursor")).is_err());
        assert!(super::limit(Some(0)).is_err());
        assert_eq!(super::limit(None).unwrap(), 50);
    }
}
