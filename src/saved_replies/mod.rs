//! Saved replies: an organisation's named texts with merge fields, inserted from the composer
//! (typing `/`) and filled in for the contact by the server.
pub mod api;
pub mod model;

#[cfg(feature = "server")]
pub mod entity;
#[cfg(feature = "server")]
pub mod service;
