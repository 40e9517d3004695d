//! Contacts: search, create, edit, tags, opt-outs and CSV import.
pub mod api;
pub mod model;
pub mod profile_model;

#[cfg(feature = "server")]
pub mod edits;
#[cfg(feature = "server")]
pub mod entity;
#[cfg(feature = "server")]
pub mod erase;
#[cfg(feature = "server")]
pub mod erase_page;
#[cfg(feature = "server")]
pub mod export;
#[cfg(feature = "server")]
pub mod filter;
#[cfg(feature = "server")]
pub mod import;
#[cfg(feature = "server")]
mod in_flight;
#[cfg(feature = "server")]
pub mod list;
#[cfg(feature = "server")]
pub mod merge;
#[cfg(feature = "server")]
mod merge_moves;
#[cfg(feature = "server")]
mod merge_record;
#[cfg(feature = "server")]
pub mod opt_out;
#[cfg(feature = "server")]
pub mod phone;
#[cfg(feature = "server")]
pub mod profile;
#[cfg(feature = "server")]
pub mod reachability;
#[cfg(feature = "server")]
pub mod segments;
#[cfg(feature = "server")]
pub mod service;
