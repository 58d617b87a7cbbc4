//! One Deno worker process: started with least permissions, reached over
//! its own Unix socket, watched for its memory and its CPU time, stopped
//! when retired, idle or over a limit.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::Body;
use hyper::Uri;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::{Connected, Connection};
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::UnixStream;
use tokio::process::Command;
use tokio::sync::{Notify, watch};

use crate::config::Limits;
use crate::project::FunctionSpec;

/// Where a worker is in its life.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    Booting,
    Ready,
    /// Stopped or failed; the text says why (logged, never sent).
    Dead(String),
}

/// What a worker is started with besides its function.
pub struct Launch {
    pub deno: PathBuf,
    pub boot_script: PathBuf,
    pub socket: PathBuf,
    /// The function's variables (and only these are readable from it).
    pub env: Vec<(String, String)>,
    pub limits: Limits,
}

pub type HttpClient = Client<UnixConnector, Body>;

pub struct Worker {
    pub id: u64,
    pub function: String,
    pub client: HttpClient,
    state: watch::Sender<State>,
    in_flight: AtomicUsize,
    last_used: Mutex<Instant>,
    retired: AtomicBool,
    /// Set when it was stopped at a limit (memory, wall clock, CPU time).
    over_limit: AtomicBool,
    stop: Notify,
    pid: AtomicU64,
    /// The pool's waiters, told when it dies or stops taking requests.
    freed: Arc<Notify>,
}

impl std::fmt::Debug for Worker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Worker")
            .field("id", &self.id)
            .field("function", &self.function)
            .field("state", &*self.state.borrow())
            .finish_non_exhaustive()
    }
}

