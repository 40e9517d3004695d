//! Messaging: the inbox, conversations, the SMS transports, the Twilio webhooks and live updates.
pub mod api;
pub mod keywords;
pub mod model;

#[cfg(feature = "server")]
pub mod entity;
#[cfg(feature = "server")]
pub mod inbound;
#[cfg(feature = "server")]
pub mod ledger;
#[cfg(feature = "server")]
pub mod live;
#[cfg(feature = "server")]
pub mod outbound;
#[cfg(feature = "server")]
pub mod quiet;
#[cfg(feature = "server")]
pub mod service;
#[cfg(feature = "server")]
pub mod signature;
#[cfg(feature = "server")]
pub mod status;
#[cfg(feature = "server")]
pub mod transport;
#[cfg(feature = "server")]
pub mod webhook;
