//! Fixed-window request counters, in memory, per server process.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Counts hits per key in windows of a fixed length.
#[derive(Debug)]
pub struct Limiter {
    window: Duration,
    counts: Mutex<HashMap<String, (Instant, u32)>>,
}

impl Limiter {
    pub fn new(window: Duration) -> Self {
        Self {
            window,
            counts: Mutex::new(HashMap::new()),
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
        let mut counts = match self.counts.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        // Forget finished windows now and then, so the map stays small.
        if counts.len() > 10_000 {
            let window = self.window;
            counts.retain(|_, (start, _)| now.duration_since(*start) < window);
        }
        let entry = counts.entry(key.to_owned()).or_insert((now, 0));
        if now.duration_since(entry.0) >= self.window {
            *entry = (now, 0);
        }
        entry.1 = entry.1.saturating_add(1);
        entry.1 <= limit
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
}
