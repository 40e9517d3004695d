//! Knowledge (issue 52): what the business tells its agents about itself. FAQ entries, facts
//! (hours, address, prices), documents and websites, each split into passages that full-text
//! search finds for a question, scoped to the organisation in the query itself.
#[cfg(not(feature = "first-load"))]
pub mod api;
pub mod model;

#[cfg(feature = "server")]
pub mod demo;
#[cfg(feature = "server")]
pub mod documents;
#[cfg(feature = "server")]
pub mod embed;
#[cfg(feature = "server")]
pub mod entity;
#[cfg(feature = "server")]
pub mod figures;
#[cfg(feature = "server")]
pub mod ground;
#[cfg(feature = "server")]
pub mod holding;
#[cfg(feature = "server")]
pub mod read;
#[cfg(feature = "server")]
pub mod retrieve;
#[cfg(feature = "server")]
pub mod service;
#[cfg(feature = "server")]
pub mod terms;
#[cfg(feature = "server")]
pub mod upload;
