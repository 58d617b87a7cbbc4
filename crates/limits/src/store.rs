//! The keys' GCRA states: one atomic "theoretical arrival time" per key (in
//! nanoseconds since the limiter started; 0: never seen) in a sharded map,
//! as `governor`'s own dashmap store keeps them, plus what its store cannot
//! do: answer a question without keeping the answer, take a call back, and
//! count the keys added since the last sweep.

use std::num::NonZeroU64;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use dashmap::DashMap;
use governor::nanos::Nanos;
use governor::state::StateStore;
use governor::state::keyed::ShrinkableKeyedStateStore;

/// A key as the limiter hands it to the store: its hash, and whether the
/// decision is kept (`false`: a peek).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Probe {
    pub hash: u64,
    pub commit: bool,
}

#[derive(Clone, Default)]
pub(crate) struct Store {
    states: Arc<DashMap<u64, AtomicU64>>,
    inserted: Arc<AtomicUsize>,
}

fn nanos(raw: u64) -> Option<Nanos> {
    NonZeroU64::new(raw).map(|n| Nanos::from(n.get()))
}

impl Store {
    pub fn len(&self) -> usize {
        self.states.len()
    }

    /// Moves a key's state back by one call's worth (`every`); a key back
    /// to fresh reads as never seen.
    pub fn refund(&self, hash: u64, every: std::time::Duration) {
        let Some(state) = self.states.get(&hash) else {
            return;
        };
        let every = u64::try_from(every.as_nanos()).unwrap_or(u64::MAX);
        let _ = state.fetch_update(Ordering::AcqRel, Ordering::Acquire, |seen| {
            (seen != 0).then(|| seen.saturating_sub(every))
        });
    }

    pub fn clear(&self) {
        self.states.clear();
    }

    /// Keys added since [`Self::reset_inserted`].
    pub fn inserted(&self) -> usize {
        self.inserted.load(Ordering::Relaxed)
    }

    pub fn reset_inserted(&self) {
        self.inserted.store(0, Ordering::Relaxed);
    }

    /// Gives memory back when most of the map's room is unused.
    pub fn shrink_if_sparse(&self) {
        if self.states.capacity() > 4 * self.states.len().max(1024) {
            self.states.shrink_to_fit();
        }
    }
}

/// The compare-and-swap loop of one state: `decide` sees the current value
/// (again after a lost race) and its new value is stored when it allows.
fn measure<T, E, F>(state: &AtomicU64, decide: F) -> Result<T, E>
where
    F: Fn(Option<Nanos>) -> Result<(T, Nanos), E>,
{
    let mut seen = state.load(Ordering::Acquire);
    loop {
        let (outcome, next) = decide(nanos(seen))?;
        match state.compare_exchange_weak(seen, next.into(), Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => return Ok(outcome),
            Err(now) => seen = now,
        }
    }
}

impl StateStore for Store {
    type Key = Probe;

    fn measure_and_replace<T, F, E>(&self, key: &Probe, decide: F) -> Result<T, E>
    where
        F: Fn(Option<Nanos>) -> Result<(T, Nanos), E>,
    {
        if !key.commit {
            let seen = self
                .states
                .get(&key.hash)
                .map_or(0, |s| s.load(Ordering::Acquire));
            return decide(nanos(seen)).map(|(outcome, _)| outcome);
        }
        if let Some(state) = self.states.get(&key.hash) {
            return measure(&state, decide);
        }
        // A new key starts as "never seen".
        let state = self.states.entry(key.hash).or_insert_with(|| {
            self.inserted.fetch_add(1, Ordering::Relaxed);
            AtomicU64::new(0)
        });
        measure(&state, decide)
    }
}

impl ShrinkableKeyedStateStore<Probe> for Store {
    fn retain_recent(&self, drop_below: Nanos) {
        let below = u64::from(drop_below);
        self.states
            .retain(|_, state| state.load(Ordering::Relaxed) > below);
    }

    fn len(&self) -> usize {
        self.states.len()
    }

    fn is_empty(&self) -> bool {
        self.states.is_empty()
    }
}
