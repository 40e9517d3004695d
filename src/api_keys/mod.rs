//! API keys (issue 31 §1): an owner's named keys with scopes, shown once and stored hashed, that
//! let other systems call the public API (`/v1`, served by `public_api`) as the organisation.
pub mod api;
pub mod model;

#[cfg(feature = "server")]
pub mod entity;
#[cfg(feature = "server")]
pub mod mine;
#[cfg(feature = "server")]
pub mod service;
