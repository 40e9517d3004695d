//! The composition root: launch, the router, background work, seeding, admin and backups. It
//! builds the base (`platform`) and wires the domains on it; nothing but `main.rs` imports it.
pub mod admin;
pub mod assets;
pub mod background;
pub mod backups;
pub mod full_client;
pub mod host_check;
pub mod launch;
pub mod listeners;
pub mod preflight;
pub mod router;
pub mod security_headers;
pub mod seed;
pub mod seed_scale;
pub mod services;
