//! Each organisation's own provider account (Twilio): connected by an owner, sealed at rest with
//! the server's key, never shown back. Its numbers must be on that account, its texts go out with
//! its credentials, and its webhooks are verified with its token. Without one, the environment's
//! Twilio settings serve (a single-organisation install).
pub mod api;
pub mod model;

#[cfg(feature = "server")]
pub mod crypto;
#[cfg(feature = "server")]
pub mod entity;
#[cfg(feature = "server")]
pub mod service;
