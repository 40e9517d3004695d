//! An injectable clock, so pacing and quiet hours are tested without waiting.
use chrono::{DateTime, Utc};
use std::sync::Mutex;
use std::time::Duration;

#[async_trait::async_trait]
pub trait Clock: Send + Sync {
    fn now(&self) -> DateTime<Utc>;
    async fn sleep(&self, d: Duration);
}

pub struct SystemClock;

#[async_trait::async_trait]
impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
    async fn sleep(&self, d: Duration) {
        tokio::time::sleep(d).await
    }
}

/// A clock that only moves when slept on: sleeping advances it at once.
pub struct ManualClock {
    now: Mutex<DateTime<Utc>>,
    pub slept: Mutex<Vec<Duration>>,
}

impl ManualClock {
    pub fn at(start: DateTime<Utc>) -> Self {
        Self {
            now: Mutex::new(start),
            slept: Mutex::new(vec![]),
        }
    }
}

#[async_trait::async_trait]
impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.now.lock().expect("clock")
    }
    async fn sleep(&self, d: Duration) {
        self.slept.lock().expect("clock").push(d);
        {
            let mut now = self.now.lock().expect("clock");
            *now += chrono::Duration::from_std(d).unwrap_or_default();
        }
        tokio::task::yield_now().await;
    }
}
