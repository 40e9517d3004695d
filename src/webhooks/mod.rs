//! Outbound webhooks (issue 31 §3): an owner subscribes URLs to Herald's events; each event is
//! written to an outbox in its own transaction (`emit`), then delivered durably (`deliver`):
//! signed by the Standard Webhooks scheme, in order per subscription, retried with backoff and
//! jitter for a day, then dead-lettered, by whichever instance claims it. Private addresses are
//! refused unless `WEBHOOK_ALLOW_PRIVATE` (`guard`).
pub mod deliver;
pub mod emit;
pub mod entity;
pub mod guard;
pub mod service;
pub mod sign;

use std::time::Duration;

/// The events a subscription may take.
pub const EVENTS: [&str; 8] = [
    "message.received",
    "message.status",
    "contact.created",
    "contact.opted_out",
    "conversation.assigned",
    "plan.awaiting_approval",
    "plan.finished",
    "campaign.finished",
];

/// The event a "send a test event" delivers.
pub const TEST_EVENT: &str = "webhook.test";

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
