//! A contact's whole record, across the modules that each hold a part of it: the contact's page
//! (texts, conversations, plans and campaigns that name them), merging duplicates and erasing a
//! contact. It sits above every module it reads and rewrites (docs/architecture.md).
pub mod api;

#[cfg(feature = "server")]
pub mod erase;
#[cfg(feature = "server")]
pub mod erase_page;
#[cfg(feature = "server")]
mod in_flight;
#[cfg(feature = "server")]
pub mod merge;
#[cfg(feature = "server")]
mod merge_moves;
#[cfg(feature = "server")]
pub mod profile;
