//! Server-only wiring: configuration, shared state, the database, the router and start-up.
pub mod access_config;
pub mod admin;
pub mod assets;
pub mod background;
pub mod backup_config;
pub mod backups;
pub mod config;
pub mod db;
pub mod exposure;
pub mod faults;
pub mod launch;
pub mod media_config;
pub mod origin;
pub mod preflight;
pub mod router;
pub mod security_headers;
pub mod seed;
pub mod seed_scale;
pub mod sqlite_busy;
pub mod sqlite_file;
pub mod sqlite_optimize;
pub mod sqlite_wal;
pub mod state;
pub mod work;

pub use config::Config;
pub use state::AppState;
