//! Notifications: what agents, plans and campaigns tell a member, each with a deep link.
//! A domain of its own, so that plans and campaigns notify without depending on agents.
pub mod api;
pub mod model;

#[cfg(feature = "server")]
pub mod entity;
#[cfg(feature = "server")]
pub mod security;
#[cfg(feature = "server")]
pub mod service;
