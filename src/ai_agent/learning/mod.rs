//! The learning loop (seed 000, P7): both approval gates produce signals (audience edits,
//! concept rewrites, approvals, rejections, draft edits); a "Review lessons" job distils them
//! into evergreen lessons the owner can edit, disable or delete; enabled lessons reach the
//! agent's prompt as a tier of their own, and audience lessons shape the next campaign.
pub mod api;
pub mod model;

#[cfg(feature = "server")]
pub mod distill;
#[cfg(feature = "server")]
pub mod entity;
#[cfg(feature = "server")]
pub mod service;
#[cfg(feature = "server")]
pub mod signals;
