//! Plinth's function host, at `/functions/v1/{name}`: users' own TypeScript
//! functions, each served by Deno worker processes, and handler sets
//! written in Rust and registered with it (the server registers the
//! marketplace's). It knows nothing of what the functions do.
//!
//! A request for `{name}` goes to the user's function when the functions
//! folder has one (`PLINTH_FUNCTIONS_DIR/{name}/index.ts`), else to a
//! registered set that claims the name, else 404. For a user function the
//! host:
//!
//! * checks the caller's JWT (`verify_jwt`, on unless `config.toml` turns it
//!   off; never on `OPTIONS`), as the platform's gateway does;
//! * takes a warm worker of the function ([`pool`]) or starts one
//!   ([`worker`]): `deno run` with `--allow-net`, `--allow-env` for its own
//!   variables, read access to its folder, a V8 heap and resident set
//!   capped at the memory limit, its CPU time watched (past the soft limit
//!   it takes no new requests, past the hard one it is stopped);
//! * forwards the request over the worker's Unix socket as `/{name}/...`
//!   with its method, headers and streaming body, and streams the answer
//!   back with its status and headers (CORS is the function's, as on the
//!   hosted platform);
//! * answers in the platform's shapes what the function cannot: 503
//!   `BOOT_ERROR`, 500 `WORKER_ERROR`, 546 `WORKER_LIMIT` (wall clock,
//!   memory, CPU time), 503 when every worker is busy past the queue wait.
//!
//! Each invocation is logged with the function's name, status and duration,
//! and the workers' stdout and stderr line by line.

#![cfg_attr(test, allow(clippy::unwrap_used))]

mod config;
mod error;
mod pool;
mod project;
pub mod secrets;
mod worker;

use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use hyper::body::{Frame, Incoming, SizeHint};
use plinth_db::{JwtSecret, MigrationSet};
use sqlx::PgPool;

pub use config::{HostConfig, Limits, ProjectEnv, find_deno};
pub use error::HostError;
pub use project::{FunctionSpec, Project, SpecError, valid_name};

use pool::{Lease, Pool};
use worker::{Launch, Worker};

/// The host's own SQL (set `function_secrets`): the sealed secrets, in
/// schema `plinth_functions`, reachable by the owner only.
pub fn migrations() -> MigrationSet {
    MigrationSet::embedded(
        "function_secrets",
        "crates/functions/migrations",
        &[(
            "0001_function_secrets.sql",
            include_str!("../migrations/0001_function_secrets.sql"),
        )],
    )
    .expect("the embedded function host migrations are well named")
}

const BOOT_SCRIPT: &str = include_str!("boot.js");

/// Handlers written in Rust, registered under their names. A user function
/// of the same name takes its place.
pub struct Builtin {
    pub names: Vec<String>,
    /// Serves `/{name}` (the host hands it the request as it came).
    pub router: Router,
    /// Whether the host checks the JWT first (else the handlers do).
    pub verify_jwt: bool,
}

/// The function host; cheap to clone.
#[derive(Clone)]
pub struct FunctionsHost {
    inner: Arc<Inner>,
}

struct Inner {
    config: HostConfig,
    project: Project,
    jwt: JwtSecret,
    owner: PgPool,
    pools: Mutex<HashMap<String, Arc<Pool>>>,
    next_worker: AtomicU64,
    /// The secrets as last read; `None` after a change.
    secrets: tokio::sync::Mutex<Option<Vec<(String, String)>>>,
}

impl std::fmt::Debug for FunctionsHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FunctionsHost")
            .field("config", &self.inner.config)
            .finish_non_exhaustive()
    }
}

/// Why the host cannot start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("cannot prepare the functions' runtime folder {0}: {1}")]
    RuntimeDir(PathBuf, std::io::Error),
}

