//! Keeps SQLite's query planner statistics current, as SQLite advises for long-lived
//! connections: `PRAGMA optimize=0x10002` once at start (every table checked, not only those the
//! connection has queried, so a database opened for the first time after a bulk import gets
//! `sqlite_stat1` rows), then `PRAGMA optimize` every hour. SQLite bounds each run with a
//! temporary `analysis_limit`, so it takes milliseconds even at 100,000 contacts. Without
//! statistics the planner guessed badly on filtered contact reads at size (issue 27).
use crate::platform::AppState;
use sea_orm::{ConnectionTrait, DbBackend, Statement};
use std::time::Duration;

/// How often statistics are looked at again.
const EVERY: Duration = Duration::from_secs(3600);

/// Which optimize: the first of a process, or a later one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    AtStart,
    Hourly,
}

/// Runs `PRAGMA optimize` on this connection (SQLite only; a no-op elsewhere).
pub async fn optimize<C: ConnectionTrait>(db: &C, pass: Pass) -> Result<(), sea_orm::DbErr> {
    if db.get_database_backend() != DbBackend::Sqlite {
        return Ok(());
    }
    let sql = match pass {
        Pass::AtStart => "PRAGMA optimize=0x10002",
        Pass::Hourly => "PRAGMA optimize",
    };
    db.execute_raw(Statement::from_string(DbBackend::Sqlite, sql))
        .await
        .map(|_| ())
}

/// Optimizes once before the server takes its first request (so the ANALYZE of every table
/// never holds the write lock while a webhook waits), then hourly until it shuts down (SQLite
/// only).
pub async fn start(state: &AppState) {
    if state.db.get_database_backend() != DbBackend::Sqlite {
        return;
    }
    let started = std::time::Instant::now();
    match optimize(&state.db, Pass::AtStart).await {
        Ok(()) => tracing::info!(
            ms = started.elapsed().as_millis() as u64,
            "SQLite statistics looked at"
        ),
        Err(e) => tracing::warn!(error = %e, "PRAGMA optimize failed; will try again in an hour"),
    }
    let bg = state.clone();
    state.loops.spawn(async move {
        loop {
            tokio::select! {
                _ = bg.shutdown.cancelled() => return,
                _ = tokio::time::sleep(EVERY) => {}
            }
            if let Err(e) = optimize(&bg.db, Pass::Hourly).await {
                tracing::warn!(error = %e, "PRAGMA optimize failed; will try again");
            }
        }
    });
}
