//! Keeps SQLite's write-ahead log short under sustained load.
//!
//! Why: SQLite checkpoints its log on commit (PASSIVE: it copies what no reader still needs), but
//! it can start the log over only at a moment when no reader is using it. Under a steady load
//! some connection always is, so the log only grows: after 30 s of 1,000 texts a second to agents
//! it was 357 MB (issue 15), and every page read searched a longer log index and went through
//! the kernel. A log over `RESTART_FRAMES` is now checkpointed with RESTART, which waits (under
//! the busy handler) for the readers of the old log to finish and then starts it over, and
//! truncated back to `journal_size_limit` when it is.
use crate::server::AppState;
use sea_orm::{ConnectionTrait, DbBackend, Statement};
use std::time::Duration;

/// How often the log's length is looked at.
const EVERY: Duration = Duration::from_millis(500);
/// Log frames (pages of 4 KiB) past which the log is started over: 16 MiB.
pub const RESTART_FRAMES: i64 = 4096;
/// What a log started over is truncated back to (SQLite's `journal_size_limit`).
pub const LOG_LIMIT_BYTES: i64 = 16 * 1024 * 1024;

/// What one look did.
#[derive(Debug, PartialEq, Eq)]
pub enum Checkpoint {
    /// The log was short enough: copied what no reader still needs.
    Passive { frames: i64 },
    /// The log was started over.
    Restarted { frames: i64 },
    /// The log was long, but readers still used it when the wait ran out: tried again later.
    Busy { frames: i64 },
}

/// Checkpoints once: PASSIVE, then RESTART when the log is still over `restart_frames`.
pub async fn checkpoint<C: ConnectionTrait>(
    db: &C,
    restart_frames: i64,
) -> Result<Checkpoint, sea_orm::DbErr> {
    let (_, frames) = run(db, "PASSIVE").await?;
    if frames <= restart_frames {
        return Ok(Checkpoint::Passive { frames });
    }
    Ok(match run(db, "RESTART").await?.0 {
        false => Checkpoint::Restarted { frames },
        true => Checkpoint::Busy { frames },
    })
}

/// `PRAGMA wal_checkpoint(mode)`: whether it was cut short by a busy reader or writer, and the
/// log's length in frames.
async fn run<C: ConnectionTrait>(db: &C, mode: &str) -> Result<(bool, i64), sea_orm::DbErr> {
    let sql = format!("PRAGMA wal_checkpoint({mode})");
    let row = db
        .query_one_raw(Statement::from_string(DbBackend::Sqlite, sql))
        .await?;
    Ok(match row {
        Some(r) => (
            r.try_get_by_index::<i64>(0)? != 0,
            r.try_get_by_index::<i64>(1)?,
        ),
        None => (false, 0),
    })
}

/// Looks at the log every `EVERY` until the server shuts down (SQLite only).
pub fn start_checkpointer(state: &AppState) {
    if state.db.get_database_backend() != DbBackend::Sqlite {
        return;
    }
    let bg = state.clone();
    tokio::spawn(async move {
        loop {
            tokio::select! {
                _ = bg.shutdown.cancelled() => return,
                _ = tokio::time::sleep(EVERY) => {}
            }
            match checkpoint(&bg.db, RESTART_FRAMES).await {
                Ok(Checkpoint::Restarted { frames }) => {
                    tracing::debug!(frames, "SQLite log started over")
                }
                Ok(Checkpoint::Busy { frames }) => {
                    tracing::debug!(frames, "SQLite log still in use; starting it over later")
                }
                Ok(Checkpoint::Passive { .. }) => {}
                Err(e) => tracing::warn!(error = %e, "SQLite checkpoint failed; will try again"),
            }
        }
    });
}
