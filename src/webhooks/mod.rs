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

pub use crate::platform::webhook_config::WebhookSettings;
