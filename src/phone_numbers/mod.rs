//! The organisation's own numbers, which contacts text and replies leave from.
pub mod api;
pub mod model;

#[cfg(feature = "server")]
pub mod cache;
#[cfg(feature = "server")]
pub mod entity;
#[cfg(feature = "server")]
pub mod registration;
#[cfg(feature = "server")]
pub mod service;
