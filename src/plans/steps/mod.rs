//! Running step plans: storing their steps, the runner, decisions on steps that wait, edits,
//! for-each items and simulation. The graph they run on (steps, references, order, validation)
//! is `steps`.
#[cfg(feature = "server")]
pub mod decide;
#[cfg(feature = "server")]
pub mod each_view;
#[cfg(feature = "server")]
pub mod edit;
#[cfg(feature = "server")]
pub mod items;
#[cfg(feature = "server")]
pub mod run;
#[cfg(feature = "server")]
pub mod simulate;
#[cfg(feature = "server")]
pub mod store;
