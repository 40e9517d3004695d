//! Step plans (seeds 002 and 004): a plan whose action is a graph of tool calls that feed each
//! other through references to earlier steps' results.
pub mod condition;
#[cfg(feature = "server")]
pub mod decide;
pub mod each;
#[cfg(feature = "server")]
pub mod each_view;
#[cfg(feature = "server")]
pub mod edit;
pub mod graph;
#[cfg(feature = "server")]
pub mod items;
pub mod model;
#[cfg(feature = "server")]
pub mod readable;
pub mod reference;
pub mod revise;
#[cfg(feature = "server")]
pub mod run;
pub mod schedule;
#[cfg(feature = "server")]
pub mod simulate;
#[cfg(feature = "server")]
pub mod store;
#[cfg(feature = "server")]
pub mod validate;
