//! Campaigns: bulk texts from approved campaign plans. Create (opt-out-safe), draft per contact on
//! a durable engine, human review, then compliant, paced, exactly-once sending. The module takes
//! the UI's word; its tables keep their older names (`assistant_operation`, see `entity`).
pub mod api;
pub mod model;
pub mod segments;

#[cfg(feature = "server")]
pub mod create;
#[cfg(feature = "server")]
pub mod delivery_alarm;
#[cfg(feature = "server")]
pub mod draft_engine;
#[cfg(feature = "server")]
pub mod draft_writer;
#[cfg(feature = "server")]
pub mod drafter;
#[cfg(feature = "server")]
pub mod engines;
#[cfg(feature = "server")]
pub mod entity;
#[cfg(feature = "server")]
pub mod estimate;
#[cfg(feature = "server")]
pub mod funnel;
#[cfg(feature = "server")]
pub mod link_tracking;
#[cfg(feature = "server")]
pub mod overlap;
#[cfg(feature = "server")]
pub mod pictures;
#[cfg(feature = "server")]
pub mod profiles_page;
#[cfg(feature = "server")]
pub mod resume;
#[cfg(feature = "server")]
pub mod review;
#[cfg(feature = "server")]
pub mod review_digest;
#[cfg(feature = "server")]
pub mod send_engine;
#[cfg(feature = "server")]
pub mod sending_page;
#[cfg(feature = "server")]
pub mod webhook_events;
#[cfg(feature = "server")]
pub mod written;
