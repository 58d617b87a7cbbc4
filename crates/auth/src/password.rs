//! Password hashing and strength rules.
//!
//! New hashes are argon2id PHC strings. Hashes imported from the platform
//! (or written by seed SQL with `crypt(password, gen_salt('bf'))`) are
//! bcrypt; they verify here and are replaced by argon2id after a successful
//! sign-in. Hashing is CPU-heavy, so it runs on threads of its own, one per
//! core, never on the async workers.
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

use argon2::password_hash::{Output, ParamsString, PasswordHash, Salt, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use rand::RngCore;

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

/// The memory one argon2 hash works in (its memory cost: 19 MiB by
/// default). Kept from one hash to the next while sign-ins queue (see
/// [`HashPool`]): allocating and zeroing it anew for every hash costs as
/// much as a tenth of the hash.
type Scratch = Vec<Block>;

/// `argon` over `password` and `salt` into `out`, working in `scratch`
/// (grown to the hash's memory cost when smaller; the library fills every
/// block before reading it, so what it held does not matter).
fn argon2_into(
    argon: &Argon2<'_>,
    password: &[u8],
    salt: &[u8],
    out: &mut [u8],
    scratch: &mut Scratch,
) -> std::result::Result<(), argon2::Error> {
    let blocks = argon.params().block_count();
    if scratch.len() < blocks {
        scratch.resize(blocks, Block::default());
    }
    argon.hash_password_into_with_memory(password, salt, out, &mut scratch[..blocks])
}

/// An argon2id PHC string for `password` (blocking; see [`hash`]).
#[cfg(test)]
fn hash_blocking(password: &str, cost: HashCost) -> Result<String> {
    hash_in(password, cost, &mut Scratch::new())
}

fn hash_in(password: &str, cost: HashCost, scratch: &mut Scratch) -> Result<String> {
    let mut salt = [0u8; 16];
    rand::rng().fill_bytes(&mut salt);
    let argon = hasher(cost)?;
    let mut out = [0u8; Params::DEFAULT_OUTPUT_LEN];
    argon2_into(&argon, password.as_bytes(), &salt, &mut out, scratch)
        .map_err(AuthError::internal)?;
    let salt = SaltString::encode_b64(&salt).map_err(AuthError::internal)?;
    let phc = PasswordHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::V0x13.into()),
        params: ParamsString::try_from(argon.params()).map_err(AuthError::internal)?,
        salt: Some(salt.as_salt()),
        hash: Some(Output::new(&out).map_err(AuthError::internal)?),
    };
    Ok(phc.to_string())
}

/// Checks `password` against a stored hash (blocking; see [`verify`]).
#[cfg(test)]
fn verify_blocking(password: &str, stored: &str, cost: HashCost) -> Verdict {
    verify_in(password, stored, cost, &mut Scratch::new())
}

