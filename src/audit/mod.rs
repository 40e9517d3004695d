//! The organisation's audit log: who invited, removed or changed whom, and other acts of power.
//! Owners read it (`audit_log`); nobody edits it (the database refuses UPDATE and DELETE on its
//! table).
pub mod model;

#[cfg(feature = "server")]
pub mod entity;
#[cfg(feature = "server")]
pub mod service;