impl Worker {
    /// A worker that starts in the background: `prepare` yields what to
    /// launch it with (it may read the secrets), then the process is
    /// spawned and its socket awaited. `ended` is told when it dies.
    pub fn start(
        id: u64,
        spec: &FunctionSpec,
        socket: PathBuf,
        ended: Arc<Notify>,
        prepare: impl Future<Output = Result<Launch, String>> + Send + 'static,
    ) -> Arc<Self> {
        let client = Client::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(30))
            .build(UnixConnector(Arc::from(socket.as_path())));
        let worker = Arc::new(Self {
            id,
            function: spec.name.clone(),
            client,
            state: watch::channel(State::Booting).0,
            in_flight: AtomicUsize::new(0),
            last_used: Mutex::new(Instant::now()),
            retired: AtomicBool::new(false),
            over_limit: AtomicBool::new(false),
            stop: Notify::new(),
            pid: AtomicU64::new(0),
            freed: ended.clone(),
        });
        let spec = spec.clone();
        let this = worker.clone();
        tokio::spawn(async move {
            let outcome = match prepare.await {
                Ok(launch) => this.run(&spec, launch).await,
                Err(why) => why,
            };
            tracing::debug!(function = %this.function, worker = this.id, %outcome, "worker ended");
            this.state.send_replace(State::Dead(outcome));
            ended.notify_waiters();
        });
        worker
    }

    /// Waits until it serves (or failed to start).
    pub async fn ready(&self) -> Result<(), String> {
        let mut state = self.state.subscribe();
        let state = state
            .wait_for(|s| *s != State::Booting)
            .await
            .map_err(|_| "the worker went away".to_owned())?;
        match &*state {
            State::Dead(why) => Err(why.clone()),
            _ => Ok(()),
        }
    }

    pub fn is_dead(&self) -> bool {
        matches!(*self.state.borrow(), State::Dead(_))
    }

    /// Waits (at most `wait`) for it to end; whether it did.
    pub async fn ended_within(&self, wait: Duration) -> bool {
        let mut state = self.state.subscribe();
        tokio::time::timeout(wait, state.wait_for(|s| matches!(s, State::Dead(_))))
            .await
            .is_ok()
    }

    pub fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::Acquire)
    }

    pub fn take(&self) {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
    }

    /// One request fewer; a retired worker with none left stops.
    pub fn give_back(&self) {
        let left = self
            .in_flight
            .fetch_sub(1, Ordering::AcqRel)
            .saturating_sub(1);
        if let Ok(mut at) = self.last_used.lock() {
            *at = Instant::now();
        }
        if left == 0 && self.is_retired() {
            self.stop.notify_one();
        }
    }

    pub fn idle_for(&self) -> Duration {
        self.last_used
            .lock()
            .map_or(Duration::ZERO, |at| at.elapsed())
    }

    pub fn is_retired(&self) -> bool {
        self.retired.load(Ordering::Acquire)
    }

    /// Takes no new requests; stops once those it has are answered.
    pub fn retire(&self) {
        self.retired.store(true, Ordering::Release);
        if self.in_flight() == 0 {
            self.stop.notify_one();
        }
    }

    /// Stops it now, as over a limit: its requests are answered 546.
    pub fn stop_over_limit(&self) {
        self.over_limit.store(true, Ordering::Release);
        self.retired.store(true, Ordering::Release);
        self.stop.notify_one();
    }

    pub fn was_over_limit(&self) -> bool {
        self.over_limit.load(Ordering::Acquire)
    }

    /// The process id, once spawned.
    pub fn pid(&self) -> Option<u32> {
        u32::try_from(self.pid.load(Ordering::Acquire))
            .ok()
            .filter(|p| *p != 0)
    }

    /// Spawns the process, waits for its socket, then watches it until it
    /// ends or is stopped; returns why it ended.
    async fn run(&self, spec: &FunctionSpec, launch: Launch) -> String {
        let _ = std::fs::remove_file(&launch.socket);
        let mut child = match command(spec, &launch).spawn() {
            Ok(child) => child,
            Err(e) => return format!("{} cannot be started: {e}", launch.deno.display()),
        };
        // Held open for the worker's life: its end tells the worker that the
        // host is gone (boot.js).
        let _lifeline = child.stdin.take();
        let pid = child.id().unwrap_or(0);
        self.pid.store(u64::from(pid), Ordering::Release);
        let last_error = Arc::new(Mutex::new(Vec::<String>::new()));
        if let Some(out) = child.stdout.take() {
            tokio::spawn(log_lines(self.function.clone(), "stdout", out, None));
        }
        if let Some(err) = child.stderr.take() {
            tokio::spawn(log_lines(
                self.function.clone(),
                "stderr",
                err,
                Some(last_error.clone()),
            ));
        }
        let ended = |status: std::io::Result<std::process::ExitStatus>| {
            let tail = last_error.lock().map(|l| l.join(" | ")).unwrap_or_default();
            let status = status.map_or_else(|e| e.to_string(), |s| s.to_string());
            if tail.is_empty() {
                format!("the worker exited ({status})")
            } else {
                format!("the worker exited ({status}): {tail}")
            }
        };

        // Booting: the socket answers, or the process ends, or time is up.
        let boot = async {
            loop {
                if UnixStream::connect(&launch.socket).await.is_ok() {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(15)).await;
            }
        };
        tokio::select! {
            () = boot => {}
            status = child.wait() => return ended(status),
            () = tokio::time::sleep(launch.limits.boot) => {
                let _ = child.start_kill();
                return format!("the worker did not start within {:?}", launch.limits.boot);
            }
            () = self.stop.notified() => {
                let _ = child.start_kill();
                let _ = child.wait().await;
                return "stopped while starting".into();
            }
        }
        self.state.send_replace(State::Ready);
        tracing::debug!(function = %self.function, worker = self.id, pid, "worker ready");

        let memory_cap = launch.limits.memory_mb.saturating_mul(1024 * 1024);
        // Its CPU time counts from now: starting (compiling) is not serving.
        let cpu_at_ready = cpu_time(pid);
        let mut tick = tokio::time::interval(Duration::from_millis(200));
        loop {
            tokio::select! {
                status = child.wait() => {
                    let why = ended(status);
                    if why.contains("out of memory") {
                        self.over_limit.store(true, Ordering::Release);
                    }
                    return why;
                }
                () = self.stop.notified() => {
                    if self.is_retired() && self.in_flight() > 0 && !self.was_over_limit() {
                        continue;
                    }
                    let _ = child.start_kill();
                    let _ = child.wait().await;
                    let _ = std::fs::remove_file(&launch.socket);
                    return if self.was_over_limit() { "stopped at a limit".into() } else { "retired".into() };
                }
                _ = tick.tick() => {
                    if resident_bytes(pid).is_some_and(|bytes| bytes > memory_cap) {
                        tracing::warn!(function = %self.function, worker = self.id, limit_mb = launch.limits.memory_mb, "worker over its memory limit: stopped");
                        self.over_limit.store(true, Ordering::Release);
                        let _ = child.start_kill();
                        let _ = child.wait().await;
                        return "over its memory limit".into();
                    }
                    let used = cpu_at_ready
                        .zip(cpu_time(pid))
                        .map(|(ready, now)| now.saturating_sub(ready));
                    let limits = &launch.limits;
                    if let Some((used, hard)) = used.zip(limits.cpu_hard_limit)
                        && used > hard
                    {
                        tracing::warn!(function = %self.function, worker = self.id, limit_ms = hard.as_millis(), used_ms = used.as_millis(), "worker over its CPU time limit: stopped");
                        self.over_limit.store(true, Ordering::Release);
                        self.retired.store(true, Ordering::Release);
                        let _ = child.start_kill();
                        let _ = child.wait().await;
                        let _ = std::fs::remove_file(&launch.socket);
                        return "over its CPU time limit".into();
                    }
                    if let Some((used, soft)) = used.zip(limits.cpu_soft_limit)
                        && used > soft
                        && !self.is_retired()
                    {
                        tracing::info!(function = %self.function, worker = self.id, limit_ms = soft.as_millis(), used_ms = used.as_millis(), in_flight = self.in_flight(), "worker past its soft CPU time limit: retired");
                        self.retire();
                        // Waiters may start another worker in its place.
                        self.freed.notify_waiters();
                    }
                }
            }
        }
    }
}

