//! The rate limiter's cost per call however many clients it holds: checks
//! of one key against a limiter that holds `held` live keys (each client
//! spent its whole budget of one call an hour, so none goes stale), next to
//! the same checks against a limiter that holds none, in the same run.

use std::hint::black_box;
use std::time::{Duration, Instant};

use plinth_limits::{Budget, Limiter};

/// Calls per second of `call` for about `duration`.
fn rate(duration: Duration, mut call: impl FnMut(u64)) -> f64 {
    let started = Instant::now();
    let mut n = 0u64;
    while started.elapsed() < duration {
        for _ in 0..1024 {
            call(n);
            n += 1;
        }
    }
    n as f64 / started.elapsed().as_secs_f64()
}

pub fn run(held: u64, duration: Duration) {
    let budget = Budget::per(1, Duration::from_secs(3600));
    println!(
        "limiter bench: checks of one client, {} s each",
        duration.as_secs()
    );
    let empty = Limiter::new("bench", budget);
    let baseline = rate(duration, |n| {
        black_box(empty.check(("client", n % 64)).ok());
    });
    println!(
        "  with 64 clients held (baseline) {:>12.0} checks/s",
        baseline
    );

    let full = Limiter::new("bench", budget).max_keys(held as usize * 2);
    let filled = Instant::now();
    for client in 0..held {
        let _ = full.check(("held", client));
    }
    let fill = filled.elapsed();
    let stats = full.stats();
    let loaded = rate(duration, |n| {
        black_box(full.check(("client", n % 64)).ok());
    });
    println!(
        "  with {held} clients held       {loaded:>12.0} checks/s ({} keys kept; adding them took {:.0} ms and sweeps that looked at {} states)",
        stats.keys,
        fill.as_secs_f64() * 1000.0,
        stats.swept,
    );
    println!(
        "  ratio: checks/s with {held} clients held per checks/s with 64 = {:.2} (1.0: a check costs the same however many clients are held)",
        loaded / baseline
    );
}
