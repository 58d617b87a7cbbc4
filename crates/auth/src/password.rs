//! Password hashing and strength rules.
//!
//! New hashes are argon2id PHC strings. Hashes imported from the platform
//! (or written by seed SQL with `crypt(password, gen_salt('bf'))`) are
//! bcrypt; they verify here and are replaced by argon2id after a successful
//! sign-in. Hashing is CPU-heavy, so it runs on the blocking thread pool, at most one
//! hash per core at a time.
//!
//! Sign-in checks go through a [`Checker`], so that how long an answer takes
//! does not tell whether an address has an account, nor what kind of hash it
//! has: a missing account (or one without a password) costs one argon2id hash
//! of the configured cost, like a current hash; checks of any other kind
//! and these are padded to the slowest of one another of late (a cheap bcrypt
//! hash of a seeded account answers no faster), but checks of this same kind
//! are not padded to each other (their times differ only by load).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{LazyLock, Mutex};
use std::time::{Duration, Instant};

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use rand::RngCore;
use tokio::sync::Semaphore;

use crate::config::HashCost;
use crate::error::{AuthError, Result};

/// What a stored hash says about a password.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Wrong password, or no usable hash.
    Mismatch,
    /// Right password, hash is current.
    Match,
    /// Right password, but the hash is of an old kind (bcrypt) or cost and
    /// should be replaced.
    MatchNeedsRehash,
}

fn hasher(cost: HashCost) -> Result<Argon2<'static>> {
    let params = Params::new(cost.memory_kib, cost.iterations, cost.parallelism, None)
        .map_err(AuthError::internal)?;
    Ok(Argon2::new(Algorithm::Argon2id, Version::V0x13, params))
}

/// An argon2id PHC string for `password` (blocking; see [`hash`]).
pub fn hash_blocking(password: &str, cost: HashCost) -> Result<String> {
    let mut salt = [0u8; 16];
    rand::rng().fill_bytes(&mut salt);
    let salt = SaltString::encode_b64(&salt).map_err(AuthError::internal)?;
    hasher(cost)?
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(AuthError::internal)
}

/// Checks `password` against a stored hash (blocking; see [`verify`]).
pub fn verify_blocking(password: &str, stored: &str, cost: HashCost) -> Verdict {
    if stored.starts_with("$argon2") {
        let Ok(parsed) = PasswordHash::new(stored) else {
            return Verdict::Mismatch;
        };
        // Verification uses the parameters inside the hash.
        if Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_err()
        {
            return Verdict::Mismatch;
        }
        let current = Params::try_from(&parsed).is_ok_and(|p| {
            p.m_cost() == cost.memory_kib
                && p.t_cost() == cost.iterations
                && p.p_cost() == cost.parallelism
        });
        if current && parsed.algorithm.as_str() == "argon2id" {
            Verdict::Match
        } else {
            Verdict::MatchNeedsRehash
        }
    } else if stored.starts_with("$2") {
        match bcrypt::verify(password, stored) {
            Ok(true) => Verdict::MatchNeedsRehash,
            _ => Verdict::Mismatch,
        }
    } else {
        Verdict::Mismatch
    }
}

/// Runs `work` (one hash) on the blocking pool, at most one per core at a
/// time. More at once would not finish sooner, only share the cores; and
/// each argon2id hash holds its memory cost (19 MiB by default) while it
/// runs, so a burst of sign-ins on the unbounded blocking pool could hold
/// hundreds of them at once. Callers beyond that wait their turn in order.
async fn on_hash_pool<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Result<T> {
    static SLOTS: LazyLock<Semaphore> = LazyLock::new(|| {
        Semaphore::new(std::thread::available_parallelism().map_or(1, |n| n.get()))
    });
    let _slot = SLOTS.acquire().await.map_err(AuthError::internal)?;
    tokio::task::spawn_blocking(work)
        .await
        .map_err(AuthError::internal)
}

/// [`hash_blocking`] on the hashing pool ([`on_hash_pool`]).
pub async fn hash(password: String, cost: HashCost) -> Result<String> {
    on_hash_pool(move || hash_blocking(&password, cost)).await?
}

/// [`verify_blocking`] on the hashing pool. `stored = None` still spends
/// the time of one hash, so unknown accounts answer as slowly as known ones.
pub async fn verify(password: String, stored: Option<String>, cost: HashCost) -> Result<Verdict> {
    on_hash_pool(move || match stored {
        Some(stored) => verify_blocking(&password, &stored, cost),
        None => {
            let _ = hash_blocking(&password, cost);
            Verdict::Mismatch
        }
    })
    .await
}

/// How fast the padding floor forgets a slow check: it halves every minute.
const FLOOR_HALF_LIFE: Duration = Duration::from_secs(60);
/// No check is padded beyond this (a stall of the machine must not make
/// every sign-in slow for long).
const FLOOR_MAX: Duration = Duration::from_secs(2);

