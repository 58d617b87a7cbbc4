//! Fixed-window request counters and per-key cool-downs, in memory, per
//! server process.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Counts hits per key in windows of a fixed length, and remembers when a
/// key was last let through a cool-down.
#[derive(Debug)]
pub struct Limiter {
    window: Duration,
    counts: Mutex<HashMap<String, (Instant, u32)>>,
    last: Mutex<HashMap<String, Instant>>,
}

/// Most keys kept before finished windows and cool-downs are forgotten.
const PRUNE_AT: usize = 10_000;

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

impl Limiter {
    pub fn new(window: Duration) -> Self {
        Self {
            window,
            counts: Mutex::new(HashMap::new()),
            last: Mutex::new(HashMap::new()),
        }
    }

    /// Records one hit on `key`; false when that exceeds `limit` in the
    /// current window.
    pub fn hit(&self, key: &str, limit: u32) -> bool {
        self.hit_at(key, limit, Instant::now())
    }

    fn hit_at(&self, key: &str, limit: u32, now: Instant) -> bool {
        if limit == u32::MAX {
            return true;
        }
        self.add_at(key, now) <= limit
    }

    /// Records one hit on `key` whatever the limit; the count in the window.
    pub fn add(&self, key: &str) -> u32 {
        self.add_at(key, Instant::now())
    }

    fn add_at(&self, key: &str, now: Instant) -> u32 {
        let mut counts = lock(&self.counts);
        // Forget finished windows now and then, so the map stays small.
        if counts.len() > PRUNE_AT {
            let window = self.window;
            counts.retain(|_, (start, _)| now.duration_since(*start) < window);
        }
        let entry = counts.entry(key.to_owned()).or_insert((now, 0));
        if now.duration_since(entry.0) >= self.window {
            *entry = (now, 0);
        }
        entry.1 = entry.1.saturating_add(1);
        entry.1
    }

    /// Takes back one hit on `key` (an attempt that turned out fine).
    pub fn undo(&self, key: &str) {
        if let Some(entry) = lock(&self.counts).get_mut(key) {
            entry.1 = entry.1.saturating_sub(1);
        }
    }

    /// Hits on `key` in the current window.
    pub fn count(&self, key: &str) -> u32 {
        self.count_at(key, Instant::now())
    }

    fn count_at(&self, key: &str, now: Instant) -> u32 {
        lock(&self.counts)
            .get(key)
            .filter(|(start, _)| now.duration_since(*start) < self.window)
            .map_or(0, |(_, n)| *n)
    }

    /// Lets `key` through at most once per `every`: `Err(wait)` with the time
    /// left when it went through less than `every` ago.
    pub fn cooldown(&self, key: &str, every: Duration) -> Result<(), Duration> {
        self.cooldown_at(key, every, Instant::now())
    }

    fn cooldown_at(&self, key: &str, every: Duration, now: Instant) -> Result<(), Duration> {
        if every.is_zero() {
            return Ok(());
        }
        let mut last = lock(&self.last);
        if last.len() > PRUNE_AT {
            last.retain(|_, at| now.duration_since(*at) < every);
        }
        if let Some(at) = last.get(key) {
            let since = now.duration_since(*at);
            if since < every {
                return Err(every - since);
            }
        }
        last.insert(key.to_owned(), now);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_per_key_and_resets_per_window() {
        let limiter = Limiter::new(Duration::from_secs(60));
        let start = Instant::now();
        assert!(limiter.hit_at("a", 2, start));
        assert!(limiter.hit_at("a", 2, start));
        assert!(!limiter.hit_at("a", 2, start));
        assert!(limiter.hit_at("b", 2, start));
        assert!(limiter.hit_at("a", 2, start + Duration::from_secs(61)));
        assert!(limiter.hit_at("z", u32::MAX, start));
    }

    #[test]
    fn hits_can_be_counted_and_taken_back() {
        let limiter = Limiter::new(Duration::from_secs(60));
        let start = Instant::now();
        assert_eq!(limiter.count_at("k", start), 0);
        assert_eq!(limiter.add_at("k", start), 1);
        assert_eq!(limiter.add_at("k", start), 2);
        limiter.undo("k");
        assert_eq!(limiter.count_at("k", start), 1);
        assert_eq!(limiter.count_at("k", start + Duration::from_secs(61)), 0);
        limiter.undo("never-seen");
    }

    #[test]
    fn cooldowns_tell_the_time_left() {
        let limiter = Limiter::new(Duration::from_secs(300));
        let start = Instant::now();
        let every = Duration::from_secs(60);
        assert_eq!(limiter.cooldown_at("a", every, start), Ok(()));
        assert_eq!(
            limiter.cooldown_at("a", every, start + Duration::from_secs(15)),
            Err(Duration::from_secs(45))
        );
        assert_eq!(limiter.cooldown_at("b", every, start), Ok(()));
        assert_eq!(
            limiter.cooldown_at("a", every, start + Duration::from_secs(60)),
            Ok(())
        );
        assert_eq!(limiter.cooldown_at("a", Duration::ZERO, start), Ok(()));
    }
}