impl FunctionsHost {
    /// Prepares `config.runtime_dir` (private to this user), writes the
    /// bootstrap there, and starts the idle reaper and the secrets
    /// listener.
    pub fn new(config: HostConfig, jwt: JwtSecret, owner: PgPool) -> Result<Self, StartError> {
        let runtime = &config.runtime_dir;
        let prepare = || -> std::io::Result<()> {
            std::fs::create_dir_all(runtime)?;
            set_private(runtime)?;
            std::fs::write(runtime.join("boot.js"), BOOT_SCRIPT)
        };
        prepare().map_err(|e| StartError::RuntimeDir(runtime.clone(), e))?;
        let project = Project::new(&config.dir);
        let host = Self {
            inner: Arc::new(Inner {
                project,
                jwt,
                owner,
                pools: Mutex::new(HashMap::new()),
                next_worker: AtomicU64::new(1),
                secrets: tokio::sync::Mutex::new(None),
                config,
            }),
        };
        let names = host.inner.project.names();
        if !names.is_empty() && host.inner.config.deno.is_none() {
            tracing::error!(
                "{} function(s) in {} but no Deno was found: set PLINTH_DENO_BIN, put deno on PATH, or start with scripts/serve (it installs Deno)",
                names.len(),
                host.inner.config.dir.display()
            );
        } else if !names.is_empty() {
            tracing::info!(functions = ?names, dir = %host.inner.config.dir.display(), "user functions");
        }
        host.spawn_reaper();
        host.spawn_secrets_listener();
        Ok(host)
    }

    pub fn config(&self) -> &HostConfig {
        &self.inner.config
    }

    /// The user functions of the folder, by name.
    pub fn names(&self) -> Vec<String> {
        self.inner.project.names()
    }

    /// The live workers of `name` (their process ids).
    pub fn worker_pids(&self, name: &str) -> Vec<u32> {
        let pool = self
            .inner
            .pools
            .lock()
            .ok()
            .and_then(|p| p.get(name).cloned());
        pool.map(|p| p.workers().iter().filter_map(|w| w.pid()).collect())
            .unwrap_or_default()
    }

    /// Replaces every worker (each stops once its requests are answered):
    /// after the secrets changed.
    pub async fn reload(&self) {
        *self.inner.secrets.lock().await = None;
        if let Ok(pools) = self.inner.pools.lock() {
            for pool in pools.values() {
                pool.retire_all();
            }
        }
    }

    fn spawn_reaper(&self) {
        let weak = Arc::downgrade(&self.inner);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(2));
            loop {
                tick.tick().await;
                let Some(inner) = weak.upgrade() else { return };
                let pools: Vec<_> = inner
                    .pools
                    .lock()
                    .map(|p| p.values().cloned().collect())
                    .unwrap_or_default();
                for pool in pools {
                    pool.reap(&inner.config.limits);
                }
            }
        });
    }

    fn spawn_secrets_listener(&self) {
        let weak = Arc::downgrade(&self.inner);
        let owner = self.inner.owner.clone();
        tokio::spawn(async move {
            loop {
                let listened = async {
                    let mut listener = sqlx::postgres::PgListener::connect_with(&owner).await?;
                    listener.listen(secrets::CHANGED_CHANNEL).await?;
                    loop {
                        listener.recv().await?;
                        let Some(inner) = weak.upgrade() else {
                            return Ok::<_, sqlx::Error>(());
                        };
                        tracing::info!("function secrets changed: workers replaced");
                        FunctionsHost { inner }.reload().await;
                    }
                };
                if listened.await.is_ok() || weak.strong_count() == 0 {
                    return;
                }
                tokio::time::sleep(Duration::from_secs(5)).await;
            }
        });
    }

    /// The pool of `name`, made or replaced when its files changed (looked
    /// at on every request with `watch`, else at most every 2 s). `None`:
    /// no user function of that name.
    fn pool(&self, name: &str) -> Result<Option<Arc<Pool>>, HostError> {
        let inner = &self.inner;
        let every = if inner.config.watch {
            Duration::ZERO
        } else {
            Duration::from_secs(2)
        };
        let known = inner.pools.lock().ok().and_then(|p| p.get(name).cloned());
        if let Some(pool) = &known {
            let fresh = pool
                .checked_at
                .lock()
                .map(|at| at.elapsed() < every)
                .unwrap_or(false);
            if fresh {
                return Ok(Some(pool.clone()));
            }
        }
        let spec = match inner.project.spec(name) {
            Ok(spec) => spec,
            Err(e) => {
                tracing::error!(function = name, "function settings: {e}");
                return Err(HostError::Boot);
            }
        };
        let Some(spec) = spec else {
            if let Some(old) = known {
                old.retire_all();
                if let Ok(mut pools) = inner.pools.lock() {
                    pools.remove(name);
                }
            }
            return Ok(None);
        };
        let fingerprint = inner.project.fingerprint(&spec);
        if let Some(pool) = known
            && pool.fingerprint == fingerprint
            && pool.spec == spec
        {
            if let Ok(mut at) = pool.checked_at.lock() {
                *at = Instant::now();
            }
            return Ok(Some(pool));
        }
        let pool = Arc::new(Pool::new(spec, fingerprint));
        if let Ok(mut pools) = inner.pools.lock()
            && let Some(old) = pools.insert(name.to_owned(), pool.clone())
        {
            tracing::info!(function = name, "function changed: reloaded");
            old.retire_all();
        }
        Ok(Some(pool))
    }

    /// A new worker of `pool`'s function, starting in the background.
    fn start_worker(&self, pool: &Pool) -> Arc<Worker> {
        let id = self.inner.next_worker.fetch_add(1, Ordering::Relaxed);
        let socket = self
            .inner
            .config
            .runtime_dir
            .join(format!("w{}-{id}.sock", std::process::id()));
        let host = self.clone();
        let spec = pool.spec.clone();
        let launch_socket = socket.clone();
        let prepare = async move {
            let inner = &host.inner;
            let Some(deno) = inner.config.deno.clone() else {
                return Err(
                    "no Deno was found: set PLINTH_DENO_BIN, put deno on PATH, or start with scripts/serve"
                        .to_owned(),
                );
            };
            let secrets = host.secrets().await.map_err(|e| e.to_string())?;
            let project = &inner.config.env;
            let mut env: Vec<(String, String)> = [
                ("SUPABASE_URL", &project.supabase_url),
                ("SUPABASE_PUBLIC_URL", &project.public_url),
                ("SUPABASE_ANON_KEY", &project.anon_key),
                ("SUPABASE_SERVICE_ROLE_KEY", &project.service_role_key),
                ("SUPABASE_DB_URL", &project.db_url),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.clone()))
            .collect();
            env.extend(secrets);
            Ok(Launch {
                deno,
                boot_script: inner.config.runtime_dir.join("boot.js"),
                socket: launch_socket,
                env,
                limits: inner.config.limits.clone(),
            })
        };
        tracing::debug!(function = %spec.name, worker = id, "starting a worker");
        Worker::start(id, &spec, socket, pool.freed(), prepare)
    }

    async fn secrets(&self) -> Result<Vec<(String, String)>, secrets::SecretError> {
        let mut cached = self.inner.secrets.lock().await;
        if let Some(secrets) = &*cached {
            return Ok(secrets.clone());
        }
        let loaded = secrets::load(&self.inner.owner, &self.inner.jwt).await?;
        *cached = Some(loaded.clone());
        Ok(loaded)
    }
}