/// Password checks of sign-ins that answer in the same time whether the
/// account exists, has no password, or has an argon2id or a bcrypt hash.
///
/// Most checks do the same work: one argon2id hash at the configured cost
/// (a current hash, or the stand-in for a missing account); they differ only
/// by the machine's load, so they are not padded to one another. Any other
/// check (bcrypt, another cost, an unusable hash) answers no sooner than the
/// slowest standard check of late, and standard checks answer no sooner than
/// the slowest other check of late: no kind of hash answers faster than
/// another.
#[derive(Debug)]
pub struct Checker {
    cost: HashCost,
    /// The slowest standard check of late and when it was measured; it decays.
    standard: Mutex<(Duration, Instant)>,
    /// The slowest other check of late, likewise.
    other: Mutex<(Duration, Instant)>,
    /// Hashes computed for accounts without a hash (missing or
    /// passwordless): the work an attacker must not see skipped.
    stand_ins: AtomicU64,
}

impl Checker {
    pub fn new(cost: HashCost) -> Self {
        Self {
            cost,
            standard: Mutex::new((Duration::ZERO, Instant::now())),
            other: Mutex::new((Duration::ZERO, Instant::now())),
            stand_ins: AtomicU64::new(0),
        }
    }

    /// Whether checking against `stored` is one argon2id hash at our cost.
    fn is_standard(&self, stored: Option<&str>) -> bool {
        let Some(stored) = stored else {
            return true;
        };
        PasswordHash::new(stored).is_ok_and(|parsed| {
            parsed.algorithm.as_str() == "argon2id"
                && Params::try_from(&parsed).is_ok_and(|p| {
                    p.m_cost() == self.cost.memory_kib
                        && p.t_cost() == self.cost.iterations
                        && p.p_cost() == self.cost.parallelism
                })
        })
    }

    /// Checks `password` against `stored` (`None`: no such account, or no
    /// password), spending a hash's work either way, and answers no sooner
    /// than the slowest check of another kind of late.
    pub async fn verify(&self, password: String, stored: Option<String>) -> Result<Verdict> {
        let started = Instant::now();
        if stored.is_none() {
            self.stand_ins.fetch_add(1, Ordering::Relaxed);
        }
        let standard = self.is_standard(stored.as_deref());
        let verdict = verify(password, stored, self.cost).await?;
        let spent = started.elapsed();
        let now = Instant::now();
        let floor = if standard {
            raise_floor(&self.standard, spent, now);
            raise_floor(&self.other, Duration::ZERO, now)
        } else {
            raise_floor(&self.other, spent, now).max(raise_floor(
                &self.standard,
                Duration::ZERO,
                now,
            ))
        };
        if spent < floor {
            tokio::time::sleep(floor - spent).await;
        }
        Ok(verdict)
    }

    /// How many stand-in hashes were computed.
    #[cfg(test)]
    pub fn stand_ins(&self) -> u64 {
        self.stand_ins.load(Ordering::Relaxed)
    }
}

/// Takes `spent` into `floor` (the larger of it and the decayed floor); the
/// floor to pad to.
fn raise_floor(floor: &Mutex<(Duration, Instant)>, spent: Duration, now: Instant) -> Duration {
    let mut floor = match floor.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    };
    let age = now.saturating_duration_since(floor.1);
    let decayed = floor
        .0
        .mul_f64(0.5f64.powf(age.as_secs_f64() / FLOOR_HALF_LIFE.as_secs_f64()));
    *floor = (decayed.max(spent).min(FLOOR_MAX), now);
    floor.0
}

