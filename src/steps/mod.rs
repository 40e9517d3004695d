//! Step plans' graph (seeds 002 and 004): steps that call tools, references from one step's
//! arguments to earlier results, conditions, for-each, the order they run in, validation against
//! the step catalog, and each step in words. Pure logic, with no plan, table or runner: plans
//! (`plans::steps`) stores, approves and runs step plans on it.
pub mod condition;
pub mod each;
pub mod graph;
pub mod model;
pub mod reference;
pub mod revise;
pub mod schedule;

#[cfg(feature = "server")]
pub mod catalog;
#[cfg(feature = "server")]
pub mod readable;
#[cfg(feature = "server")]
pub mod validate;
