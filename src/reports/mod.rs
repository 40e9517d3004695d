//! Reports (issue 30 §5): what the organisation's texting did, by day, from rollups kept as data
//! arrives. Server-rendered (the app's first-load budget is spent): charts are SVG laid out by
//! the server, and every table exports as CSV.
pub mod ai_share;
pub mod answers;
pub mod chart;
pub mod entity;
pub mod exports;
pub mod figures;
pub mod funnel_pass;
pub mod hours;
pub mod page;
pub mod replies;
pub mod rollup;
