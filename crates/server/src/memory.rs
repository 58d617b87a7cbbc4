//! Giving memory back to the system once a burst is over.
//!
//! glibc's allocator keeps freed memory in its arenas for the next
//! allocation: after 800 websockets closed, or a load test ended, the
//! process stayed at its peak. Every [`CHECK_EVERY`] this task looks at what
//! the node did since its last look; when sockets closed, or the node went
//! quiet after being busy, it asks glibc to return its free pages
//! (`malloc_trim`), which takes a few milliseconds on a blocking thread.
//! Under steady load it does nothing: that memory is in use.

use std::time::Duration;

use crate::metrics::Metrics;

const CHECK_EVERY: Duration = Duration::from_secs(2);

/// Runs until the runtime stops.
pub async fn return_freed_memory(
    metrics: Metrics,
    realtime: Option<plinth_realtime::RealtimeState>,
) {
    let sockets_open = move || realtime.as_ref().map_or(0, |r| r.stats().sockets);
    let mut last_served = metrics.served();
    let mut last_sockets = sockets_open();
    let mut busy = false;
    let mut ticks = tokio::time::interval(CHECK_EVERY);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let served = metrics.served();
        let sockets = sockets_open();
        let quiet = served == last_served;
        if sockets < last_sockets || (quiet && busy) {
            let _ = tokio::task::spawn_blocking(trim).await;
            busy = false;
        }
        if !quiet {
            busy = true;
        }
        last_served = served;
        last_sockets = sockets;
    }
}

/// Caps glibc's malloc arenas at one per core (at least two), unless
/// `MALLOC_ARENA_MAX` is set. glibc's default (eight per core) spreads the
/// blocking threads' allocations over many arenas that fragment and keep
/// their pages: after a mixed load the node stayed 45 MB above idle; with
/// one arena per core it comes back to within 10 MB, and serves no slower.
/// Call it first thing in `main`, before any thread starts.
pub fn limit_malloc_arenas() {
    if std::env::var_os("MALLOC_ARENA_MAX").is_some() {
        return;
    }
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    set_arena_max(cores.max(2));
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn set_arena_max(arenas: usize) {
    let arenas = libc::c_int::try_from(arenas).unwrap_or(libc::c_int::MAX);
    // SAFETY: mallopt only changes the allocator's own settings; called
    // before other threads exist.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, arenas);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn set_arena_max(_arenas: usize) {}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn trim() {
    // SAFETY: malloc_trim only walks the allocator's own free lists; it is
    // safe to call from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn trim() {}
