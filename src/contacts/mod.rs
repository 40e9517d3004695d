//! Contacts: search, create, edit, tags, opt-outs and CSV import. A contact's whole record across
//! modules (its page, merging duplicates, erasing) is `records`'.
pub mod api;
pub mod consent;
// The import page is out of the first load (`ui::views::full_client`), and so are its types.
#[cfg(not(feature = "first-load"))]
pub mod import_api;
#[cfg(not(feature = "first-load"))]
pub mod import_map;
pub mod model;
pub mod profile_model;

#[cfg(feature = "server")]
pub mod area_codes;
#[cfg(feature = "server")]
pub mod edits;
#[cfg(feature = "server")]
pub mod entity;
#[cfg(feature = "server")]
pub mod export;
#[cfg(feature = "server")]
pub mod fields;
#[cfg(feature = "server")]
pub mod filter;
#[cfg(feature = "server")]
pub mod import;
#[cfg(feature = "server")]
pub mod import_job;
#[cfg(feature = "server")]
pub mod list;
#[cfg(feature = "server")]
pub mod merge_record;
#[cfg(feature = "server")]
pub mod opt_out;
#[cfg(feature = "server")]
pub mod phone;
#[cfg(feature = "server")]
pub mod reachability;
#[cfg(feature = "server")]
pub mod segments;
#[cfg(feature = "server")]
pub mod service;
