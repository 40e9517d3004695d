//! `cargo run -p migration -- up|down|status|fresh`: Herald's schema from the command line.
use sea_orm_migration::prelude::*;

#[tokio::main]
async fn main() {
    cli::run_cli(migration::Migrator).await;
}
