//! The base every domain stands on: the database handle and its helpers, configuration, the
//! clock, the shared state, the work queue, SQLite tuning, fault injection and the argument checks
//! of server functions. It imports no domain (docs/architecture.md holds the few that remain, each
//! with its reason); the composition root (`server`) builds it and wires the domains on top.
pub mod access_config;
pub mod arg_check;
pub mod backup_config;
pub mod carrier_errors;
pub mod client_address;
pub mod clock;
pub mod config;
pub mod db;
pub mod email;
pub mod embedding_config;
pub mod events;
pub mod exposure;
pub mod faults;
pub mod keyset;
pub mod limits;
pub mod live;
pub mod llm;
pub mod media_config;
pub mod memory;
pub mod metrics;
pub mod origin;
pub mod setting;
pub mod sms;
pub mod sqlite_busy;
pub mod sqlite_file;
pub mod sqlite_optimize;
pub mod sqlite_wal;
pub mod state;
pub mod webhook_config;
pub mod work;

pub use config::Config;
pub use state::AppState;
