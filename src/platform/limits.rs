//! Limits per organisation (issue 49 §6), so that one organisation on a shared Herald cannot use
//! up what every other needs: its API calls across all its keys, how many keys it holds, and what
//! it may keep (pictures uploaded and not yet sent, saved replies, open invitations). Each is a
//! setting with a default; past one, the refusal says which limit and what to do.
use crate::platform::config::Problems;

#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    /// API requests a second across all of an organisation's keys (`API_ORG_RATE_PER_SECOND`).
    pub api_rate_per_second: u32,
    /// … with bursts of this many (`API_ORG_BURST`).
    pub api_burst: u32,
    /// Keys an organisation may hold, not counting revoked ones (`API_KEYS_PER_ORG`).
    pub api_keys: u64,
    /// Saved replies (`SAVED_REPLIES_PER_ORG`).
    pub saved_replies: u64,
    /// Invitations not yet accepted, revoked or expired (`OPEN_INVITATIONS_PER_ORG`).
    pub open_invitations: u64,
    /// Bytes of pictures uploaded and not yet sent (`UPLOAD_MB_PER_ORG`, in megabytes).
    pub upload_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            api_rate_per_second: 50,
            api_burst: 200,
            api_keys: 20,
            saved_replies: 500,
            open_invitations: 50,
            upload_bytes: 200 * 1024 * 1024,
        }
    }
}

/// Reads the limits from the environment.
pub(crate) fn read(p: &mut Problems) -> Limits {
    let d = Limits::default();
    Limits {
        api_rate_per_second: p.number("API_ORG_RATE_PER_SECOND", d.api_rate_per_second, 1..=10_000),
        api_burst: p.number("API_ORG_BURST", d.api_burst, 1..=100_000),
        api_keys: p.number("API_KEYS_PER_ORG", d.api_keys, 1..=1000),
        saved_replies: p.number("SAVED_REPLIES_PER_ORG", d.saved_replies, 1..=100_000),
        open_invitations: p.number("OPEN_INVITATIONS_PER_ORG", d.open_invitations, 1..=10_000),
        upload_bytes: p.number("UPLOAD_MB_PER_ORG", d.upload_bytes >> 20, 1..=100_000) << 20,
    }
}
