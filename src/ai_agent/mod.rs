//! AI agents: Text Reply agents with long-lived per-contact threads, the model seam, the tools,
//! the legacy suggester, suggestions and notifications.
pub mod api;
pub mod model;

#[cfg(feature = "server")]
pub mod assistant;
#[cfg(feature = "server")]
pub mod entity;
#[cfg(feature = "server")]
pub mod events;
#[cfg(feature = "server")]
pub mod history;
#[cfg(feature = "server")]
pub mod lease;
#[cfg(feature = "server")]
pub mod legacy;
#[cfg(feature = "server")]
pub mod llm;
#[cfg(feature = "server")]
pub mod prompt;
#[cfg(feature = "server")]
pub mod routing;
#[cfg(feature = "server")]
pub mod runtime;
#[cfg(feature = "server")]
pub mod service;
#[cfg(feature = "server")]
pub mod settings;
#[cfg(feature = "server")]
pub mod suggestions;
#[cfg(feature = "server")]
pub mod thread;
#[cfg(feature = "server")]
pub mod tools;
#[cfg(feature = "server")]
pub mod worker;
