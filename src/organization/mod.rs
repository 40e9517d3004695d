//! The organisation's own settings: its name, its time zone and the rules every agent's prompt
//! reads as the organisation-rules tier. Anyone in the organisation reads them; only the owner
//! changes them.
pub mod api;
pub mod model;

#[cfg(feature = "server")]
pub mod service;
