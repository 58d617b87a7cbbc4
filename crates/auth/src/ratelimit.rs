//! Fixed-window request counters and per-key cool-downs, in memory, per
//! server process; and the platform's limits on top of them: requests per
//! client (its address, or the value of `GOTRUE_RATE_LIMIT_HEADER`), and
//! e-mails / SMS sent by the whole instance.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::AuthState;
use crate::error::{AuthError, Result};
use crate::handlers::Input;

/// Who a request is counted against: the first value of the configured
/// `GOTRUE_RATE_LIMIT_HEADER`, or the client's address when none is
/// configured. `None` (not limited, as the platform does) when the header is
/// configured but the request has no value in it.
pub(crate) fn client_key(state: &AuthState, input: &Input) -> Option<String> {
    let Some(name) = state.config().rate_limits.header.as_deref() else {
        return Some(input.ip.clone());
    };
    let value = input.headers.get(name)?.to_str().ok()?;
    let first = value.split(',').next().unwrap_or("").trim();
    (!first.is_empty()).then(|| first.to_owned())
}

/// Counts one request of this client in `bucket` against `limit` per
/// [`crate::RateLimits::window`]; 429 `over_request_rate_limit` when over.
pub(crate) fn limit_request(
    state: &AuthState,
    input: &Input,
    bucket: &str,
    limit: u32,
) -> Result<()> {
    limit_request_in(
        state,
        input,
        bucket,
        limit,
        state.config().rate_limits.window,
    )
}

/// As [`limit_request`], over a window of its own.
pub(crate) fn limit_request_in(
    state: &AuthState,
    input: &Input,
    bucket: &str,
    limit: u32,
    window: Duration,
) -> Result<()> {
    let Some(key) = client_key(state, input) else {
        return Ok(());
    };
    if state
        .limiter()
        .hit_in(&format!("{bucket}:{key}"), limit, window)
    {
        Ok(())
    } else {
        Err(AuthError::rate_limited())
    }
}

/// One more e-mail from this instance (`GOTRUE_RATE_LIMIT_EMAIL_SENT`); 429
/// `over_email_send_rate_limit` "email rate limit exceeded" when over.
pub(crate) fn email_sent(state: &AuthState) -> Result<()> {
    let rate = state.config().rate_limits.email_sent;
    if state.limiter().hit_in("sent:email", rate.events, rate.over) {
        Ok(())
    } else {
        Err(AuthError::api(
            axum::http::StatusCode::TOO_MANY_REQUESTS,
            "over_email_send_rate_limit",
            "email rate limit exceeded",
        ))
    }
}

/// One more SMS from this instance (`GOTRUE_RATE_LIMIT_SMS_SENT`); 429
/// `over_sms_send_rate_limit` "SMS rate limit exceeded" when over. For the
/// SMS sender to call before each message.
pub(crate) fn sms_sent(state: &AuthState) -> Result<()> {
    let rate = state.config().rate_limits.sms_sent;
    if state.limiter().hit_in("sent:sms", rate.events, rate.over) {
        Ok(())
    } else {
        Err(AuthError::api(
            axum::http::StatusCode::TOO_MANY_REQUESTS,
            "over_sms_send_rate_limit",
            "SMS rate limit exceeded",
        ))
    }
}

/// Counts hits per key in windows of a fixed length, and remembers when a
/// key was last let through a cool-down.
#[derive(Debug)]
pub struct Limiter {
    window: Duration,
    /// Per key: when its window started, its length, and the hits in it.
    counts: Mutex<HashMap<String, (Instant, Duration, u32)>>,
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
        self.hit_in_at(key, limit, self.window, now)
    }

    /// As [`Self::hit`], in windows of `window` for this key.
    pub fn hit_in(&self, key: &str, limit: u32, window: Duration) -> bool {
        self.hit_in_at(key, limit, window, Instant::now())
    }

    fn hit_in_at(&self, key: &str, limit: u32, window: Duration, now: Instant) -> bool {
        if limit == u32::MAX {
            return true;
        }
        self.add_in_at(key, window, now) <= limit
    }

    /// Records one hit on `key` whatever the limit; the count in the window.
    pub fn add(&self, key: &str) -> u32 {
        self.add_at(key, Instant::now())
    }

    fn add_at(&self, key: &str, now: Instant) -> u32 {
        self.add_in_at(key, self.window, now)
    }

    fn add_in_at(&self, key: &str, window: Duration, now: Instant) -> u32 {
        let mut counts = lock(&self.counts);
        // Forget finished windows now and then, so the map stays small.
        if counts.len() > PRUNE_AT {
            counts.retain(|_, (start, length, _)| now.duration_since(*start) < *length);
        }
        let entry = counts.entry(key.to_owned()).or_insert((now, window, 0));
        if now.duration_since(entry.0) >= entry.1 {
            *entry = (now, window, 0);
        }
        entry.2 = entry.2.saturating_add(1);
        entry.2
    }

    /// Takes back one hit on `key` (an attempt that turned out fine).
    pub fn undo(&self, key: &str) {
        if let Some(entry) = lock(&self.counts).get_mut(key) {
            entry.2 = entry.2.saturating_sub(1);
        }
    }

    /// Hits on `key` in the current window.
    pub fn count(&self, key: &str) -> u32 {
        self.count_at(key, Instant::now())
    }

    fn count_at(&self, key: &str, now: Instant) -> u32 {
        lock(&self.counts)
            .get(key)
            .filter(|(start, length, _)| now.duration_since(*start) < *length)
            .map_or(0, |(_, _, n)| *n)
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
    fn keys_may_have_windows_of_their_own() {
        let limiter = Limiter::new(Duration::from_secs(60));
        let start = Instant::now();
        let hour = Duration::from_secs(3600);
        assert!(limiter.hit_in_at("h", 1, hour, start));
        // Past the limiter's window, still inside the key's own.
        assert!(!limiter.hit_in_at("h", 1, hour, start + Duration::from_secs(600)));
        assert!(limiter.hit_in_at("h", 1, hour, start + Duration::from_secs(3601)));
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
