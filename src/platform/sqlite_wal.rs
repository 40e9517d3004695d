//! Keeps SQLite's write-ahead log short under sustained load.
//!
//! Why: SQLite checkpoints its log on commit (PASSIVE: it copies what no reader still needs), but
//! it can start the log over only at a moment when no reader is using it. Under a steady load
//! some connection always is, so the log only grows: after 30 s of 1,000 texts a second to agents
//! it was 357 MB (issue 15), and every page read searched a longer log index and went through
//! the kernel. A log over `RESTART_FRAMES` is now checkpointed with RESTART, which waits (under
//! the busy handler) for the readers of the old log to finish and then starts it over, and
//! truncated back to `journal_size_limit` when it is.
//!
//! While a RESTART checkpoint waits, SQLite lets no other connection write: it holds the writer's
//! lock. So the checkpointer has a connection of its own that waits at most `CHECKPOINT_WAIT`
//! and tries again on the next look. On a pool connection it waited up to the busy timeout, and
//! one acknowledgement in a benchmark run took 1.4 s (issue 15).
//!
//! Commits still checkpoint as SQLite does by default (PASSIVE, once the log passes 1,000
//! pages). Leaving all copying to this checkpointer (`wal_autocheckpoint=0`) cut the fsyncs from
//! about 100 a second to 8, but the log then reached 16 MiB about twice a second under agent
//! load, and each RESTART held the writers up for 10–35 ms: acknowledgement p99 14.5–19 ms
//! against 8.5–9.1 ms with the default, same machine and hour.
use crate::platform::sqlite_busy::Wait;
use crate::platform::AppState;
use sea_orm::{ConnectionTrait, DbBackend, Statement};
use std::time::Duration;

/// How often the log is checkpointed (and its length looked at).
const EVERY: Duration = Duration::from_millis(250);
/// Log frames (pages of 4 KiB) past which the log is started over: 16 MiB.
pub const RESTART_FRAMES: i64 = 4096;
/// What a log started over is truncated back to (SQLite's `journal_size_limit`).
pub const LOG_LIMIT_BYTES: i64 = 16 * 1024 * 1024;
/// How long the checkpointer waits for a lock (a writer, or the old log's readers) before it
/// gives up until its next look.
pub const CHECKPOINT_WAIT: Wait = Wait {
    poll: Duration::from_micros(50),
    budget: Duration::from_millis(2),
};

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

/// Frames a RESTART may be left to copy. It copies (and fsyncs) them holding the writer's lock;
/// PASSIVE copies without it, so the log is caught up with PASSIVE first.
const RESTART_COPIES_AT_MOST: i64 = 64;
/// PASSIVE passes at most before a RESTART (each copies what arrived during the one before).
const CATCH_UP_PASSES: usize = 4;

/// Checkpoints once: PASSIVE, then, when the log is over `restart_frames`, PASSIVE again until
/// little is left to copy, and RESTART. Measured under agent load (issue 15): a RESTART right
/// after one PASSIVE still had about 900 frames to copy and held every writer up for 16–20 ms.
pub async fn checkpoint<C: ConnectionTrait>(
    db: &C,
    restart_frames: i64,
) -> Result<Checkpoint, sea_orm::DbErr> {
    let mut pass = run(db, "PASSIVE").await?;
    let frames = pass.frames;
    if frames <= restart_frames {
        return Ok(Checkpoint::Passive { frames });
    }
    for _ in 1..CATCH_UP_PASSES {
        if pass.frames - pass.copied <= RESTART_COPIES_AT_MOST {
            break;
        }
        pass = run(db, "PASSIVE").await?;
    }
    Ok(match run(db, "RESTART").await?.busy {
        false => Checkpoint::Restarted { frames },
        true => Checkpoint::Busy { frames },
    })
}

/// What `PRAGMA wal_checkpoint` answered.
struct Pass {
    /// Cut short by a busy reader or writer.
    busy: bool,
    /// The log's length in frames.
    frames: i64,
    /// Frames copied into the database so far.
    copied: i64,
}

/// `PRAGMA wal_checkpoint(mode)`.
async fn run<C: ConnectionTrait>(db: &C, mode: &str) -> Result<Pass, sea_orm::DbErr> {
    let sql = format!("PRAGMA wal_checkpoint({mode})");
    let row = db
        .query_one_raw(Statement::from_string(DbBackend::Sqlite, sql))
        .await?;
    Ok(match row {
        Some(r) => Pass {
            busy: r.try_get_by_index::<i64>(0)? != 0,
            frames: r.try_get_by_index::<i64>(1)?,
            copied: r.try_get_by_index::<i64>(2)?,
        },
        None => Pass {
            busy: false,
            frames: 0,
            copied: 0,
        },
    })
}

/// Looks at the log every `EVERY` until the server shuts down (SQLite only), on a connection of
/// its own (`Role::Checkpoint`).
pub fn start_checkpointer(state: &AppState) {
    if state.db.get_database_backend() != DbBackend::Sqlite {
        return;
    }
    let bg = state.clone();
    state.loops.spawn(async move {
        let mut conn = None;
        loop {
            tokio::select! {
                _ = bg.shutdown.cancelled() => return,
                _ = tokio::time::sleep(EVERY) => {}
            }
            if conn.is_none() {
                let url = &bg.config.database_url;
                match crate::platform::db::connect(url, 1, crate::platform::db::Role::Checkpoint)
                    .await
                {
                    Ok(c) => conn = Some(c),
                    Err(e) => {
                        tracing::warn!(error = %e, "SQLite checkpointer cannot connect; will try again");
                        continue;
                    }
                }
            }
            let Some(db) = &conn else { continue };
            match checkpoint(db, RESTART_FRAMES).await {
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
