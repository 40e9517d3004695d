//! The team: who belongs to an organisation and how they come and go. Signing up (a new
//! organisation and its first owner), invitations, removing a member and changing roles. It
//! stands above `auth` and the modules a member's arrival or departure reaches (their agents,
//! their conversations), so that those changes commit in one transaction without an upward import.
pub mod api;

#[cfg(feature = "server")]
pub mod forgot_page;
#[cfg(feature = "server")]
pub mod invitations;
#[cfg(feature = "server")]
pub mod members;
#[cfg(feature = "server")]
pub mod sign_up;
