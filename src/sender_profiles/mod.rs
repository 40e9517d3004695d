//! Sender profiles (issue 30 §2): throughput as carriers set it. Each number belongs to a
//! profile of its kind (unregistered long code, 10DLC campaign, toll-free, short code) whose
//! rate is shared by the profile's numbers and every instance, and, for 10DLC, the brand's
//! T-Mobile daily cap, which rolls over at midnight Pacific. Settings → Sending keeps them; the
//! campaign card estimates when a campaign finishes and what holds it back.
pub mod model;

#[cfg(feature = "server")]
pub mod entity;
#[cfg(feature = "server")]
pub mod pacing;
#[cfg(feature = "server")]
pub mod service;