/// `deno run` with only what the function needs: the network, its own
/// variables, read access to its folder (and its `static_files`), its
/// socket, and a V8 heap capped at the memory limit. Nothing of the
/// server's environment is passed on but what Deno itself reads (its cache
/// folder, proxies).
fn command(spec: &FunctionSpec, launch: &Launch) -> Command {
    let mut cmd = Command::new(&launch.deno);
    cmd.arg("run")
        .arg("--quiet")
        .arg("--no-prompt")
        .arg("--allow-net");
    let names: Vec<&str> = launch.env.iter().map(|(k, _)| k.as_str()).collect();
    if !names.is_empty() {
        cmd.arg(format!("--allow-env={}", names.join(",")));
    }
    let mut readable = vec![spec.dir.clone(), launch.socket.clone()];
    readable.extend(spec.static_files.iter().cloned());
    cmd.arg(format!("--allow-read={}", join_paths(&readable)))
        .arg(format!("--allow-write={}", launch.socket.display()))
        .arg(format!(
            "--v8-flags=--max-old-space-size={}",
            launch.limits.memory_mb
        ));
    match &spec.deno_config {
        Some(config) => cmd.arg(format!("--config={}", config.display())),
        None => cmd.arg("--no-config"),
    };
    if let Some(map) = &spec.import_map {
        cmd.arg(format!("--import-map={}", map.display()));
    }
    let lock = spec.dir.join("deno.lock");
    if lock.is_file() {
        cmd.arg(format!("--lock={}", lock.display()))
            .arg("--frozen");
    } else {
        cmd.arg("--no-lock");
    }
    cmd.arg(&launch.boot_script)
        .arg(&launch.socket)
        .arg(file_url(&spec.entrypoint));
    cmd.env_clear();
    for name in [
        "HOME",
        "DENO_DIR",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "NO_PROXY",
        "NPM_CONFIG_REGISTRY",
        "DENO_CERT",
        "DENO_TLS_CA_STORE",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
    ] {
        if let Some(value) = std::env::var_os(name) {
            cmd.env(name, value);
        }
    }
    // The machine's own authorities are trusted too (a proxy of the
    // operator's network may sign for the registries), unless told otherwise.
    if std::env::var_os("DENO_TLS_CA_STORE").is_none() {
        cmd.env("DENO_TLS_CA_STORE", "mozilla,system");
    }
    cmd.env("NO_COLOR", "1").env("DENO_NO_UPDATE_CHECK", "1");
    cmd.envs(launch.env.iter().map(|(k, v)| (k, v)));
    cmd.current_dir(&spec.dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    cmd
}

fn join_paths(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// `file://` URL of an absolute path (each segment percent-encoded).
fn file_url(path: &Path) -> String {
    let mut url = String::from("file://");
    for part in path.components().skip(1) {
        url.push('/');
        for byte in part.as_os_str().to_string_lossy().bytes() {
            if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
                url.push(char::from(byte));
            } else {
                url.push_str(&format!("%{byte:02X}"));
            }
        }
    }
    url
}

/// The resident set of a process (`VmRSS` of `/proc/<pid>/status`, in kB
/// whatever the page size).
fn resident_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// The CPU time a process has used, all its threads: `utime` + `stime` of
/// `/proc/<pid>/stat`, in clock ticks.
fn cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let ticks = cpu_ticks(&stat)?;
    let per_second = clock_ticks_per_second()?;
    let nanos = (ticks % per_second).saturating_mul(1_000_000_000) / per_second;
    Some(Duration::from_secs(ticks / per_second) + Duration::from_nanos(nanos))
}

/// `utime` + `stime` (fields 14 and 15) of a `/proc/<pid>/stat` line. The
/// command name (field 2, in parentheses) may hold spaces and parentheses:
/// the fields are counted from its last `)`.
fn cpu_ticks(stat: &str) -> Option<u64> {
    let (_, rest) = stat.rsplit_once(')')?;
    // `rest` starts at field 3 (the state).
    let mut fields = rest.split_whitespace().skip(14 - 3);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    user.checked_add(system)
}