/// Refuses passwords shorter than `min_length` characters (422
/// `weak_password`, reason `length`).
pub fn check_strength(password: &str, min_length: usize) -> Result<()> {
    if password.chars().count() < min_length {
        return Err(AuthError::WeakPassword {
            message: format!("Password should be at least {min_length} characters."),
            reasons: vec!["length"],
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn hashes_run_at_most_one_per_core_at_a_time() {
        use std::sync::Arc;
        use std::sync::atomic::AtomicUsize;
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let tasks: Vec<_> = (0..cores * 4)
            .map(|_| {
                let (running, most) = (running.clone(), most.clone());
                tokio::spawn(on_hash_pool(move || {
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(20));
                    running.fetch_sub(1, Ordering::SeqCst);
                }))
            })
            .collect();
        for task in tasks {
            task.await.unwrap().unwrap();
        }
        let most = most.load(Ordering::SeqCst);
        assert!(
            most >= 1 && most <= cores,
            "{most} at once on {cores} cores"
        );
    }

    #[test]
    fn argon2id_round_trip() {
        let cost = HashCost::cheap();
        let hash = hash_blocking("correct horse", cost).unwrap();
        assert!(hash.starts_with("$argon2id$"));
        assert_eq!(
            verify_blocking("correct horse", &hash, cost),
            Verdict::Match
        );
        assert_eq!(verify_blocking("wrong", &hash, cost), Verdict::Mismatch);
        // Stronger configured cost: still verifies, asks for a rehash.
        let stronger = HashCost {
            memory_kib: 128,
            ..cost
        };
        assert_eq!(
            verify_blocking("correct horse", &hash, stronger),
            Verdict::MatchNeedsRehash
        );
    }

    #[test]
    fn bcrypt_hashes_verify_and_ask_for_rehash() {
        let hash = bcrypt::hash("imported", 4).unwrap();
        let cost = HashCost::cheap();
        assert_eq!(
            verify_blocking("imported", &hash, cost),
            Verdict::MatchNeedsRehash
        );
        assert_eq!(verify_blocking("other", &hash, cost), Verdict::Mismatch);
        // pgcrypto writes `$2a$`.
        let pg = hash.replacen("$2b$", "$2a$", 1);
        assert_eq!(
            verify_blocking("imported", &pg, cost),
            Verdict::MatchNeedsRehash
        );
    }

    #[test]
    fn garbage_hashes_never_match() {
        let cost = HashCost::cheap();
        for stored in ["", "plain", "$argon2id$broken", "$2a$zz"] {
            assert_eq!(
                verify_blocking("x", stored, cost),
                Verdict::Mismatch,
                "{stored}"
            );
        }
    }

    #[tokio::test]
    async fn a_missing_account_costs_a_hash_and_as_long_as_a_bcrypt_one() {
        let checker = Checker::new(HashCost::cheap());
        // A seeded account: bcrypt, far slower than the cheap argon2id.
        let seeded = bcrypt::hash("imported", 8).unwrap();
        let started = Instant::now();
        let verdict = checker
            .verify("wrong".into(), Some(seeded.clone()))
            .await
            .unwrap();
        let bcrypt_took = started.elapsed();
        assert_eq!(verdict, Verdict::Mismatch);
        assert_eq!(checker.stand_ins(), 0);

        // A missing account: a stand-in hash, then padded to the bcrypt time.
        let started = Instant::now();
        let verdict = checker.verify("wrong".into(), None).await.unwrap();
        let missing_took = started.elapsed();
        assert_eq!(verdict, Verdict::Mismatch);
        assert_eq!(checker.stand_ins(), 1);
        assert!(
            missing_took * 10 >= bcrypt_took * 9,
            "missing {missing_took:?}, bcrypt {bcrypt_took:?}"
        );
        // So is a cheap argon2id account, right or wrong.
        let argon = hash_blocking("right", HashCost::cheap()).unwrap();
        for attempt in ["right", "wrong"] {
            let started = Instant::now();
            checker
                .verify(attempt.into(), Some(argon.clone()))
                .await
                .unwrap();
            assert!(started.elapsed() * 10 >= bcrypt_took * 9, "{attempt}");
        }
        assert_eq!(checker.stand_ins(), 1);
    }

    #[tokio::test]
    async fn standard_checks_are_not_padded_to_each_other_but_others_are() {
        let cost = HashCost::cheap();
        let checker = Checker::new(cost);
        let current = hash_blocking("right", cost).unwrap();
        assert!(checker.is_standard(Some(&current)));
        assert!(checker.is_standard(None));
        assert!(!checker.is_standard(Some("garbage")));
        let stronger = hash_blocking(
            "right",
            HashCost {
                memory_kib: 128,
                ..cost
            },
        )
        .unwrap();
        assert!(!checker.is_standard(Some(&stronger)));
        // A standard check that took long (a busy moment).
        let slow = Duration::from_millis(400);
        raise_floor(&checker.standard, slow, Instant::now());
        let started = Instant::now();
        checker
            .verify("right".into(), Some(current.clone()))
            .await
            .unwrap();
        assert!(started.elapsed() < slow, "{:?}", started.elapsed());
        // An unusable hash costs nothing, but answers as late as that one.
        let started = Instant::now();
        let verdict = checker
            .verify("right".into(), Some("garbage".into()))
            .await
            .unwrap();
        assert_eq!(verdict, Verdict::Mismatch);
        assert!(
            started.elapsed() * 10 >= slow * 9,
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn the_floor_decays_and_is_capped() {
        let floor = Mutex::new((Duration::ZERO, Instant::now()));
        let start = Instant::now();
        assert_eq!(
            raise_floor(&floor, Duration::from_millis(80), start),
            Duration::from_millis(80)
        );
        let later = raise_floor(&floor, Duration::from_millis(1), start + FLOOR_HALF_LIFE);
        assert!(
            later > Duration::from_millis(39) && later < Duration::from_millis(41),
            "{later:?}"
        );
        let capped = raise_floor(&floor, Duration::from_secs(30), start + FLOOR_HALF_LIFE);
        assert_eq!(capped, FLOOR_MAX);
    }

    #[test]
    fn strength_counts_characters() {
        assert!(check_strength("12345", 6).is_err());
        assert!(check_strength("123456", 6).is_ok());
        assert!(check_strength("ääääää", 6).is_ok());
    }
}
