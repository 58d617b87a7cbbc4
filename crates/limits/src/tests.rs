use std::time::Duration;

use governor::clock::FakeRelativeClock;

use super::*;

fn limiter(budget: Budget) -> (Limiter<FakeRelativeClock>, FakeRelativeClock) {
    let clock = FakeRelativeClock::default();
    (Limiter::with_clock("test", budget, clock.clone()), clock)
}

#[test]
fn a_budget_is_a_burst_then_a_steady_rate() {
    let (limits, clock) = limiter(Budget::per(3, Duration::from_secs(60)));
    for _ in 0..3 {
        assert_eq!(limits.check("a"), Ok(()));
    }
    // One more every 20 s.
    let wait = limits.check("a").unwrap_err();
    assert!(
        wait > Duration::from_secs(19) && wait <= Duration::from_secs(20),
        "{wait:?}"
    );
    assert_eq!(
        limits.check("b"),
        Ok(()),
        "other keys have budgets of their own"
    );
    clock.advance(Duration::from_secs(20));
    assert_eq!(limits.check("a"), Ok(()));
    assert!(limits.check("a").is_err());
}

#[test]
fn a_peek_counts_nothing_and_a_refund_takes_one_call_back() {
    let (limits, _clock) = limiter(Budget::per(2, Duration::from_secs(60)));
    assert_eq!(limits.peek("k"), Ok(()));
    assert_eq!(limits.stats().keys, 0, "a peek keeps nothing");
    limits.check("k").unwrap();
    limits.check("k").unwrap();
    assert!(limits.peek("k").is_err());
    assert!(
        limits.peek("k").is_err(),
        "and peeking again still counts nothing"
    );
    // The second call turned out fine: only the first counts.
    limits.refund("k");
    assert_eq!(limits.peek("k"), Ok(()));
    assert_eq!(limits.check("k"), Ok(()));
    assert!(limits.check("k").is_err());
    // Refunds never make room for more than the budget.
    limits.refund("k");
    limits.refund("k");
    limits.refund("k");
    limits.refund("never-seen");
    assert_eq!(limits.check("k"), Ok(()));
    assert_eq!(limits.check("k"), Ok(()));
    assert!(limits.check("k").is_err());
}

#[test]
fn a_lock_out_after_a_burst() {
    let (limits, clock) = limiter(Budget::burst_then_every(5, Duration::from_secs(300)));
    for _ in 0..5 {
        limits.check(("factor", 7)).unwrap();
    }
    let wait = limits.check(("factor", 7)).unwrap_err();
    assert!(wait > Duration::from_secs(299), "{wait:?}");
    clock.advance(Duration::from_secs(299));
    assert!(limits.check(("factor", 7)).is_err());
    clock.advance(Duration::from_secs(1));
    assert_eq!(limits.check(("factor", 7)), Ok(()));
}

#[test]
fn unlimited_and_closed_budgets() {
    let (open, _) = limiter(Budget::per(u32::MAX, Duration::from_secs(60)));
    for _ in 0..10_000 {
        open.check("x").unwrap();
    }
    assert_eq!(open.stats().keys, 0, "an unlimited budget keeps nothing");
    assert_eq!(
        Budget::per(10, Duration::ZERO),
        Budget::Unlimited,
        "a zero window limits nothing"
    );
    let (closed, _) = limiter(Budget::per(0, Duration::from_secs(3600)));
    assert_eq!(closed.check("x"), Err(Duration::from_secs(3600)));
    assert_eq!(
        Budget::burst_then_every(0, Duration::from_secs(5)),
        Budget::Closed(Duration::from_secs(5))
    );
}

/// The work that is not per call (sweeps) is paid for by insertions: with
/// 100,000 clients at their limits at once, sweeps look at each state a
/// small constant number of times, not once per call.
#[test]
fn sweeps_are_paid_for_by_new_keys() {
    let (limits, _clock) = limiter(Budget::per(1, Duration::from_secs(300)));
    let clients = 100_000u64;
    for client in 0..clients {
        limits.check(client).unwrap();
        // Every call after the first of a key is refused: counted nothing.
        assert!(limits.check(client).is_err());
    }
    let stats = limits.stats();
    assert_eq!(stats.keys, clients as usize);
    assert!(
        stats.swept <= 2 * clients,
        "{} states swept for {clients} keys",
        stats.swept
    );
    assert_eq!(stats.overflows, 0);
}

#[test]
fn keys_back_to_fresh_are_swept_out() {
    let (limits, clock) = limiter(Budget::per(2, Duration::from_secs(60)));
    for client in 0..5_000u64 {
        limits.check(client).unwrap();
    }
    clock.advance(Duration::from_secs(61));
    for client in 5_000..10_000u64 {
        limits.check(client).unwrap();
    }
    let keys = limits.stats().keys;
    assert!(keys < 7_000, "{keys} keys kept");
}

/// A flood of distinct clients cannot grow the memory without bound: past
/// `max_keys` live keys the limiter forgets them all.
#[test]
fn memory_is_bounded() {
    let (limits, _clock) = limiter(Budget::per(1, Duration::from_secs(3600)));
    let limits = limits.max_keys(5_000);
    let mut most = 0;
    for client in 0..50_000u64 {
        limits.check(client).unwrap();
        most = most.max(limits.stats().keys);
    }
    assert!(most <= 2 * 5_000 + 1, "{most} keys at once");
    assert!(limits.stats().overflows > 0);
}

#[test]
fn concurrent_calls_never_exceed_the_budget() {
    let limits = std::sync::Arc::new(Limiter::new(
        "test",
        Budget::per(100, Duration::from_secs(3600)),
    ));
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let limits = limits.clone();
            std::thread::spawn(move || (0..100).filter(|_| limits.check("same").is_ok()).count())
        })
        .collect();
    let passed: usize = threads.into_iter().map(|t| t.join().unwrap()).sum();
    assert_eq!(passed, 100);
}

#[test]
fn addresses_are_keyed_by_subscriber() {
    assert_eq!(address_key("203.0.113.9"), "203.0.113.9");
    assert_eq!(address_key("::ffff:203.0.113.9"), "203.0.113.9");
    assert_eq!(address_key("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
    assert_eq!(
        address_key("2001:db8:1:2:ffff:ffff:ffff:ffff"),
        "2001:db8:1:2::/64"
    );
    assert_eq!(address_key("unknown"), "unknown");
}

#[test]
fn retry_after_is_whole_seconds_at_least_one() {
    assert_eq!(retry_after_secs(Duration::ZERO), 1);
    assert_eq!(retry_after_secs(Duration::from_millis(1500)), 2);
    assert_eq!(retry_after_secs(Duration::from_secs(60)), 60);
}
