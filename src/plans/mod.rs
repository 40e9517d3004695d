//! Agent plans: research read-only, present a typed plan, let a policy decide, then execute.
pub mod api;
pub mod approval;
pub mod audience;
pub mod edit;
pub mod model;
pub mod steps;

#[cfg(feature = "server")]
pub mod access;
#[cfg(feature = "server")]
pub mod announce;
#[cfg(feature = "server")]
pub mod decisions;
#[cfg(feature = "server")]
pub mod entity;
#[cfg(feature = "server")]
pub mod executor;
#[cfg(feature = "server")]
pub mod from_number;
#[cfg(feature = "server")]
pub mod learning;
#[cfg(feature = "server")]
pub mod replan;
#[cfg(feature = "server")]
pub mod service;
#[cfg(feature = "server")]
pub mod view;
