//! How webhook deliveries are made (`WEBHOOK_ALLOW_PRIVATE`, `WEBHOOK_TIMEOUT_SECS`), read with
//! the rest of the configuration; the deliveries themselves are `webhooks::deliver`'s.
use std::time::Duration;

/// How deliveries are made.
#[derive(Clone, Debug)]
pub struct WebhookSettings {
    /// `WEBHOOK_ALLOW_PRIVATE`: deliver to loopback, link-local and private addresses too (tests
    /// and intranets). Off by default.
    pub allow_private: bool,
    /// The first retry's delay; each next one doubles it (with jitter), up to an hour.
    pub retry_base: Duration,
    /// How long a delivery is retried before it is dead-lettered.
    pub give_up_after: Duration,
    /// How often the outbox is looked at.
    pub poll_every: Duration,
    /// One attempt's limit (`WEBHOOK_TIMEOUT_SECS`, 1 to 60, default 10). A claim lasts twice
    /// this, so an instance that died mid-attempt holds its subscription no longer.
    pub timeout: Duration,
}

impl Default for WebhookSettings {
    fn default() -> Self {
        Self {
            allow_private: false,
            retry_base: Duration::from_secs(5),
            give_up_after: Duration::from_secs(24 * 3600),
            poll_every: Duration::from_secs(1),
            timeout: Duration::from_secs(10),
        }
    }
}

impl WebhookSettings {
    pub fn from_env() -> Self {
        let on = |v: Option<String>| {
            v.is_some_and(|v| matches!(v.trim().to_lowercase().as_str(), "1" | "true" | "yes"))
        };
        let d = Self::default();
        Self {
            allow_private: on(crate::platform::config::var("WEBHOOK_ALLOW_PRIVATE")),
            timeout: crate::platform::config::var("WEBHOOK_TIMEOUT_SECS")
                .and_then(|v| v.parse().ok())
                .filter(|s: &u64| (1..=60).contains(s))
                .map(Duration::from_secs)
                .unwrap_or(d.timeout),
            ..d
        }
    }
}
