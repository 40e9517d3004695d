//! Lawful texting: the opt-out detector that reads every inbound text first, the suppression
//! list's answers (confirmation, HELP), the "possible opt-out" items a person decides, and the
//! gate the send ledger asks at the moment every text leaves. The rules and their sources are in
//! `shared/compliance.md`.
pub mod api;
pub mod model;

#[cfg(feature = "server")]
pub mod detector;
#[cfg(feature = "server")]
pub mod entity;
#[cfg(feature = "server")]
pub mod gate;
#[cfg(feature = "server")]
pub mod inbound;
#[cfg(feature = "server")]
pub mod review;
#[cfg(feature = "server")]
pub mod wording;
