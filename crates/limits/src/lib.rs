//! Keyed rate limits, in memory, per node: the one limiter of auth, the
//! marketplace, storage and the console.
//!
//! * Each key has a budget ([`Budget`]): `burst` calls at once, then one more
//!   every `every` (GCRA, through `governor`: no double burst at a window's
//!   edge, and the wait a 429's `Retry-After` names).
//! * O(1) work per call: a key is hashed once (SipHash under a key of the
//!   limiter's own, so nobody can aim keys at one bucket) and its state is
//!   one atomic in a sharded map. Keys whose state is back to "fresh" are
//!   swept out after as many new keys as the map held after the last sweep,
//!   so a sweep's work is paid for by the insertions before it.
//! * Bounded memory: 16 bytes of state per key; past [`Limiter::max_keys`]
//!   live keys after a sweep (a flood of distinct clients), the limiter
//!   forgets every key and says so in the log, rather than grow or refuse
//!   everyone.
//! * A key can be looked at without being counted ([`Limiter::peek`]), and
//!   a call counted can be taken back ([`Limiter::refund`]): "count the
//!   attempt first, take it back when it turned out right" keeps a burst of
//!   wrong guesses from slipping past, and counts only the wrong ones.

mod store;

use std::hash::{BuildHasher, Hash, RandomState};
use std::net::{IpAddr, Ipv6Addr};
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::middleware::NoOpMiddleware;
use governor::{Quota, RateLimiter};

use store::{Probe, Store};

/// What one key may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// Never refused; nothing is kept.
    Unlimited,
    /// Always refused, with this as the wait.
    Closed(Duration),
    /// `burst` at once, then one more every `every`.
    Rate { burst: NonZeroU32, every: Duration },
}

impl Budget {
    /// `events` per `window`: all of them at once, then one more every
    /// `window / events`. No events: closed; `u32::MAX` events or a zero
    /// window: unlimited.
    pub fn per(events: u32, window: Duration) -> Self {
        if events == u32::MAX || window.is_zero() {
            return Self::Unlimited;
        }
        match NonZeroU32::new(events) {
            None => Self::Closed(window),
            Some(burst) => Self::Rate {
                burst,
                every: window / events,
            },
        }
    }

    /// `burst` at once, then one more every `every`: past a burst of
    /// failures, a key is locked out for `every` per try.
    pub fn burst_then_every(burst: u32, every: Duration) -> Self {
        if burst == u32::MAX || every.is_zero() {
            return Self::Unlimited;
        }
        match NonZeroU32::new(burst) {
            None => Self::Closed(every),
            Some(burst) => Self::Rate { burst, every },
        }
    }
}

/// What a limiter holds, for `/metrics` and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Keys with a state now.
    pub keys: usize,
    /// Key states looked at by sweeps since the start (the only work that
    /// is not per call).
    pub swept: u64,
    /// Times every key was forgotten at once (over `max_keys`).
    pub overflows: u64,
}

/// Fewest new keys between two sweeps.
const MIN_SWEEP_AFTER: usize = 1024;
/// Most keys kept after a sweep (about 4 MB of states and map).
pub const DEFAULT_MAX_KEYS: usize = 200_000;

type Gcra<C> = RateLimiter<Probe, Store, C, NoOpMiddleware<<C as Clock>::Instant>>;

enum Kind<C: Clock> {
    Unlimited,
    Closed(Duration),
    /// The limiter, and the time one call adds to a key's state.
    Gcra(Box<Gcra<C>>, Duration),
}

/// One budget per key.
pub struct Limiter<C: Clock = DefaultClock> {
    name: &'static str,
    kind: Kind<C>,
    store: Store,
    hasher: RandomState,
    clock: C,
    max_keys: usize,
    /// New keys before the next sweep.
    sweep_after: AtomicUsize,
    sweeping: AtomicBool,
    swept: AtomicU64,
    overflows: AtomicU64,
}

impl<C: Clock> std::fmt::Debug for Limiter<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Limiter")
            .field("name", &self.name)
            .field("keys", &self.store.len())
            .finish_non_exhaustive()
    }
}

impl Limiter {
    /// A limiter named `name` (in its log lines) giving every key `budget`.
    pub fn new(name: &'static str, budget: Budget) -> Self {
        Self::with_clock(name, budget, DefaultClock::default())
    }
}