/// The router the server nests at `/functions/v1`, with the registered
/// handler set, if any.
pub fn router(host: FunctionsHost, builtin: Option<Builtin>) -> Router {
    Router::new()
        .route("/{name}", any(invoke))
        .route("/{name}/{*rest}", any(invoke))
        .fallback(not_found)
        .with_state(Routes {
            host,
            builtin: builtin.map(Arc::new),
        })
}

#[derive(Clone)]
struct Routes {
    host: FunctionsHost,
    builtin: Option<Arc<Builtin>>,
}

async fn not_found() -> HostError {
    HostError::NotFound
}

/// The methods the platform lets through to a function.
const METHODS: [Method; 7] = [
    Method::GET,
    Method::POST,
    Method::PUT,
    Method::PATCH,
    Method::DELETE,
    Method::OPTIONS,
    Method::HEAD,
];

async fn invoke(State(routes): State<Routes>, request: Request) -> Response {
    // Nested: the path is `/{name}` or `/{name}/...`.
    let name = request
        .uri()
        .path()
        .trim_start_matches('/')
        .split('/')
        .next()
        .unwrap_or_default()
        .to_owned();
    if !valid_name(&name) {
        return HostError::NotFound.into_response();
    }
    match routes.host.pool(&name) {
        Err(e) => e.into_response(),
        Ok(Some(pool)) => routes.host.forward(pool, request).await,
        Ok(None) => match routes.builtin.as_deref() {
            Some(builtin) if builtin.names.contains(&name) => {
                if builtin.verify_jwt
                    && request.method() != Method::OPTIONS
                    && let Err(e) = check_jwt(&routes.host.inner.jwt, request.headers())
                {
                    return e.into_response();
                }
                use tower::ServiceExt;
                match builtin.router.clone().oneshot(request).await {
                    Ok(response) => response,
                    Err(never) => match never {},
                }
            }
            _ => HostError::NotFound.into_response(),
        },
    }
}

