//! The background work runtime: routing stored texts and running agent turns happen on threads
//! of their own, at a lower CPU priority, with a bounded number of turns at once.
//!
//! Why: a carrier's webhook must be acknowledged in milliseconds whatever the agents are doing.
//! On one runtime, an agent turn's CPU work (prompt, model, JSON) sits in the same run queues as
//! the acknowledgement's request and delays it; under a burst, thousands of turns did (issue 15).
//! Here the operating system runs the request threads first, and the agents use what is left.
use std::future::Future;
use std::sync::Arc;

/// How much kinder to others the work threads are than the request threads (`nice`, 0–19).
const NICENESS: i32 = 10;

/// A tokio runtime for background work. Dropping it (when the server's state goes) stops its
/// threads without waiting for them.
pub struct WorkRuntime {
    runtime: Option<tokio::runtime::Runtime>,
    /// Turns running at once in this process; the rest wait their turn without holding a lease.
    pub turn_slots: Arc<tokio::sync::Semaphore>,
}

impl WorkRuntime {
    /// `threads` workers; `turns` agent turns at once.
    pub fn new(threads: usize, turns: usize) -> std::io::Result<Self> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads.max(1))
            .thread_name("herald-work")
            .on_thread_start(lower_priority)
            .enable_all()
            .build()?;
        Ok(Self {
            runtime: Some(runtime),
            turn_slots: Arc::new(tokio::sync::Semaphore::new(turns.max(1))),
        })
    }

    pub fn handle(&self) -> &tokio::runtime::Handle {
        self.runtime
            .as_ref()
            .expect("the work runtime lives as long as the state")
            .handle()
    }

    /// Runs `fut` on the work runtime, tracked by `tasks` (so shutdown and tests can wait).
    pub fn spawn<F>(&self, tasks: &tokio_util::task::TaskTracker, fut: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        tasks.spawn_on(fut, self.handle());
    }
}

impl Drop for WorkRuntime {
    fn drop(&mut self) {
        // The last state may be dropped on one of the runtime's own threads: stop it from
        // another, where neither blocking nor being inside it can be a problem.
        if let Some(rt) = self.runtime.take() {
            let _ = std::thread::Builder::new()
                .name("herald-work-stop".into())
                .spawn(move || rt.shutdown_background());
        }
    }
}

/// Lowers the calling thread's CPU priority (Linux schedules threads one by one).
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: plain system calls on the calling thread, with no pointers.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        if libc::setpriority(libc::PRIO_PROCESS, tid, NICENESS) != 0 {
            tracing::debug!("could not lower the work threads' priority");
        }
    }
}