/// `sysconf(_SC_CLK_TCK)`: the unit of `/proc/<pid>/stat`'s times.
#[allow(unsafe_code)]
fn clock_ticks_per_second() -> Option<u64> {
    static TICKS: OnceLock<Option<u64>> = OnceLock::new();
    *TICKS.get_or_init(|| {
        // SAFETY: sysconf only reads a system setting; it takes no pointer
        // and has no precondition.
        let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        u64::try_from(ticks).ok().filter(|t| *t > 0)
    })
}

/// A worker's output, line by line, into the server's log with the
/// function's name; the last stderr lines are kept for the reason it ended.
async fn log_lines(
    function: String,
    stream: &'static str,
    from: impl tokio::io::AsyncRead + Unpin,
    keep: Option<Arc<Mutex<Vec<String>>>>,
) {
    let mut lines = BufReader::new(from).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let line: String = line.chars().take(4096).collect();
        if stream == "stderr" {
            tracing::warn!(target: "plinth_functions::log", function = %function, stream, "{line}");
        } else {
            tracing::info!(target: "plinth_functions::log", function = %function, stream, "{line}");
        }
        if let Some(keep) = &keep
            && let Ok(mut kept) = keep.lock()
        {
            kept.push(line);
            let excess = kept.len().saturating_sub(5);
            kept.drain(..excess);
        }
    }
}

/// Connects the HTTP client to a worker's socket.
#[derive(Clone)]
pub struct UnixConnector(Arc<Path>);

impl tower::Service<Uri> for UnixConnector {
    type Response = UnixIo;
    type Error = std::io::Error;
    type Future = Pin<Box<dyn Future<Output = std::io::Result<UnixIo>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: Uri) -> Self::Future {
        let path = self.0.clone();
        Box::pin(async move { Ok(UnixIo(TokioIo::new(UnixStream::connect(&*path).await?))) })
    }
}

pub struct UnixIo(TokioIo<UnixStream>);

impl Connection for UnixIo {
    fn connected(&self) -> Connected {
        Connected::new()
    }
}

impl hyper::rt::Read for UnixIo {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().0).poll_read(cx, buf)
    }
}

impl hyper::rt::Write for UnixIo {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().0).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().0).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().0).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_resident_set_is_read_from_proc() {
        let own = super::resident_bytes(std::process::id()).unwrap();
        assert!(own > 1024 * 1024, "{own}");
        assert!(super::resident_bytes(u32::MAX).is_none());
    }

    #[test]
    fn the_cpu_time_is_read_from_proc_for_all_threads() {
        use std::time::{Duration, Instant};
        let pid = std::process::id();
        let before = super::cpu_time(pid).unwrap();
        // Another thread of this process spins until the reading has grown
        // by 250 ms (or 20 s have passed: the reading never moved).
        let started = Instant::now();
        let spent = std::thread::spawn(move || {
            let mut n = 0u64;
            loop {
                for _ in 0..100_000 {
                    n = std::hint::black_box(n.wrapping_add(1));
                }
                let spent = super::cpu_time(pid).unwrap() - before;
                if spent >= Duration::from_millis(250)
                    || started.elapsed() > Duration::from_secs(20)
                {
                    return spent;
                }
            }
        })
        .join()
        .unwrap();
        let elapsed = started.elapsed();
        assert!(
            spent >= Duration::from_millis(250),
            "{spent:?} in {elapsed:?}"
        );
        // Never more than the machine's cores could have given it.
        let cores = std::thread::available_parallelism().unwrap().get();
        let most = elapsed * u32::try_from(cores).unwrap() + Duration::from_millis(50);
        assert!(spent <= most, "{spent:?} in {elapsed:?} on {cores} cores");
        assert!(super::cpu_time(u32::MAX).is_none());
    }

    #[test]
    fn the_cpu_ticks_are_fields_14_and_15_after_the_command_name() {
        let stat = "4242 (deno (w) 1) S 1 4242 4242 0 -1 4194560 9 0 0 0 150 25 7 3 20 0 9 0 1 2 3";
        assert_eq!(super::cpu_ticks(stat), Some(175));
        assert_eq!(super::cpu_ticks("4242 (deno) S 1 2"), None);
        assert_eq!(super::cpu_ticks("no command name"), None);
        assert!(super::clock_ticks_per_second().is_some());
    }

    #[test]
    fn file_urls_are_encoded() {
        assert_eq!(
            super::file_url(std::path::Path::new("/srv/my fn/index.ts")),
            "file:///srv/my%20fn/index.ts"
        );
    }
}
