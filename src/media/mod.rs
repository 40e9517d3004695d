//! Pictures and files texted in (issue 28 §3): a copy of each, kept by Herald and shown to the
//! organisation's members only, with thumbnails.
pub mod model;

#[cfg(feature = "server")]
pub mod copier;
#[cfg(feature = "server")]
pub mod decode;
#[cfg(feature = "server")]
pub mod entity;
#[cfg(feature = "server")]
pub mod serve;
#[cfg(feature = "server")]
pub mod store;
#[cfg(feature = "server")]
pub mod upload;
