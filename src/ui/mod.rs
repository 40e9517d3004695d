//! The user interface, one module because Dioxus's router ties it together: `app` holds the
//! router's `Route`, which names every page in `views`, and pages and `components` link back to
//! `Route`. It stands above every domain and imports only their shared models and server
//! functions.
pub mod app;
pub mod components;
pub mod views;
