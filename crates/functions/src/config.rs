//! The host's settings: where the functions are, which Deno runs them, what
//! they are told about the project, and their limits.

use std::path::PathBuf;
use std::time::Duration;

/// Everything the host needs besides the database and the JWT secret.
#[derive(Clone)]
pub struct HostConfig {
    /// `PLINTH_FUNCTIONS_DIR`: one folder per function (`<name>/index.ts`),
    /// and an optional `config.toml` beside them.
    pub dir: PathBuf,
    /// `PLINTH_DENO_BIN`, else `deno` on `PATH`; `None` when neither is
    /// there (a function then answers 503 saying so).
    pub deno: Option<PathBuf>,
    /// Where the workers' sockets and the bootstrap script live (a private
    /// folder made at start).
    pub runtime_dir: PathBuf,
    /// What every function finds in its environment: `SUPABASE_URL`,
    /// `SUPABASE_ANON_KEY`, ... (the operator's secrets are added at spawn).
    pub env: ProjectEnv,
    pub limits: Limits,
    /// `plinth functions serve`: a changed function is reloaded on its next
    /// request (checked on every request; otherwise at most every few
    /// seconds).
    pub watch: bool,
}

impl std::fmt::Debug for HostConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostConfig")
            .field("dir", &self.dir)
            .field("deno", &self.deno)
            .field("limits", &self.limits)
            .field("watch", &self.watch)
            .finish_non_exhaustive()
    }
}

/// The platform's variables, as every function sees them.
#[derive(Clone, Default)]
pub struct ProjectEnv {
    /// How a function reaches this node (its own listening address).
    pub supabase_url: String,
    /// How the world reaches it (`API_EXTERNAL_URL`).
    pub public_url: String,
    pub anon_key: String,
    pub service_role_key: String,
    pub db_url: String,
}

/// Per-request and per-function limits. Defaults are the hosted platform's
/// (256 MB, 150 s wall clock, 2 s / 4 s of CPU) and a pool sized for a small
/// machine.
#[derive(Debug, Clone)]
pub struct Limits {
    /// A worker's memory: its V8 heap and its resident set
    /// (`PLINTH_FUNCTIONS_MEMORY_MB`); past it, the worker is stopped and
    /// its requests answered 546.
    pub memory_mb: u64,
    /// A request's wall-clock limit, from arrival to the response's last
    /// byte (`PLINTH_FUNCTIONS_WALL_CLOCK_SECS`); past it, 546 (or the
    /// stream ends) and the worker is replaced.
    pub wall_clock: Duration,
    /// A worker's soft CPU-time limit, counted from when it was ready (its
    /// start does not count), all its threads
    /// (`PLINTH_FUNCTIONS_CPU_SOFT_LIMIT_MS`; `None`: none). Past it, the
    /// worker is retired: it takes no new request (another worker is started
    /// for them) and stops once those it has are answered.
    pub cpu_soft_limit: Option<Duration>,
    /// A worker's hard CPU-time limit, counted as the soft one
    /// (`PLINTH_FUNCTIONS_CPU_HARD_LIMIT_MS`; `None`: none). Past it, the
    /// worker is stopped at once and its requests are answered 546.
    pub cpu_hard_limit: Option<Duration>,
    /// Workers per function serving new requests
    /// (`PLINTH_FUNCTIONS_MAX_WORKERS`). Retired workers still finishing
    /// their requests count apart: at most as many again, so a function
    /// never has more than twice this many processes.
    pub max_workers: usize,
    /// Requests one worker serves at once
    /// (`PLINTH_FUNCTIONS_WORKER_CONCURRENCY`).
    pub worker_concurrency: usize,
    /// How long a request waits for a free worker before a 503
    /// (`PLINTH_FUNCTIONS_QUEUE_SECS`).
    pub queue_wait: Duration,
    /// A worker with nothing to do for this long is stopped
    /// (`PLINTH_FUNCTIONS_IDLE_SECS`).
    pub idle: Duration,
    /// How long a worker may take to start (first start: Deno may fetch
    /// `npm:` packages) (`PLINTH_FUNCTIONS_BOOT_SECS`).
    pub boot: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            memory_mb: 256,
            wall_clock: Duration::from_secs(150),
            cpu_soft_limit: Some(Duration::from_millis(2000)),
            cpu_hard_limit: Some(Duration::from_millis(4000)),
            max_workers: 2,
            worker_concurrency: 64,
            queue_wait: Duration::from_secs(5),
            idle: Duration::from_secs(60),
            boot: Duration::from_secs(60),
        }
    }
}

/// The Deno binary: `explicit` (`PLINTH_DENO_BIN`) when given (and `None`
/// when that is no file), else `deno` on `PATH`.
pub fn find_deno(explicit: Option<&std::path::Path>) -> Option<PathBuf> {
    if let Some(path) = explicit {
        return path.is_file().then(|| path.to_owned());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("deno"))
        .find(|candidate| candidate.is_file())
}
