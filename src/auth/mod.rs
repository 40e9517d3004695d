//! Sign-up, sign-in, sessions, organisations and members.
pub mod api;
pub mod model;

#[cfg(feature = "server")]
pub mod entity;
#[cfg(feature = "server")]
pub mod password;
#[cfg(feature = "server")]
pub mod rate_limit;
#[cfg(feature = "server")]
pub mod service;
#[cfg(feature = "server")]
pub mod session;