impl<C: Clock + Clone> Limiter<C> {
    /// [`Limiter::new`] on another clock (tests move a fake one).
    pub fn with_clock(name: &'static str, budget: Budget, clock: C) -> Self {
        let store = Store::default();
        let kind = match budget {
            Budget::Unlimited => Kind::Unlimited,
            Budget::Closed(wait) => Kind::Closed(wait),
            Budget::Rate { burst, every } => match Quota::with_period(every) {
                Some(quota) => Kind::Gcra(
                    Box::new(RateLimiter::new(
                        quota.allow_burst(burst),
                        store.clone(),
                        clock.clone(),
                    )),
                    every,
                ),
                None => Kind::Unlimited,
            },
        };
        Self {
            name,
            kind,
            store,
            hasher: RandomState::new(),
            clock,
            max_keys: DEFAULT_MAX_KEYS,
            sweep_after: AtomicUsize::new(MIN_SWEEP_AFTER),
            sweeping: AtomicBool::new(false),
            swept: AtomicU64::new(0),
            overflows: AtomicU64::new(0),
        }
    }

    /// Keeps at most `max` keys after a sweep (at least 1).
    pub fn max_keys(mut self, max: usize) -> Self {
        self.max_keys = max.max(1);
        self
    }

    /// Counts one call of `key`: `Err(wait)` when its budget is spent (the
    /// call is then not counted).
    pub fn check(&self, key: impl Hash) -> Result<(), Duration> {
        self.decide(key, true)
    }

    /// Whether a call of `key` would pass now, without counting it.
    pub fn peek(&self, key: impl Hash) -> Result<(), Duration> {
        self.decide(key, false)
    }

    /// Takes back one counted call of `key` (an attempt that turned out
    /// fine), as if it had not been made.
    pub fn refund(&self, key: impl Hash) {
        if let Kind::Gcra(_, every) = &self.kind {
            self.store.refund(self.hasher.hash_one(key), *every);
        }
    }

    pub fn stats(&self) -> Stats {
        Stats {
            keys: self.store.len(),
            swept: self.swept.load(Ordering::Relaxed),
            overflows: self.overflows.load(Ordering::Relaxed),
        }
    }

    pub fn name(&self) -> &'static str {
        self.name
    }

    fn decide(&self, key: impl Hash, commit: bool) -> Result<(), Duration> {
        let gcra = match &self.kind {
            Kind::Unlimited => return Ok(()),
            Kind::Closed(wait) => return Err(*wait),
            Kind::Gcra(gcra, _) => gcra,
        };
        let probe = Probe {
            hash: self.hasher.hash_one(key),
            commit,
        };
        let decision = gcra
            .check_key(&probe)
            .map_err(|not_until| not_until.wait_time_from(self.clock.now()));
        if commit {
            self.sweep_if_due(gcra);
        }
        decision
    }

    /// Sweeps out fresh-again keys once as many keys were added as the map
    /// held after the last sweep (so each sweep is paid for by those
    /// insertions); past `max_keys` live keys, forgets them all.
    fn sweep_if_due(&self, gcra: &Gcra<C>) {
        if self.store.inserted() < self.sweep_after.load(Ordering::Relaxed)
            || self.sweeping.swap(true, Ordering::Acquire)
        {
            return;
        }
        let before = self.store.len();
        gcra.retain_recent();
        self.swept.fetch_add(before as u64, Ordering::Relaxed);
        let mut left = self.store.len();
        if left > self.max_keys {
            self.store.clear();
            self.overflows.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(
                limiter = self.name,
                keys = left,
                max = self.max_keys,
                "more clients at their limits at once than the limiter keeps: forgot them all"
            );
            left = 0;
        }
        self.store.shrink_if_sparse();
        self.store.reset_inserted();
        self.sweep_after
            .store(left.max(MIN_SWEEP_AFTER), Ordering::Relaxed);
        self.sweeping.store(false, Ordering::Release);
    }
}

/// The key of a client address: an IPv4 address (also one mapped into
/// IPv6) as it is, an IPv6 address by its /64 (what one subscriber gets),
/// anything else as it is.
pub fn address_key(address: &str) -> String {
    match address.trim().parse::<IpAddr>() {
        Ok(IpAddr::V6(v6)) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let prefix = u128::from(v6) & !((1u128 << 64) - 1);
                format!("{}/64", Ipv6Addr::from(prefix))
            }
        },
        Ok(IpAddr::V4(v4)) => v4.to_string(),
        Err(_) => address.trim().to_owned(),
    }
}

/// Whole seconds for a `Retry-After` of `wait` (at least 1).
pub fn retry_after_secs(wait: Duration) -> u64 {
    wait.as_secs_f64().ceil().max(1.0) as u64
}

#[cfg(test)]
mod tests;
