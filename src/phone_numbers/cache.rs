//! The numbers the webhook looks up, remembered: which organisation owns a number, and which agent
//! or suggester answers it. Every inbound text asked the database this; now a text costs one
//! statement fewer (issue 15).
//!
//! Freshness: every change to a number in this process (adding or editing it, assigning an agent
//! or a suggester) forgets everything once it has committed, and a lookup that raced the change
//! does not store what it read. Another instance's change (several instances on PostgreSQL) is
//! seen within `TTL`: an entry is never older than that.
use crate::error::AppResult;
use crate::phone_numbers::entity as phone_number;
use sea_orm::ConnectionTrait;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long an entry is trusted.
pub const TTL: Duration = Duration::from_secs(1);
/// Entries kept at most (numbers nobody owns are remembered too, so a flood of texts to unknown
/// numbers cannot grow the map without bound).
const CAPACITY: usize = 10_000;

type Entry = (Instant, Option<phone_number::Model>);

#[derive(Default)]
pub struct NumberCache {
    entries: Mutex<HashMap<String, Entry>>,
    /// Bumped by every change: a lookup that began before it does not store what it read.
    generation: AtomicU64,
}

impl NumberCache {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whichever organisation owns this E.164 number, from memory when it is fresh.
    pub async fn find<C: ConnectionTrait>(
        &self,
        db: &C,
        number: &str,
    ) -> AppResult<Option<phone_number::Model>> {
        if let Some((at, found)) = self.map().get(number) {
            if at.elapsed() < TTL {
                return Ok(found.clone());
            }
        }
        let generation = self.generation.load(Ordering::SeqCst);
        let found = crate::phone_numbers::service::find_by_number(db, number).await?;
        let mut map = self.map();
        if self.generation.load(Ordering::SeqCst) == generation {
            if map.len() >= CAPACITY {
                map.retain(|_, (at, _)| at.elapsed() < TTL);
                if map.len() >= CAPACITY {
                    map.clear();
                }
            }
            map.insert(number.to_owned(), (Instant::now(), found.clone()));
        }
        Ok(found)
    }

    /// Forgets every number: call it after a change to any number has committed.
    pub fn forget_all(&self) {
        self.generation.fetch_add(1, Ordering::SeqCst);
        self.map().clear();
    }
}

impl crate::platform::AppState {
    /// The numbers the webhook looks up.
    pub fn numbers(&self) -> &NumberCache {
        self.part::<std::sync::Arc<NumberCache>>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_forgets_what_was_remembered() {
        let cache = NumberCache::default();
        cache
            .map()
            .insert("+14155550100".into(), (Instant::now(), None));
        let before = cache.generation.load(Ordering::SeqCst);
        cache.forget_all();
        assert!(cache.map().is_empty());
        assert_eq!(cache.generation.load(Ordering::SeqCst), before + 1);
    }
}
