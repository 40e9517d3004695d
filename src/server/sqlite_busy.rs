//! SQLite's wait for the writer's lock, in short steps: a connection that finds another writer
//! polls again after `poll` instead of SQLite's default back-off (1, 2, 5, 10, 15, 20, 25 … ms).
//!
//! Why: SQLite has one writer at a time. With its default busy handler, a write that arrives
//! while an agent turn commits sleeps at least 1 ms, often 1 + 2 + 5 ms, though the lock is held
//! for tens of microseconds. Profiling the webhook under agent load (issue 15) showed that wait,
//! not work, as the acknowledgement's tail. The acknowledgement's pool polls faster than the
//! background pool, so it wins the lock when both wait.
use futures::future::BoxFuture;
use sea_orm::sqlx::sqlite::SqliteConnection;
use std::time::Duration;

/// How long a write waits for the lock in all before SQLite answers "database is locked".
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Polls this often for the first `FAST_POLLS` tries, then every millisecond.
const FAST_POLLS: i32 = 2_000;
const SLOW_POLL: Duration = Duration::from_millis(1);

/// The busy handler's state: the poll interval in microseconds, passed as SQLite's user pointer.
extern "C" fn busy_handler(
    poll_us: *mut std::ffi::c_void,
    tries: std::ffi::c_int,
) -> std::ffi::c_int {
    let poll = Duration::from_micros(poll_us as usize as u64);
    let (waited, next) = if tries < FAST_POLLS {
        (poll * tries as u32, poll)
    } else {
        (
            poll * FAST_POLLS as u32 + SLOW_POLL * (tries - FAST_POLLS) as u32,
            SLOW_POLL,
        )
    };
    if waited >= BUSY_TIMEOUT {
        return 0;
    }
    std::thread::sleep(next);
    1
}

/// Installs the handler on a fresh connection (a pool's `after_connect`). It replaces the
/// `busy_timeout` SQLite was opened with; the wait in all stays `BUSY_TIMEOUT`.
pub fn install(
    conn: &mut SqliteConnection,
    poll: Duration,
) -> BoxFuture<'_, Result<(), sea_orm::sqlx::Error>> {
    Box::pin(async move {
        let mut handle = conn.lock_handle().await?;
        let raw = handle.as_raw_handle().as_ptr();
        let poll_us = poll.as_micros().max(1) as usize;
        // SAFETY: the handle is locked away from sqlx's worker thread for this call; the user
        // pointer is a plain integer that SQLite hands back to `busy_handler`, never dereferenced.
        let rc = unsafe {
            libsqlite3_sys::sqlite3_busy_handler(raw, Some(busy_handler), poll_us as *mut _)
        };
        if rc != libsqlite3_sys::SQLITE_OK {
            return Err(sea_orm::sqlx::Error::Protocol(format!(
                "sqlite3_busy_handler answered {rc}"
            )));
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gives_up_after_the_timeout_and_not_before() {
        let poll_us = 20usize as *mut std::ffi::c_void;
        assert_eq!(busy_handler(poll_us, 0), 1);
        // 2,000 fast polls of 20 µs are 40 ms; the rest at 1 ms each reach 10 s at 11,960 tries.
        assert_eq!(busy_handler(poll_us, 11_959), 1);
        assert_eq!(busy_handler(poll_us, 11_960), 0);
    }
}
