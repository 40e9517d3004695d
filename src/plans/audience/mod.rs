//! Plan audiences: segments and filters the server resolves, snapshotted per resolution in
//! `plan_audience`, compared at approval, counted and paged for the card.
pub mod api;
pub mod model;

#[cfg(feature = "server")]
pub mod lifecycle;
#[cfg(feature = "server")]
pub mod resolve;