/// The gateway's check: a verifiable `Authorization: Bearer` token (the
/// `apikey` header does not count here).
fn check_jwt(jwt: &JwtSecret, headers: &HeaderMap) -> Result<(), HostError> {
    let value = headers
        .get(header::AUTHORIZATION)
        .ok_or(HostError::MissingAuthorization)?;
    let token =
        plinth_db::presented_token(value.to_str().ok(), None).ok_or(HostError::InvalidJwt)?;
    jwt.verify(token)
        .map(|_| ())
        .map_err(|_| HostError::InvalidJwt)
}

impl FunctionsHost {
    async fn forward(&self, pool: Arc<Pool>, request: Request) -> Response {
        let started = Instant::now();
        let method = request.method().clone();
        let response = match self.exchange(&pool, request, started).await {
            Ok(response) => response,
            Err(e) => e.into_response(),
        };
        tracing::info!(
            function = %pool.spec.name,
            %method,
            status = response.status().as_u16(),
            duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            "invocation"
        );
        response
    }

    async fn exchange(
        &self,
        pool: &Pool,
        request: Request,
        started: Instant,
    ) -> Result<Response, HostError> {
        let name = &pool.spec.name;
        if !METHODS.contains(request.method()) {
            return Err(HostError::MethodNotAllowed);
        }
        if pool.spec.verify_jwt && request.method() != Method::OPTIONS {
            check_jwt(&self.inner.jwt, request.headers())?;
        }
        let limits = &self.inner.config.limits;
        let lease = pool.acquire(limits, || self.start_worker(pool)).await?;
        if let Err(why) = lease.worker.ready().await {
            tracing::error!(function = %name, "the function did not start: {why}");
            return Err(HostError::Boot);
        }
        let (mut parts, body) = request.into_parts();
        let target = parts.uri.path_and_query().map_or("/", |p| p.as_str());
        parts.uri =
            Uri::try_from(format!("http://localhost{target}")).map_err(|_| HostError::NotFound)?;
        parts.version = axum::http::Version::HTTP_11;
        strip_hop_by_hop(&mut parts.headers);
        let deadline = tokio::time::Instant::from_std(started + limits.wall_clock);
        let answer = tokio::time::timeout_at(
            deadline,
            lease
                .worker
                .client
                .request(Request::from_parts(parts, body)),
        )
        .await;
        let response = match answer {
            Err(_) => {
                tracing::warn!(function = %name, limit = ?limits.wall_clock, "wall clock limit reached: worker stopped");
                lease.worker.stop_over_limit();
                return Err(HostError::Limit);
            }
            Ok(Err(e)) => {
                lease.worker.ended_within(Duration::from_millis(500)).await;
                tracing::warn!(function = %name, "the worker failed the request: {e}");
                return Err(if lease.worker.was_over_limit() {
                    HostError::Limit
                } else {
                    HostError::Worker
                });
            }
            Ok(Ok(response)) => response,
        };
        let (mut parts, body) = response.into_parts();
        strip_hop_by_hop(&mut parts.headers);
        let body = Guarded {
            inner: body,
            deadline: Box::pin(tokio::time::sleep_until(deadline)),
            lease,
        };
        Ok(Response::from_parts(parts, Body::new(body)))
    }
}

/// Headers of one connection, not of the message.
fn strip_hop_by_hop(headers: &mut HeaderMap) {
    for name in [
        header::CONNECTION,
        header::TE,
        header::TRAILER,
        header::TRANSFER_ENCODING,
        header::UPGRADE,
        header::PROXY_AUTHORIZATION,
        header::PROXY_AUTHENTICATE,
    ] {
        headers.remove(name);
    }
    headers.remove("keep-alive");
}

/// A worker's response body: holds the worker until the last byte, and is
/// cut (the worker stopped) at the wall-clock limit.
struct Guarded {
    inner: Incoming,
    deadline: Pin<Box<tokio::time::Sleep>>,
    lease: Lease,
}

impl hyper::body::Body for Guarded {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        if this.deadline.as_mut().poll(cx).is_ready() {
            tracing::warn!(function = %this.lease.worker.function, "wall clock limit reached while streaming: worker stopped");
            this.lease.worker.stop_over_limit();
            return Poll::Ready(Some(Err(
                "the function's wall clock limit was reached".into()
            )));
        }
        Pin::new(&mut this.inner).poll_frame(cx).map_err(Into::into)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

fn set_private(dir: &std::path::Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
}
