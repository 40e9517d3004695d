//! What waits for a person: unread conversations, plans awaiting approval and unread
//! notifications, counted for the navigation. A leaf domain: it reads messaging, plans and
//! notifications, and nothing below it depends on it.
pub mod api;
pub mod model;

#[cfg(feature = "server")]
pub mod service;
