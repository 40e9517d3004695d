//! Tracked links (issue 30 §4): links in campaign texts and saved replies become
//! `PUBLIC_URL/l/<code>`, one short unguessable code per contact; a click redirects and is
//! counted, and the counts show in the campaign's results and on the contact page.
pub mod model;

#[cfg(feature = "server")]
pub mod entity;
#[cfg(feature = "server")]
pub mod redirect;
#[cfg(feature = "server")]
pub mod service;
