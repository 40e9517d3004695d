//! Page cursors. A cursor is a keyset position (where the next page starts), written so that the
//! document can say exactly which strings are cursors: each kind has a `pattern`, and every
//! string that matches it reads back as a position (any position is a valid place to start a
//! page from, so a matching cursor is never refused), while one that does not is a 400. An empty
//! or unreadable cursor is refused, never read as "from the start".
//!
//! - contacts (name order): `<id>.<the name, base64url without padding>`;
//! - conversations (latest first) and plans (newest first): `<nanoseconds since 1970>.<id>`;
//! - a conversation's messages (older pages): the message's sequence number.
use crate::public_api::extract::strict_uuid;
use crate::public_api::problem::{ApiResult, Problem};
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine;
use chrono::{DateTime, Utc};
use uuid::Uuid;

macro_rules! uuid_re {
    () => {
        "[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}"
    };
}
macro_rules! i64_re {
    () => {
        "(?:[0-9]{1,18}|[0-8][0-9]{18})"
    };
}

/// A contacts cursor: an id, a dot, and a name as unpadded base64url (any bytes; read as UTF-8,
/// anything else in it as U+FFFD).
pub const CONTACT_PATTERN: &str = concat!(
    "^",
    uuid_re!(),
    r"\.(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2,3})?$"
);
/// A conversations or plans cursor: a time as nanoseconds since 1970 (1677 to 2262), a dot, an id.
pub const AT_PATTERN: &str = concat!("^-?", i64_re!(), r"\.", uuid_re!(), "$");
/// A messages cursor: a message's sequence number.
pub const SEQ_PATTERN: &str = concat!("^", i64_re!(), "$");

/// Unpadded base64url that also takes the last character's unused bits as they come, so that
/// every string of the alphabet with a possible length decodes.
const B64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::URL_SAFE,
    GeneralPurposeConfig::new()
        .with_encode_padding(false)
        .with_decode_padding_mode(DecodePaddingMode::RequireNone)
        .with_decode_allow_trailing_bits(true),
);

fn refused() -> Problem {
    Problem::bad_parameter(
        "cursor",
        "That is not a cursor: pass a page's next_cursor as it came.",
    )
}

/// The cursor given, if any: an empty one is refused, not read as the first page.
fn given(s: Option<&str>) -> ApiResult<Option<&str>> {
    match s {
        Some("") => Err(refused()),
        other => Ok(other),
    }
}

pub fn contact(name: &str, id: Uuid) -> String {
    format!("{id}.{}", B64.encode(name.as_bytes()))
}

pub fn read_contact(s: Option<&str>) -> ApiResult<Option<(String, Uuid)>> {
    let Some(s) = given(s)? else {
        return Ok(None);
    };
    let (id, name) = s.split_once('.').ok_or_else(refused)?;
    let id = strict_uuid(id).ok_or_else(refused)?;
    let base64 = name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !base64 || name.len() % 4 == 1 {
        return Err(refused());
    }
    let bytes = B64.decode(name).map_err(|_| refused())?;
    // Neither database holds U+0000 in a name, and PostgreSQL cannot compare with one.
    let name = String::from_utf8_lossy(&bytes).replace('\0', "\u{fffd}");
    Ok(Some((name, id)))
}

/// The furthest a time cursor reaches either side of 1970, in nanoseconds (about 285 years).
const AT_EDGE: i64 = 8_999_999_999_999_999_999;

pub fn at(t: DateTime<Utc>, id: Uuid) -> String {
    let nanos = t
        .timestamp_nanos_opt()
        .unwrap_or(if t.timestamp() < 0 { -AT_EDGE } else { AT_EDGE })
        .clamp(-AT_EDGE, AT_EDGE);
    format!("{nanos}.{id}")
}

pub fn read_at(s: Option<&str>) -> ApiResult<Option<(DateTime<Utc>, Uuid)>> {
    let Some(s) = given(s)? else {
        return Ok(None);
    };
    let (nanos, id) = s.split_once('.').ok_or_else(refused)?;
    let nanos = read_i64(nanos.strip_prefix('-').unwrap_or(nanos))
        .map(|n| if nanos.starts_with('-') { -n } else { n })
        .ok_or_else(refused)?;
    let id = strict_uuid(id).ok_or_else(refused)?;
    Ok(Some((DateTime::from_timestamp_nanos(nanos), id)))
}

pub fn seq(n: i64) -> String {
    n.to_string()
}

pub fn read_seq(s: Option<&str>) -> ApiResult<Option<i64>> {
    let Some(s) = given(s)? else {
        return Ok(None);
    };
    read_i64(s).map(Some).ok_or_else(refused)
}

/// `i64_re!()`: 1 to 18 digits, or 19 beginning 0 to 8 (so that it fits an i64).
fn read_i64(s: &str) -> Option<i64> {
    let fits = match s.len() {
        1..=18 => true,
        19 => s.as_bytes()[0] <= b'8',
        _ => false,
    };
    if !fits || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// A page size: 1 to 200, 50 unless asked.
pub fn limit(asked: Option<u64>) -> ApiResult<u64> {
    match asked {
        None => Ok(50),
        Some(n) if (1..=200).contains(&n) => Ok(n),
        Some(_) => Err(Problem::bad_parameter("limit", "limit is 1 to 200.")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_read_back_and_anything_else_is_refused() {
        let id = Uuid::new_v4();
        let c = contact("Ann Ó'Brien", id);
        assert_eq!(
            read_contact(Some(&c)).unwrap(),
            Some(("Ann Ó'Brien".to_string(), id))
        );
        let t = DateTime::from_timestamp_nanos(1_780_000_000_123_456_789);
        assert_eq!(read_at(Some(&at(t, id))).unwrap(), Some((t, id)));
        let before = DateTime::from_timestamp_nanos(-5);
        assert_eq!(read_at(Some(&at(before, id))).unwrap(), Some((before, id)));
        assert_eq!(read_seq(Some(&seq(42))).unwrap(), Some(42));
        for bad in ["", "not a cursor", "forged", "12.x", "9999999999999999999"] {
            assert!(read_contact(Some(bad)).is_err(), "{bad}");
            assert!(read_at(Some(bad)).is_err(), "{bad}");
            assert!(read_seq(Some(bad)).is_err(), "{bad}");
        }
        assert!(
            read_contact(Some(&format!("{id}.A"))).is_err(),
            "a length base64 cannot have"
        );
        assert_eq!(read_seq(None).unwrap(), None);
        assert!(limit(Some(0)).is_err());
        assert_eq!(limit(None).unwrap(), 50);
    }

    #[test]
    fn every_string_of_the_pattern_is_a_position() {
        // The edges of each pattern: odd base64 tails, bytes that are not UTF-8, a NUL, the
        // largest and smallest times.
        let id = "0190A1B2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
        for name in ["", "AA", "AAA", "__8", "-_-_", "AAAAAA", "gICA", "AA8"] {
            let (n, _) = read_contact(Some(&format!("{id}.{name}")))
                .unwrap()
                .unwrap();
            assert!(!n.contains('\0'), "{name}");
        }
        for at in [
            "0",
            "-0",
            "8999999999999999999",
            "-8999999999999999999",
            "007",
        ] {
            assert!(
                read_at(Some(&format!("{at}.{id}"))).unwrap().is_some(),
                "{at}"
            );
        }
        assert_eq!(
            read_seq(Some("8999999999999999999")).unwrap(),
            Some(8_999_999_999_999_999_999)
        );
    }
}
