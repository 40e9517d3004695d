//! The team inbox: a conversation's state (open, closed, snoozed until a time), its assignee, the
//! views that filter by them with their counts, the waker that reopens due snoozes, and the
//! AI↔human handoff; round-robin auto-assignment per number; and internal notes with mentions.
pub mod api;
pub mod model;

#[cfg(feature = "server")]
pub mod auto_assign;
#[cfg(feature = "server")]
pub mod handoff;
#[cfg(feature = "server")]
pub mod list;
#[cfg(feature = "server")]
pub mod notes;
#[cfg(feature = "server")]
pub mod page;
#[cfg(feature = "server")]
pub mod service;
#[cfg(feature = "server")]
pub mod views;
