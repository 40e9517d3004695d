//! SQLite's wait for the writer's lock, in short steps: a connection that finds another writer
//! polls again after `poll` instead of SQLite's default back-off (1, 2, 5, 10, 15, 20, 25 … ms).
//!
//! Why: SQLite has one writer at a time. With its default busy handler, a write that arrives
//! while an agent turn commits sleeps at least 1 ms, often 1 + 2 + 5 ms, though the lock is held
//! for tens of microseconds. Profiling the webhook under agent load (issue 15) showed that wait,
//! not work, as the acknowledgement's tail. The acknowledgement's pool polls faster than the
//! background pool, so it wins the lock when both wait. The checkpointer's connection waits only
//! briefly (`sqlite_wal`): while a RESTART checkpoint waits, no other connection may write.
use futures::future::BoxFuture;
use sea_orm::sqlx::sqlite::SqliteConnection;
use std::time::Duration;

/// How long a write waits for the lock in all before SQLite answers "database is locked".
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Polls this often for the first `FAST_POLLS` tries, then every millisecond.
const FAST_POLLS: i32 = 2_000;
const SLOW_POLL: Duration = Duration::from_millis(1);

/// How a connection waits for a lock: every `poll`, for `budget` in all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wait {
    pub poll: Duration,
    pub budget: Duration,
}

impl Wait {
    /// Polls every `poll`, up to `BUSY_TIMEOUT`.
    pub const fn polling(poll: Duration) -> Self {
        Self {
            poll,
            budget: BUSY_TIMEOUT,
        }
    }

    /// The handler's user pointer: both figures in microseconds, packed into one word (SQLite
    /// hands it back as it is; it is never dereferenced).
    fn pack(self) -> usize {
        let us = |d: Duration| d.as_micros().clamp(1, u32::MAX as u128) as usize;
        (us(self.budget) << 32) | us(self.poll)
    }

    fn unpack(word: usize) -> Self {
        Self {
            poll: Duration::from_micros((word & 0xFFFF_FFFF) as u64),
            budget: Duration::from_micros((word >> 32) as u64),
        }
    }
}

/// SQLite's busy handler: sleeps and answers 1 (try again) until the budget is spent.
extern "C" fn busy_handler(wait: *mut std::ffi::c_void, tries: std::ffi::c_int) -> std::ffi::c_int {
    let Wait { poll, budget } = Wait::unpack(wait as usize);
    let (waited, next) = if tries < FAST_POLLS {
        (poll * tries as u32, poll)
    } else {
        (
            poll * FAST_POLLS as u32 + SLOW_POLL * (tries - FAST_POLLS) as u32,
            SLOW_POLL,
        )
    };
    if waited >= budget {
        return 0;
    }
    std::thread::sleep(next.min(budget - waited));
    1
}

/// Installs the handler on a fresh connection (a pool's `after_connect`). It replaces the
/// `busy_timeout` SQLite was opened with.
pub fn install(
    conn: &mut SqliteConnection,
    wait: Wait,
) -> BoxFuture<'_, Result<(), sea_orm::sqlx::Error>> {
    Box::pin(async move {
        let mut handle = conn.lock_handle().await?;
        let raw = handle.as_raw_handle().as_ptr();
        // SAFETY: the handle is locked away from sqlx's worker thread for this call; the user
        // pointer is a plain integer that SQLite hands back to `busy_handler`, never dereferenced.
        let rc = unsafe {
            libsqlite3_sys::sqlite3_busy_handler(raw, Some(busy_handler), wait.pack() as *mut _)
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

    fn handler(wait: Wait) -> impl Fn(i32) -> i32 {
        move |tries| busy_handler(wait.pack() as *mut std::ffi::c_void, tries)
    }

    #[test]
    fn gives_up_after_the_timeout_and_not_before() {
        let h = handler(Wait::polling(Duration::from_micros(20)));
        assert_eq!(h(0), 1);
        // 2,000 fast polls of 20 µs are 40 ms; the rest at 1 ms each reach 10 s at 11,960 tries.
        assert_eq!(h(11_959), 1);
        assert_eq!(h(11_960), 0);
    }

    #[test]
    fn a_short_budget_gives_up_within_it() {
        let h = handler(Wait {
            poll: Duration::from_micros(50),
            budget: Duration::from_millis(2),
        });
        assert_eq!(h(0), 1);
        assert_eq!(h(39), 1, "39 polls of 50 µs are under 2 ms");
        assert_eq!(h(40), 0, "40 are the whole budget");
    }

    #[test]
    fn both_figures_survive_the_packing() {
        let w = Wait::polling(Duration::from_micros(100));
        assert_eq!(Wait::unpack(w.pack()), w);
    }
}
