//! API keys as the settings page and the server exchange them.
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Every scope a key may hold, each the right to one part of the public API.
pub const SCOPES: [&str; 7] = [
    "contacts:read",
    "contacts:write",
    "messages:read",
    "messages:send",
    "plans:read",
    "plans:write",
    "webhooks:manage",
];

/// Keys on one page of the settings list.
pub const KEY_PAGE: u64 = 50;

/// The longest key name.
pub const NAME_MAX: usize = 80;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ApiKeyView {
    pub id: Uuid,
    pub name: String,
    pub scopes: Vec<String>,
    /// The key's first characters, to tell keys apart; the rest is never shown again.
    pub prefix: String,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
    /// Requests a second, and how many may come at once.
    pub rate_per_second: u32,
    pub burst: u32,
    /// Reads made with it (its writes are in the audit log).
    #[serde(default)]
    pub reads: u64,
}

/// A new key: `token` is shown this once.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ApiKeyCreated {
    pub key: ApiKeyView,
    pub token: String,
}

/// One page of keys, newest first, with the exact number the organisation has.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ApiKeyPage {
    pub keys: Vec<ApiKeyView>,
    pub total: u64,
    /// Pass as `before` for the next page; None: this is the last.
    pub next: Option<ApiKeyCursor>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ApiKeyCursor {
    pub at: DateTime<Utc>,
    pub id: Uuid,
}
