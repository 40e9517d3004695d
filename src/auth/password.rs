//! Argon2id password hashing.
use crate::error::{AppError, AppResult};
use argon2::password_hash::{
    rand_core::OsRng, PasswordHash, PasswordHasher, PasswordVerifier, SaltString,
};
use argon2::Argon2;

pub fn hash_password(password: &str) -> String {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .expect("argon2 hashing with default parameters cannot fail")
        .to_string()
}

pub fn verify_password(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash)
        .map(|parsed| {
            Argon2::default()
                .verify_password(password.as_bytes(), &parsed)
                .is_ok()
        })
        .unwrap_or(false)
}

/// Argon2 work, bounded: an Argon2 hash takes tens of milliseconds of CPU and 19 MiB of memory,
/// so at most one per core runs at once (on tokio's blocking pool, off the async workers that
/// answer webhooks and pages), a short queue waits, and beyond it a caller is answered 429 at
/// once instead of piling up threads and memory.
pub struct HashPool {
    running: std::sync::Arc<tokio::sync::Semaphore>,
    waiting: std::sync::atomic::AtomicUsize,
    max_waiting: usize,
}

impl HashPool {
    /// `workers` hashes at once, and up to `max_waiting` more queued.
    pub fn new(workers: usize, max_waiting: usize) -> Self {
        Self {
            running: std::sync::Arc::new(tokio::sync::Semaphore::new(workers.max(1))),
            waiting: std::sync::atomic::AtomicUsize::new(0),
            max_waiting,
        }
    }

    /// One worker per core, and a queue of eight per core.
    pub fn for_this_machine() -> Self {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Self::new(cores, cores * 8)
    }

    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> AppResult<T> {
        use std::sync::atomic::Ordering;
        let queued = self.waiting.fetch_add(1, Ordering::AcqRel);
        if queued >= self.max_waiting {
            self.waiting.fetch_sub(1, Ordering::AcqRel);
            tracing::warn!(queued, "password hashing queue full");
            return Err(AppError::RateLimited(
                "The server is busy checking passwords. Try again in a few seconds.".into(),
            ));
        }
        let permit = self.running.clone().acquire_owned().await;
        self.waiting.fetch_sub(1, Ordering::AcqRel);
        let permit = permit.map_err(|_| AppError::Internal("hashing pool closed".into()))?;
        tokio::task::spawn_blocking(move || {
            let out = work();
            drop(permit);
            out
        })
        .await
        .map_err(|e| AppError::Internal(format!("password hashing: {e}")))
    }

    pub async fn hash(&self, password: &str) -> AppResult<String> {
        let password = password.to_owned();
        self.run(move || hash_password(&password)).await
    }

    pub async fn verify(&self, password: &str, hash: &str) -> AppResult<bool> {
        let (password, hash) = (password.to_owned(), hash.to_owned());
        self.run(move || verify_password(&password, &hash)).await
    }
}

impl crate::platform::AppState {
    /// Argon2 work, at most one per core.
    pub fn hashing(&self) -> &HashPool {
        self.part::<std::sync::Arc<HashPool>>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_verifies_only_its_password() {
        let h = hash_password("correct horse");
        assert!(h.starts_with("$argon2id$"));
        assert!(verify_password("correct horse", &h));
        assert!(!verify_password("wrong horse", &h));
        assert!(!verify_password("correct horse", "not a hash"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_full_pool_answers_busy_at_once() {
        let pool = std::sync::Arc::new(HashPool::new(1, 2));
        let mut tasks = Vec::new();
        for _ in 0..12 {
            let p = pool.clone();
            tasks.push(tokio::spawn(async move { p.hash("a password").await }));
        }
        let mut ok = 0;
        let mut busy = 0;
        for t in tasks {
            match t.await.unwrap() {
                Ok(_) => ok += 1,
                Err(AppError::RateLimited(m)) => {
                    assert!(m.contains("busy"));
                    busy += 1
                }
                Err(e) => panic!("{e}"),
            }
        }
        assert!(ok >= 3, "one running and two queued are served ({ok})");
        assert!(
            busy >= 1,
            "beyond the queue, callers are refused ({busy} refused)"
        );
        assert_eq!(ok + busy, 12);
    }
}
