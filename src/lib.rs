//! Herald: an AI-agent SMS CRM. One crate serves the web app, the desktop build and the server.
// First, so that every domain's api.rs can use `server_fn!`.
#[macro_use]
pub mod rpc;
pub mod ai_agent;
pub mod api_keys;
pub mod attention;
pub mod audit;
pub mod audit_log;
pub mod auth;
pub mod campaign;
pub mod compliance;
pub mod contacts;
pub mod error;
pub mod format;
pub mod inbox;
pub mod knowledge;
pub mod links;
pub mod live_event;
pub mod media;
pub mod messaging;
pub mod notifications;
pub mod organization;
pub mod phone;
pub mod phone_numbers;
pub mod plans;
pub mod provider_accounts;
pub mod records;
pub mod saved_replies;
pub mod sender_profiles;
pub mod steps;
pub mod team;
pub mod text_enum;
#[cfg(feature = "server")]
pub mod tools;
pub mod ui;

#[cfg(feature = "server")]
pub mod developers;
#[cfg(all(feature = "server", any(test, feature = "fuzz")))]
pub mod fuzzing;
#[cfg(feature = "server")]
pub mod ops;
#[cfg(feature = "server")]
pub mod platform;
#[cfg(feature = "server")]
pub mod public_api;
#[cfg(feature = "server")]
pub mod reports;
#[cfg(feature = "server")]
pub mod server;
#[cfg(feature = "server")]
pub mod server_page;
#[cfg(feature = "server")]
pub mod webhooks;