fn verify_in(password: &str, stored: &str, cost: HashCost, scratch: &mut Scratch) -> Verdict {
    if stored.starts_with("$argon2") {
        let Ok(parsed) = PasswordHash::new(stored) else {
            return Verdict::Mismatch;
        };
        // Verification uses the parameters inside the hash.
        if !argon2_matches(password, &parsed, scratch) {
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

/// Whether `password` hashes to `parsed` with the algorithm, version,
/// parameters and salt written in it (what the library's own verifier
/// does, in `scratch`); the outputs are compared in constant time.
fn argon2_matches(password: &str, parsed: &PasswordHash<'_>, scratch: &mut Scratch) -> bool {
    let (Some(salt), Some(expected)) = (parsed.salt, parsed.hash) else {
        return false;
    };
    let Ok(algorithm) = Algorithm::try_from(parsed.algorithm) else {
        return false;
    };
    let Ok(version) = parsed
        .version
        .map_or(Ok(Version::default()), Version::try_from)
    else {
        return false;
    };
    let Ok(params) = Params::try_from(parsed) else {
        return false;
    };
    let mut salt_bytes = [0u8; Salt::MAX_LENGTH];
    let Ok(salt) = salt.decode_b64(&mut salt_bytes) else {
        return false;
    };
    let argon = Argon2::new(algorithm, version, params);
    Output::init_with(expected.len(), |out| {
        argon2_into(&argon, password.as_bytes(), salt, out, scratch).map_err(Into::into)
    })
    .is_ok_and(|computed| computed == expected)
}

/// One hash to run, given the scratch memory of the thread that runs it.
type Job = Box<dyn FnOnce(&mut Scratch) + Send>;

/// Where hashes run: one thread per core, each taking the next job from a
/// shared queue as soon as it finishes one (callers wait their turn in
/// order). More at once would not finish sooner, only share the cores; and
/// each argon2id hash holds its memory cost while it runs, so a burst of
/// sign-ins could otherwise hold hundreds of them at once.
///
/// A thread keeps its memory from one hash to the next while jobs are
/// queued, and frees it when the queue runs dry: an idle server holds none.
/// A job whose caller has gone (the request was dropped) is skipped.
struct HashPool {
    jobs: std::sync::mpsc::Sender<Job>,
    threads: usize,
    /// Jobs sent and not yet taken. A thread that finds none frees its
    /// memory before it waits, also when it waits for the queue's lock
    /// (which another idle thread holds while it waits for a job).
    pending: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl HashPool {
    fn start(threads: usize) -> Self {
        let (jobs, queue) = std::sync::mpsc::channel::<Job>();
        let queue = std::sync::Arc::new(Mutex::new(queue));
        let pending = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let started = (0..threads)
            .filter(|_| {
                let queue = queue.clone();
                let pending = pending.clone();
                std::thread::Builder::new()
                    .name("plinth-hash".into())
                    .spawn(move || hash_thread(&queue, &pending))
                    .inspect_err(|e| tracing::error!("cannot start a password hashing thread: {e}"))
                    .is_ok()
            })
            .count();
        Self {
            jobs,
            threads: started,
            pending,
        }
    }

    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Scratch) -> T + Send + 'static,
    ) -> Result<T> {
        if self.threads == 0 {
            return tokio::task::spawn_blocking(move || work(&mut Scratch::new()))
                .await
                .map_err(AuthError::internal);
        }
        let (done, answer) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move |scratch| {
            if !done.is_closed() {
                let _ = done.send(work(scratch));
            }
        });
        self.pending
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        if let Err(e) = self.jobs.send(job) {
            self.pending
                .fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
            return Err(AuthError::internal(e));
        }
        answer.await.map_err(AuthError::internal)
    }
}

/// A [`HashPool`] thread: runs jobs until the pool is gone.
fn hash_thread(
    queue: &Mutex<std::sync::mpsc::Receiver<Job>>,
    pending: &std::sync::atomic::AtomicUsize,
) {
    use std::sync::atomic::Ordering::SeqCst;
    use std::sync::mpsc::TryRecvError;
    let mut scratch = Scratch::new();
    loop {
        if pending.load(SeqCst) == 0 {
            scratch = Scratch::new();
        }
        let job = {
            let queue = queue
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            match queue.try_recv() {
                Ok(job) => job,
                Err(TryRecvError::Disconnected) => return,
                Err(TryRecvError::Empty) => {
                    scratch = Scratch::new();
                    match queue.recv() {
                        Ok(job) => job,
                        Err(_) => return,
                    }
                }
            }
        };
        pending.fetch_sub(1, SeqCst);
        // A job that panics loses its caller's answer (an internal error
        // there), not this thread.
        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(&mut scratch))).is_err() {
            scratch = Scratch::new();
        }
    }
}

/// Runs `work` (one hash) on the process's [`HashPool`].
async fn on_hash_pool<T: Send + 'static>(
    work: impl FnOnce(&mut Scratch) -> T + Send + 'static,
) -> Result<T> {
    static POOL: LazyLock<HashPool> = LazyLock::new(|| {
        HashPool::start(std::thread::available_parallelism().map_or(1, |n| n.get()))
    });
    POOL.run(work).await
}

/// An argon2id PHC string for `password`, on the hashing pool ([`on_hash_pool`]).
pub async fn hash(password: String, cost: HashCost) -> Result<String> {
    on_hash_pool(move |scratch| hash_in(&password, cost, scratch)).await?
}

