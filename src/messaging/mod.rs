//! Messaging: texts and their conversations, the Twilio webhooks and live updates. The team's
//! work on conversations (the inbox's views, assignment, notes) stands above it, in `inbox`; the
//! SMS transports are the base's (`platform::sms`).
pub mod api;
pub mod conversation_state;
pub mod merge;
pub mod model;

#[cfg(feature = "server")]
pub mod conversation;
#[cfg(feature = "server")]
pub mod entity;
#[cfg(feature = "server")]
pub mod inbound;
#[cfg(feature = "server")]
pub mod inbound_writer;
#[cfg(feature = "server")]
pub mod ledger;
#[cfg(feature = "server")]
pub mod live_updates;
#[cfg(feature = "server")]
pub mod outbound;
#[cfg(feature = "server")]
pub mod quiet;
#[cfg(feature = "server")]
pub mod reading;
#[cfg(feature = "server")]
pub mod scheduled;
#[cfg(feature = "server")]
pub mod search;
#[cfg(feature = "server")]
pub mod send_later;
#[cfg(feature = "server")]
pub mod service;
#[cfg(feature = "server")]
pub mod signature;
#[cfg(feature = "server")]
pub mod status;
#[cfg(feature = "server")]
pub mod timeline;
#[cfg(feature = "server")]
pub mod timeline_page;
#[cfg(feature = "server")]
pub mod webhook;
#[cfg(feature = "server")]
pub mod webhook_form;
