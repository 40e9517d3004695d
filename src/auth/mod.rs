//! Sign-up, sign-in, sessions, organisations and members.
pub mod api;
pub mod model;
pub mod team_api;

#[cfg(feature = "server")]
pub mod account;
#[cfg(feature = "server")]
pub mod entity;
#[cfg(feature = "server")]
pub mod invitations;
#[cfg(feature = "server")]
pub mod members;
#[cfg(feature = "server")]
pub mod password;
#[cfg(feature = "server")]
pub mod rate_limit;
#[cfg(feature = "server")]
pub mod service;
#[cfg(feature = "server")]
pub mod session;
#[cfg(feature = "server")]
pub mod tokens;