/// Checks `password` against a stored hash, on the hashing pool. `stored = None` still spends
/// the time of one hash, so unknown accounts answer as slowly as known ones.
pub async fn verify(password: String, stored: Option<String>, cost: HashCost) -> Result<Verdict> {
    on_hash_pool(move |scratch| match stored {
        Some(stored) => verify_in(&password, &stored, cost, scratch),
        None => {
            let _ = hash_in(&password, cost, scratch);
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
                tokio::spawn(on_hash_pool(move |_| {
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
    fn hashes_made_in_kept_memory_are_the_librarys_own() {
        use argon2::password_hash::{PasswordHasher, PasswordVerifier};
        let cheap = HashCost::cheap();
        let bigger = HashCost {
            memory_kib: cheap.memory_kib * 4,
            ..cheap
        };
        // One scratch through costs that grow and shrink, as a kept one is.
        let mut scratch = Scratch::new();
        for cost in [bigger, cheap, bigger] {
            let ours = hash_in("correct horse", cost, &mut scratch).unwrap();
            let parsed = PasswordHash::new(&ours).unwrap();
            assert!(
                Argon2::default()
                    .verify_password(b"correct horse", &parsed)
                    .is_ok()
            );
            assert!(
                Argon2::default()
                    .verify_password(b"wrong", &parsed)
                    .is_err()
            );
            assert_eq!(Params::try_from(&parsed).unwrap().m_cost(), cost.memory_kib);

            let params =
                Params::new(cost.memory_kib, cost.iterations, cost.parallelism, None).unwrap();
            let salt = SaltString::encode_b64(b"sixteen byte slt").unwrap();
            let theirs = Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
                .hash_password(b"correct horse", &salt)
                .unwrap()
                .to_string();
            assert_eq!(
                verify_in("correct horse", &theirs, cost, &mut scratch),
                Verdict::Match
            );
            assert_eq!(
                verify_in("correct horsf", &theirs, cost, &mut scratch),
                Verdict::Mismatch
            );
        }
        // Another algorithm and a longer output verify as written.
        let params = Params::new(64, 1, 1, Some(48)).unwrap();
        let salt = SaltString::encode_b64(b"sixteen byte slt").unwrap();
        let argon2i = Argon2::new(Algorithm::Argon2i, Version::V0x13, params)
            .hash_password(b"old", &salt)
            .unwrap()
            .to_string();
        assert_eq!(
            verify_in("old", &argon2i, cheap, &mut scratch),
            Verdict::MatchNeedsRehash
        );
        assert_eq!(
            verify_in("new", &argon2i, cheap, &mut scratch),
            Verdict::Mismatch
        );
    }

    #[tokio::test]
    async fn queued_hashes_reuse_memory_and_an_idle_pool_holds_none() {
        let pool = HashPool::start(1);
        // Reports whether the job found memory left by another.
        let job = |scratch: &mut Scratch| {
            let reused = !scratch.is_empty();
            let _ = hash_in("pw", HashCost::cheap(), scratch);
            std::thread::sleep(Duration::from_millis(20));
            reused
        };
        // Three queued behind one another: the later two reuse.
        let (a, b, c) = tokio::join!(pool.run(job), pool.run(job), pool.run(job));
        assert_eq!((a.unwrap(), b.unwrap(), c.unwrap()), (false, true, true));
        // Once the queue has run dry (the thread needs a moment to see it),
        // the memory is freed.
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(!pool.run(job).await.unwrap());
    }

    #[tokio::test]
    async fn every_thread_of_an_idle_pool_frees_its_memory() {
        let pool = HashPool::start(2);
        let job = |scratch: &mut Scratch| {
            let reused = !scratch.is_empty();
            let _ = hash_in("pw", HashCost::cheap(), scratch);
            std::thread::sleep(Duration::from_millis(50));
            reused
        };
        // Both threads hash (and hold memory), then the pool goes idle: one
        // thread waits for a job, the other for the queue.
        let _ = tokio::join!(pool.run(job), pool.run(job), pool.run(job), pool.run(job));
        tokio::time::sleep(Duration::from_millis(200)).await;
        // Two at once: each thread takes one, and neither held on to memory.
        let (a, b) = tokio::join!(pool.run(job), pool.run(job));
        assert_eq!((a.unwrap(), b.unwrap()), (false, false));
    }

    #[tokio::test]
    async fn a_job_whose_caller_left_is_skipped_and_a_panic_is_an_error() {
        use std::sync::atomic::AtomicUsize;
        let pool: &'static HashPool = Box::leak(Box::new(HashPool::start(1)));
        let ran = std::sync::Arc::new(AtomicUsize::new(0));
        // The thread is busy; the second caller gives up while it waits.
        let busy = tokio::spawn(pool.run(|_| std::thread::sleep(Duration::from_millis(50))));
        tokio::task::yield_now().await;
        let counted = ran.clone();
        let gone = pool.run(move |_| counted.fetch_add(1, Ordering::SeqCst));
        let waited = tokio::time::timeout(Duration::from_millis(10), gone).await;
        assert!(waited.is_err());
        busy.await.unwrap().unwrap();
        let panics = pool.run(|_| -> u8 { panic!("boom") }).await;
        assert!(panics.is_err());
        assert_eq!(pool.run(|_| 7).await.unwrap(), 7, "the thread survived");
        assert_eq!(ran.load(Ordering::SeqCst), 0);
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
