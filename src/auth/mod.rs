//! Who acts: users, sign-in, sessions, passwords and memberships. (How people join and leave an
//! organisation is `team`.)
pub mod account_api;
pub mod api;
pub mod model;

#[cfg(feature = "server")]
pub mod account;
#[cfg(feature = "server")]
pub mod email_account;
#[cfg(feature = "server")]
pub mod entity;
#[cfg(feature = "server")]
pub mod owners;
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
