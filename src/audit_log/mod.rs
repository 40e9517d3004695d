//! The owners' view of the audit log: its page, its server function and the reading behind
//! them. It stands above `audit` (which only writes entries) and the modules whose members and
//! API keys it names, so that every module may write to the log without a cycle.
pub mod api;

#[cfg(feature = "server")]
pub mod page;
#[cfg(feature = "server")]
pub mod read;
