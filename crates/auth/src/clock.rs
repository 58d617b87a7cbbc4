//! The service's notion of "now". Production reads the system clock; tests
//! use a manual clock they can move forward, so expiry is tested without
//! sleeping.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use chrono::{DateTime, Utc};

/// A clock: the system's, or the system's plus an offset a test advances.
#[derive(Debug, Clone, Default)]
pub struct Clock {
    /// Milliseconds added to the system time (0 in production).
    offset_ms: Arc<AtomicI64>,
}

impl Clock {
    /// The system clock.
    pub fn system() -> Self {
        Self::default()
    }

    pub fn now(&self) -> DateTime<Utc> {
        Utc::now() + chrono::Duration::milliseconds(self.offset_ms.load(Ordering::Relaxed))
    }

    /// Seconds since the epoch.
    pub fn timestamp(&self) -> i64 {
        self.now().timestamp()
    }

    /// Moves this clock (and every clone of it) forward.
    pub fn advance(&self, by: std::time::Duration) {
        let ms = i64::try_from(by.as_millis()).unwrap_or(i64::MAX);
        self.offset_ms.fetch_add(ms, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advancing_moves_every_clone() {
        let clock = Clock::system();
        let other = clock.clone();
        let before = other.timestamp();
        clock.advance(std::time::Duration::from_secs(3600));
        assert!(other.timestamp() >= before + 3600);
    }
}
