//! The injected clock: every server-side "now" and every timed wait goes through `Clock`, so
//! tests pin the time of day and quiet hours, leases and backoff are tested without waiting.
use chrono::{DateTime, Utc};
use std::sync::Mutex;
use std::time::Duration;

#[async_trait::async_trait]
pub trait Clock: Send + Sync {
    fn now(&self) -> DateTime<Utc>;
    async fn sleep(&self, d: Duration);
}

/// The machine's clock: production.
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

/// Real time, shifted: it starts at a chosen instant (or the machine's time plus an offset) and
/// then advances with real time. Tests use it so that the time of day never depends on when
/// they run; it is refused in production (see `server::config`).
pub struct ShiftedClock {
    offset: chrono::Duration,
}

impl ShiftedClock {
    /// A clock that reads `start` now and runs on from there.
    pub fn starting_at(start: DateTime<Utc>) -> Self {
        Self {
            offset: start - Utc::now(),
        }
    }

    /// The machine's time plus `offset` (negative for the past).
    pub fn with_offset(offset: chrono::Duration) -> Self {
        Self { offset }
    }
}

#[async_trait::async_trait]
impl Clock for ShiftedClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now() + self.offset
    }
    async fn sleep(&self, d: Duration) {
        tokio::time::sleep(d).await
    }
}

/// A clock that only moves when slept on or advanced: sleeping advances it at once.
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

    /// Moves the clock forward without anyone sleeping (a lease expiring, a day passing).
    pub fn advance(&self, d: chrono::Duration) {
        *self.now.lock().expect("clock") += d;
    }
}

#[async_trait::async_trait]
impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.now.lock().expect("clock")
    }
    async fn sleep(&self, d: Duration) {
        self.slept.lock().expect("clock").push(d);
        self.advance(chrono::Duration::from_std(d).unwrap_or_default());
        tokio::task::yield_now().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[tokio::test]
    async fn a_shifted_clock_starts_where_asked_and_runs_on() {
        let start = Utc.with_ymd_and_hms(2026, 6, 17, 16, 0, 0).unwrap();
        let c = ShiftedClock::starting_at(start);
        let first = c.now();
        assert!((first - start).num_seconds().abs() < 5, "{first}");
        c.sleep(Duration::from_millis(20)).await;
        assert!(c.now() > first);
    }

    #[tokio::test]
    async fn a_manual_clock_moves_only_when_told() {
        let start = Utc.with_ymd_and_hms(2026, 1, 1, 3, 0, 0).unwrap();
        let c = ManualClock::at(start);
        assert_eq!(c.now(), start);
        c.sleep(Duration::from_secs(60)).await;
        c.advance(chrono::Duration::hours(1));
        assert_eq!(c.now(), start + chrono::Duration::minutes(61));
        assert_eq!(*c.slept.lock().unwrap(), vec![Duration::from_secs(60)]);
    }
}
