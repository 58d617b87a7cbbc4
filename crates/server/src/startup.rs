//! Start-up and shutdown of a node, and the commands of the binary.
//!
//! Order matters: the HTTP port is bound first (a port in use fails before
//! anything is started), then the database is reached (the embedded cluster
//! started when there is no `DATABASE_URL`), migrations applied, keys loaded,
//! and only then requests served. On SIGINT/SIGTERM requests are drained, the
//! pools closed, and the embedded cluster stopped last.

use std::future::Future;
use std::net::SocketAddr;
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;

use anyhow::{Context, bail};
use axum::Router;
use plinth_db::{Cluster, Database, MigrationSet, PoolSettings};
use sqlx::postgres::PgConnectOptions;
use tokio::net::TcpListener;
use tower::Layer;
use tower_http::normalize_path::NormalizePathLayer;

use crate::app::{AppState, Services, router};
use crate::config::{
    AdminAction, AdminArgs, DbArgs, KeysArgs, LogArgs, LogFormat, OperatorArgs, ProjectDir,
    SeedArgs, ServeArgs, TypegenArgs,
};
use crate::keys::Keys;

/// Every set of SQL the node applies, in order: the platform SQL of each
/// service, then the project's migrations, then its policies.
pub fn migration_sets(
    migrations: &ProjectDir,
    policies: &ProjectDir,
) -> anyhow::Result<Vec<MigrationSet>> {
    let mut sets = vec![
        plinth_db::platform_migrations(),
        plinth_auth::migrations(),
        plinth_rest::migrations(),
        plinth_storage::migrations(),
        plinth_realtime::migrations(),
        plinth_marketplace::migrations(),
        plinth_functions::migrations(),
        plinth_console::migrations(),
    ];
    for (name, dir, default) in [
        ("project", migrations, "migrations"),
        ("policies", policies, "policies"),
    ] {
        let Some(path) = dir.path() else { continue };
        if !path.is_dir() {
            if *dir == ProjectDir::Dir(default.into()) {
                tracing::info!(folder = %path.display(), "no {default} folder here; applying the platform SQL only");
                continue;
            }
            bail!("the {default} folder {} does not exist", path.display());
        }
        sets.push(MigrationSet::from_dir(name, path)?);
    }
    Ok(sets)
}

/// A database error in one line, without the driver's prefix.
fn db_reason(error: &sqlx::Error) -> String {
    match error {
        sqlx::Error::Database(db) => db.message().to_owned(),
        other => other.to_string(),
    }
}

/// How long shutdown waits for database connections to be given back.
const CLOSE_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// The database a node works on, and the embedded cluster when it started one.
pub struct Backend {
    pub db: Database,
    pub cluster: Option<Cluster>,
}

impl Backend {
    /// Reaches `DATABASE_URL`, or starts the embedded cluster in the data folder.
    pub async fn open(args: &DbArgs) -> anyhow::Result<Self> {
        let settings = PoolSettings {
            max_connections: args.db_pool_size,
            owner_max_connections: args.db_owner_pool_size,
            acquire_timeout: std::time::Duration::from_secs(args.db_pool_acquisition_timeout),
            authenticator_password: args
                .authenticator_password
                .as_ref()
                .map(|s| s.expose().to_owned()),
        };
        match &args.database_url {
            Some(url) => {
                let options = PgConnectOptions::from_str(url.expose())
                    .map_err(|_| anyhow::anyhow!("DATABASE_URL is not a valid postgres:// URL"))?
                    .application_name("plinth");
                let db = Database::connect(options, &settings).await?;
                Ok(Self { db, cluster: None })
            }
            None => {
                let data_dir = absolute(&args.data_dir)?;
                let mut cluster = Cluster::start(&data_dir, args.pg_bin_dir.as_deref()).await?;
                match Database::connect(
                    cluster.connect_options(plinth_db::cluster::SUPERUSER),
                    &settings,
                )
                .await
                {
                    Ok(db) => Ok(Self {
                        db,
                        cluster: Some(cluster),
                    }),
                    Err(e) => {
                        let _ = cluster.stop().await;
                        Err(e.into())
                    }
                }
            }
        }
    }

    /// Applies every migration set and readies the request role.
    pub async fn migrate(&self, args: &DbArgs) -> anyhow::Result<()> {
        let sets = migration_sets(&args.migrations, &args.policies)?;
        plinth_db::migrate::run_all(&self.db.owner, &sets).await?;
        self.db
            .prepare_authenticator(args.authenticator_password.as_ref().map(|s| s.expose()))
            .await
            .context("cannot set the password of the authenticator role")?;
        Ok(())
    }

    /// Makes sure the request pools can log in as `authenticator`, before
    /// serving. A server that asks it for a password while none is configured
    /// (`DATABASE_URL` over TCP with password authentication) gets one set on
    /// the role, derived from the JWT secret: every node sharing the database
    /// shares the secret, so they all derive the same password. Anything else
    /// stops start-up with one line saying what to set.
    ///
    /// With `may_alter` false (a read replica), the derived password is only
    /// tried, not set: the primary's nodes set it and replication brings it.
    pub async fn check_authenticator(
        &mut self,
        args: &DbArgs,
        secret: &plinth_db::JwtSecret,
        may_alter: bool,
    ) -> anyhow::Result<()> {
        let refused = match self.db.authenticator_login().await {
            Ok(()) => return Ok(()),
            Err(e) if plinth_db::is_unavailable(&e) => {
                // Gone again right after the migrations: serving answers 503
                // until it is back.
                tracing::warn!("cannot reach the database to check the authenticator login: {e}");
                return Ok(());
            }
            Err(e) if plinth_db::is_refused_password(&e) => e,
            Err(e) => bail!(
                "the database refuses the `authenticator` login of the request pools ({});                  let the role log in from this host (pg_hba.conf) with AUTHENTICATOR_PASSWORD as its password",
                db_reason(&e)
            ),
        };
        if args.authenticator_password.is_some() {
            bail!(
                "the database refuses AUTHENTICATOR_PASSWORD for the `authenticator` role ({});                  check the server's password settings (pg_hba.conf)",
                db_reason(&refused)
            );
        }
        let password = plinth_db::hex(&secret.derive_key("authenticator password"));
        let set = if may_alter {
            self.db.use_authenticator_password(&password).await
        } else {
            self.db.log_in_authenticator_with(&password).await;
            Ok(())
        };
        if let Err(e) = set.and(self.db.authenticator_login().await) {
            bail!(
                "the database asks the `authenticator` role for a password and Plinth could not give it one ({});                  set AUTHENTICATOR_PASSWORD (Plinth sets it on the role at start-up)",
                db_reason(&e)
            );
        }
        tracing::info!(
            "the database asks `authenticator` for a password: gave it one derived from JWT_SECRET \
             (AUTHENTICATOR_PASSWORD chooses another)"
        );
        Ok(())
    }

    /// Closes the pools, then stops the embedded cluster. Connections still
    /// held after [`CLOSE_GRACE`] (a task stuck on a database that is gone)
    /// do not hold the shutdown up.
    pub async fn close(mut self) -> anyhow::Result<()> {
        if tokio::time::timeout(CLOSE_GRACE, self.db.close())
            .await
            .is_err()
        {
            tracing::warn!(
                "database connections still in use after {CLOSE_GRACE:?}; closing anyway"
            );
        }
        if let Some(cluster) = self.cluster.as_mut() {
            cluster.stop().await?;
        }
        Ok(())
    }
}

pub(crate) fn absolute(path: &Path) -> anyhow::Result<std::path::PathBuf> {
    std::path::absolute(path).with_context(|| format!("cannot resolve {}", path.display()))
}

/// Binds the HTTP listener, with a clear message when the port is taken.
pub async fn bind(host: &str, port: u16) -> anyhow::Result<TcpListener> {
    let addr: SocketAddr = format!("{host}:{port}")
        .parse()
        .or_else(|_| format!("[{host}]:{port}").parse())
        .with_context(|| format!("{host} is not an IP address to listen on"))?;
    TcpListener::bind(addr).await.map_err(|e| match e.kind() {
        std::io::ErrorKind::AddrInUse => anyhow::anyhow!(
            "port {port} is already in use on {host}; stop the program using it or choose another with --port (PORT)"
        ),
        std::io::ErrorKind::PermissionDenied => {
            anyhow::anyhow!("no permission to listen on port {port}; choose a port above 1023 with --port (PORT)")
        }
        _ => anyhow::anyhow!("cannot listen on {addr}: {e}"),
    })
}

/// How long a client may take over what it sends.
#[derive(Debug, Clone, Copy)]
pub struct ReadTimeouts {
    /// For a request's line and headers: a connection that trickles them
    /// (or sends none) is closed after this, so slow clients cannot hold
    /// connections open for free (hyper's own default once a timer is set,
    /// which `axum::serve` does not set).
    pub head: std::time::Duration,
    /// Between two pieces of a request's body, while the server is reading
    /// it: a body that stops arriving fails the request (the handler sees a
    /// broken body), so a client cannot hold an upload's place, its memory
    /// and its connection by going silent halfway. Time the server spends
    /// not reading (an upload waiting for its place) does not count.
    pub body_idle: std::time::Duration,
}

impl Default for ReadTimeouts {
    /// 30 s for the head, 60 s between pieces of a body (nginx's
    /// `client_body_timeout`).
    fn default() -> Self {
        Self {
            head: std::time::Duration::from_secs(30),
            body_idle: std::time::Duration::from_secs(60),
        }
    }
}

/// Serves `router` on `listener` until `shutdown` completes, then drains
/// in-flight requests.
pub async fn run(
    listener: TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    run_with(listener, router, shutdown, ReadTimeouts::default()).await
}

/// [`run`] with the times a client has for what it sends.
pub async fn run_with(
    listener: TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
    timeouts: ReadTimeouts,
) -> std::io::Result<()> {
    use crate::idle_body::IdleTimeoutBody;
    use axum::extract::ConnectInfo;
    use hyper_util::rt::{TokioIo, TokioTimer};
    use hyper_util::service::TowerToHyperService;
    use tower::ServiceExt;

    // Trailing slashes are trimmed before routing (`/rest/v1/` is the
    // OpenAPI document, as `/rest/v1`); the peer address reaches handlers
    // (rate limits per client address).
    let app = NormalizePathLayer::trim_trailing_slash().layer(router);
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(timeouts.head);
    // Shutdown: every connection is told to finish its request under way
    // and close; serving ends when the last one has.
    let (stopping, stop) = tokio::sync::watch::channel(());
    let (open, mut closed) = tokio::sync::watch::channel(());
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // (out of file descriptors, a connection reset before
                    // it was accepted: the listener itself goes on)
                    tracing::debug!(%e, "accepting a connection");
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let service =
            app.clone()
                .map_request(move |request: axum::http::Request<hyper::body::Incoming>| {
                    let mut request = request.map(|body| {
                        axum::body::Body::new(IdleTimeoutBody::new(body, timeouts.body_idle))
                    });
                    request.extensions_mut().insert(ConnectInfo(peer));
                    request
                });
        let connection = http
            .serve_connection(TokioIo::new(stream), TowerToHyperService::new(service))
            .with_upgrades();
        let mut stop = stop.clone();
        let open = open.clone();
        tokio::spawn(async move {
            let mut connection = std::pin::pin!(connection);
            let served = tokio::select! {
                served = connection.as_mut() => served,
                _ = stop.changed() => {
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            if let Err(e) = served {
                tracing::trace!(%e, "a connection ended");
            }
            drop(open);
        });
    }
    drop(listener);
    let _ = stopping.send(());
    drop(open);
    let _ = closed.changed().await;
    Ok(())
}

/// SIGINT (Ctrl-C) or SIGTERM. The handlers are installed when this is
/// called, so a signal that arrives during start-up is not lost (nor kills
/// the process outright): serving then ends as soon as it begins.
pub fn shutdown_signal() -> std::io::Result<impl Future<Output = ()> + Send + 'static> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => {},
            _ = terminate.recv() => {},
        }
        tracing::info!("shutting down: draining requests");
    })
}

/// Whether `host` (PLINTH_HOST) only accepts connections from this machine.
fn is_loopback(host: &str) -> bool {
    let host = host.trim().trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.to_canonical().is_loopback())
}

/// Without SMTP, auth e-mails (password resets included) wait in the dev
/// mailbox: fine on a developer's machine, a choice to make on purpose on an
/// address other machines reach.
fn check_dev_mailbox(args: &ServeArgs) -> anyhow::Result<()> {
    if args.auth.smtp_host().is_none() && !args.auth.allow_dev_mailbox && !is_loopback(&args.host) {
        bail!(
            "PLINTH_HOST {} accepts connections from other machines and no SMTP_HOST is set, so auth e-mails \
             (password resets included) would wait in the dev mailbox; set SMTP_HOST, or serve the dev mailbox \
             anyway with --allow-dev-mailbox (PLINTH_ALLOW_DEV_MAILBOX=true)",
            args.host
        );
    }
    Ok(())
}

/// `plinth serve`.
pub async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let activity = (args.console.enabled && !args.read_replica).then(plinth_console::Activity::new);
    init_logging_with(&args.db.log, activity.as_ref());
    // Checked before anything is bound or opened: a bad value stops at once.
    let newsletter_webhook_url = args.newsletter_webhook_url()?;
    if !args.read_replica {
        check_dev_mailbox(&args)?;
    }
    let backup_every = args
        .backup
        .backup_schedule
        .as_deref()
        .map(crate::backup::parse_schedule)
        .transpose()?;
    let backup_dest = match &args.backup.backup_to {
        Some(to) => Some(crate::backup::Destination::parse(to)?),
        None if backup_every.is_some() => {
            bail!("PLINTH_BACKUP_SCHEDULE needs PLINTH_BACKUP_TO: where the backups go")
        }
        None => None,
    };
    let backup_passphrase = args
        .backup
        .backup_passphrase
        .as_ref()
        .map(|s| s.expose().to_owned());
    if let Some(dest) = &backup_dest
        && !args.read_replica
    {
        // A passphrase that does not match what the location holds stops
        // the start; a location out of reach now is tried again by the
        // scheduled copies (which refuse a mismatch too).
        match dest.sealed().await {
            Ok(sealed) => dest.refuse_mismatch(sealed, backup_passphrase.is_some())?,
            Err(e) => tracing::warn!("cannot read the backup location now: {e:#}"),
        }
    }
    let data_dir = absolute(&args.db.data_dir)?;
    if backup_dest.is_some() && args.db.database_url.is_none() && !args.read_replica {
        // The embedded cluster archives its log from this start on.
        Cluster::enable_wal_archive(&data_dir)?;
    }
    let shutdown = shutdown_signal().context("cannot install signal handlers")?;
    let listener = bind(&args.host, args.port).await?;
    let keys = Keys::load_or_generate(&args.db.keys, &args.db.data_dir)?;
    let mut backend = Backend::open(&args.db).await?;
    let scheduled = match backup_dest {
        Some(dest) if !args.read_replica => Some(tokio::spawn(crate::backup::run_scheduled(
            crate::backup::Scheduled {
                dest,
                cluster: backend.cluster.as_ref().map(Cluster::base_backups),
                database_url: args.db.database_url.as_ref().map(|s| s.expose().to_owned()),
                pg_bin_dir: args.db.pg_bin_dir.clone(),
                storage: args.storage.to_config(&data_dir)?.backend,
                passphrase: backup_passphrase,
                every: backup_every,
                keep: args.backup.backup_keep,
                tick: crate::backup::WAL_SYNC_EVERY,
                data_dir,
            },
        ))),
        _ => None,
    };
    // A cluster that died and could not be started again ends serving too,
    // so that the process exits non-zero and a supervisor takes over.
    let cluster_gave_up = backend.cluster.as_ref().map(Cluster::gave_up);
    let shutdown = async move {
        match cluster_gave_up {
            Some(gave_up) => tokio::select! {
                _ = shutdown => {},
                _ = gave_up => tracing::error!("shutting down: the embedded PostgreSQL is gone"),
            },
            None => shutdown.await,
        }
    };
    let result = serve_on(
        &args,
        listener,
        keys,
        Extras {
            newsletter_webhook_url,
            activity,
        },
        &mut backend,
        shutdown,
    )
    .await;
    if let Some(scheduled) = scheduled {
        scheduled.abort();
    }
    let failure = backend.cluster.as_ref().and_then(Cluster::failure);
    let closed = backend.close().await;
    match failure {
        Some(reason) => Err(anyhow::anyhow!(reason)),
        None => result.and(closed),
    }
}

/// What `serve` prepared before the node starts.
struct Extras {
    newsletter_webhook_url: Option<url::Url>,
    /// The console's activity book (the console is on).
    activity: Option<plinth_console::Activity>,
}

async fn serve_on(
    args: &ServeArgs,
    listener: TcpListener,
    keys: Keys,
    extras: Extras,
    backend: &mut Backend,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    if args.read_replica {
        return serve_read_replica(args, listener, keys, backend, shutdown).await;
    }
    backend.migrate(&args.db).await?;
    backend
        .check_authenticator(&args.db, &keys.secret, true)
        .await?;
    // The project's own login: the functions' SUPABASE_DB_URL, the console's SQL editor.
    let password = plinth_db::project_admin::password(&keys.secret);
    if let Err(e) = backend.db.use_project_admin_password(&password).await {
        tracing::warn!(
            "cannot set the password of the project_admin role ({}): functions may not log in with              SUPABASE_DB_URL (PLINTH_FUNCTIONS_DB_URL names another), nor the console's SQL editor",
            db_reason(&e)
        );
    }
    let addr = listener.local_addr()?;
    let url = format!("http://{}", display_addr(addr));
    let auth_config = args.auth.to_config(&url);
    // The address the node is reached at from outside: https means TLS in front.
    let public_url = auth_config.api_external_url.clone();
    if auth_config.smtp.is_none() {
        tracing::warn!(
            "no SMTP_HOST: auth e-mails go to the dev mailbox at {url}/_/mailbox (only for the operator: \
             the link printed at start-up, or the service_role key); set SMTP_HOST for real users"
        );
    }
    let Extras {
        newsletter_webhook_url,
        activity,
    } = extras;
    let state = app_state(args, backend, keys, newsletter_webhook_url);
    let functions_config = args
        .functions
        .to_config(&auth_config.site_url, &auth_config.api_external_url);
    let auth =
        plinth_auth::AuthState::new(backend.db.clone(), state.keys.secret.clone(), auth_config)
            .context("cannot set up the mailer")?;
    let functions = plinth_marketplace::FunctionsState::new(
        backend.db.clone(),
        state.keys.secret.clone(),
        functions_config,
        auth.mailer().clone(),
    )
    .context("cannot set up the functions")?;
    tracing::info!(payments = functions.provider_name(), "payment provider");
    let mailbox_token = auth.mailbox_token().map(str::to_owned);
    let rest = plinth_rest::RestState::new(
        backend.db.clone(),
        state.keys.secret.clone(),
        args.rest.to_config(),
    )
    .await
    .context("cannot load the schema for the REST gateway")?;
    let function_host = crate::functions::host(args, &url, &public_url, &state.keys, backend)?;
    let console = match activity {
        Some(activity) => Some(console_setup(args, &public_url, activity, &state)?),
        None => None,
    };
    let storage_config = args.storage.to_config(&absolute(&args.db.data_dir)?)?;
    let storage = plinth_storage::StorageState::new(
        backend.db.clone(),
        state.keys.secret.clone(),
        storage_config,
    )
    .await
    .context("cannot set up storage")?;
    let realtime = plinth_realtime::RealtimeState::new(
        backend.db.clone(),
        state.keys.secret.clone(),
        args.realtime.to_config(),
    )
    .await
    .context("cannot start realtime")?;
    let app = router(
        state.clone(),
        &args.app_dir,
        Services {
            auth,
            rest,
            storage,
            realtime: realtime.clone(),
            functions,
            function_host: function_host.host.clone(),
            console,
        },
    );
    tracing::info!(%url, "plinth is listening");
    if state.keys.generated {
        println!("API keys (made on first start; `plinth keys` prints them again):");
        print!("{}", state.keys.as_env());
    } else {
        println!("API keys: `plinth keys` prints them.");
    }
    if let Some(token) = mailbox_token {
        println!(
            "Dev mailbox (auth e-mails; this link changes at every start): {url}/_/mailbox?token={token}"
        );
    }
    println!("Plinth is ready at {url}");
    // On shutdown, websockets are closed (with a close frame) first, so that
    // the HTTP drain does not wait on them.
    tokio::spawn(crate::memory::return_freed_memory(
        state.metrics.clone(),
        Some(realtime.clone()),
    ));
    let closing = realtime.clone();
    let shutdown = async move {
        shutdown.await;
        closing.shutdown().await;
    };
    run(listener, app, shutdown).await?;
    Ok(())
}

/// The console's settings, with a warning when it is on without TLS in
/// front (its cookie and the operator's password would cross in clear).
fn console_setup(
    args: &ServeArgs,
    public_url: &str,
    activity: plinth_console::Activity,
    state: &AppState,
) -> anyhow::Result<crate::app::ConsoleSetup> {
    let https = public_url.starts_with("https://");
    if !https {
        tracing::warn!(
            "the console is on (PLINTH_CONSOLE) without TLS in front: operators' passwords and \
             session cookies cross the network in clear. Serve it behind an https proxy and set \
             API_EXTERNAL_URL to the https address"
        );
    }
    let dir = absolute(&args.console.console_dir)?;
    if !dir.join("index.html").is_file() {
        tracing::warn!(folder = %dir.display(), "no built console app here (cd console && npm run build); the console's API is served");
    }
    state.metrics.report_to(activity.clone());
    Ok(crate::app::ConsoleSetup {
        config: plinth_console::ConsoleConfig {
            app_dir: dir,
            session_lifetime: std::time::Duration::from_secs(
                u64::from(args.console.console_session_hours.max(1)) * 3600,
            ),
            idle_timeout: std::time::Duration::from_secs(
                u64::from(args.console.console_idle_minutes.max(1)) * 60,
            ),
            stream_check: plinth_console::STREAM_CHECK,
            node: format!(
                "{}:{}",
                nix::unistd::gethostname()
                    .map(|name| name.to_string_lossy().into_owned())
                    .unwrap_or_else(|_| "localhost".to_owned()),
                args.port
            ),
            secure_cookies: https,
        },
        activity,
        settings: crate::config::effective_settings(),
    })
}

fn app_state(
    args: &ServeArgs,
    backend: &Backend,
    keys: Keys,
    newsletter_webhook_url: Option<url::Url>,
) -> AppState {
    AppState {
        db: backend.db.clone(),
        keys: Arc::new(keys),
        trust_proxy_headers: args.trust_proxy_headers,
        stripe_publishable_key: args.functions.stripe_publishable_key.clone(),
        newsletter_webhook_url,
        metrics_token: args.metrics_token.as_ref().map(|t| Arc::from(t.expose())),
        metrics: Default::default(),
    }
}

/// A node on a read replica (`PLINTH_READ_REPLICA`): the REST gateway for
/// reads, `/health` and `/metrics`. Nothing is written: no migrations (the
/// primary's nodes apply them and replication brings them), no password set
/// on `authenticator` (it uses the one the primary's nodes derive from the
/// same JWT secret), no realtime node, no storage sweeps (a lagging replica
/// could take a live upload's bytes for an orphan's).
async fn serve_read_replica(
    args: &ServeArgs,
    listener: TcpListener,
    keys: Keys,
    backend: &mut Backend,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    backend
        .check_authenticator(&args.db, &keys.secret, false)
        .await?;
    let url = format!("http://{}", display_addr(listener.local_addr()?));
    let state = app_state(args, backend, keys, None);
    let rest_config = plinth_rest::RestConfig {
        schema_poll: Some(std::time::Duration::from_secs(10)),
        ..args.rest.to_config()
    };
    let rest =
        plinth_rest::RestState::new(backend.db.clone(), state.keys.secret.clone(), rest_config)
            .await
            .context("cannot load the schema for the REST gateway")?;
    tokio::spawn(crate::memory::return_freed_memory(
        state.metrics.clone(),
        None,
    ));
    let app = crate::app::read_router(state, rest);
    tracing::info!(%url, "plinth is listening (read replica)");
    println!("Plinth is ready at {url} (read replica: REST reads, /health, /metrics)");
    run(listener, app, shutdown).await?;
    Ok(())
}

fn display_addr(addr: SocketAddr) -> String {
    if addr.ip().is_unspecified() {
        format!("localhost:{}", addr.port())
    } else {
        addr.to_string()
    }
}

/// `plinth migrate`.
pub async fn migrate(args: DbArgs) -> anyhow::Result<()> {
    init_logging(&args.log);
    let backend = Backend::open(&args).await?;
    let result = backend.migrate(&args).await;
    let closed = backend.close().await;
    result?;
    closed?;
    println!("migrations applied");
    Ok(())
}

/// `plinth backup`.
pub async fn backup(args: crate::config::BackupArgs) -> anyhow::Result<()> {
    init_logging(&args.db.log);
    let to = args.to.or(args.settings.backup_to.clone()).context(
        "say where the backup goes: --to <folder or s3://bucket/prefix> (or PLINTH_BACKUP_TO)",
    )?;
    let dest = crate::backup::Destination::parse(&to)?;
    let data_dir = absolute(&args.db.data_dir)?;
    let storage = args.storage.to_config(&data_dir)?.backend;
    let backend = Backend::open(&args.db).await?;
    let passphrase = args.settings.backup_passphrase.as_ref().map(|s| s.expose());
    let result = crate::backup::backup(
        &crate::backup::Source {
            data_dir: &data_dir,
            cluster: backend.cluster.as_ref().map(Cluster::base_backups),
            database_url: args.db.database_url.as_ref().map(|s| s.expose()),
            pg_bin_dir: args.db.pg_bin_dir.as_deref(),
            storage,
        },
        &dest,
        passphrase,
    )
    .await;
    let closed = backend.close().await;
    let id = result?;
    closed?;
    let pruned = crate::backup::prune(&dest, args.settings.backup_keep).await?;
    println!("backed up to {to}: {id}");
    if pruned > 0 {
        println!(
            "removed {pruned} older backup(s), keeping {}",
            args.settings.backup_keep
        );
    }
    Ok(())
}

/// `plinth restore`.
pub async fn restore(args: crate::config::RestoreArgs) -> anyhow::Result<()> {
    init_logging(&args.db.log);
    if args.db.database_url.is_some() {
        bail!(
            "plinth restore brings back a data folder with its embedded cluster; unset DATABASE_URL \
             (to restore a dump into a server of your own, use pg_restore on the archive's database/dump)"
        );
    }
    let until = args
        .until
        .as_deref()
        .map(|t| {
            chrono::DateTime::parse_from_rfc3339(t)
                .map(|t| t.with_timezone(&chrono::Utc))
                .with_context(|| {
                    format!("--until {t:?} is not an RFC 3339 time like 2026-11-25T20:30:00Z")
                })
        })
        .transpose()?;
    let from = crate::backup::Destination::parse(&args.from)?;
    let data_dir = absolute(&args.db.data_dir)?;
    let storage = args.storage.to_config(&data_dir)?.backend;
    let id = crate::backup::restore(
        &from,
        &crate::backup::Target {
            data_dir: &data_dir,
            pg_bin_dir: args.db.pg_bin_dir.as_deref(),
            storage,
        },
        until,
        args.passphrase.as_ref().map(|s| s.expose()),
    )
    .await?;
    println!(
        "restored {id} into {}; start it with plinth serve --data-dir {}",
        data_dir.display(),
        data_dir.display()
    );
    Ok(())
}

/// `plinth seed [--demo]`: runs the project's seed file in one transaction.
pub async fn seed(args: SeedArgs) -> anyhow::Result<()> {
    init_logging(&args.db.log);
    let file = args
        .seed_dir
        .join(if args.demo { "demo.sql" } else { "seed.sql" });
    let sql = std::fs::read_to_string(&file)
        .with_context(|| format!("cannot read the seed file {}", file.display()))?;
    let backend = Backend::open(&args.db).await?;
    let result = async {
        backend.migrate(&args.db).await?;
        let mut tx = backend.db.owner.begin().await?;
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
            .execute(&mut *tx)
            .await
            .map_err(|e| {
                anyhow::anyhow!(
                    "{} failed: {}",
                    file.display(),
                    plinth_db::migrate::describe_db_error(&e)
                )
            })?;
        tx.commit().await?;
        anyhow::Ok(())
    }
    .await;
    let closed = backend.close().await;
    result?;
    closed?;
    println!("loaded {}", file.display());
    Ok(())
}

/// `plinth admin grant|revoke <email>`: rows of `public.admins (user_id)`,
/// the admin list of the project (the marketplace's convention).
pub async fn admin(args: AdminArgs) -> anyhow::Result<()> {
    let (user, granting) = match &args.action {
        AdminAction::Grant(user) => (user, true),
        AdminAction::Revoke(user) => (user, false),
        AdminAction::Operator(operator) => return console_operator(operator).await,
    };
    let (email, db) = (&user.email, &user.db);
    init_logging(&db.log);
    let backend = Backend::open(db).await?;
    let result = async {
        backend.migrate(db).await?;
        let has_table: bool = sqlx::query_scalar("select to_regclass('public.admins') is not null")
            .fetch_one(&backend.db.owner)
            .await?;
        if !has_table {
            bail!("this project has no public.admins table to record admins in");
        }
        let user: Option<uuid::Uuid> =
            sqlx::query_scalar("select id from auth.users where lower(email) = lower($1)")
                .bind(email.trim())
                .fetch_optional(&backend.db.owner)
                .await?;
        let Some(user) = user else {
            bail!("no user has the e-mail {email}; they must sign up first");
        };
        if granting {
            sqlx::query(
                "insert into public.admins (user_id) values ($1) on conflict (user_id) do nothing",
            )
            .bind(user)
            .execute(&backend.db.owner)
            .await?;
            println!("{email} is an admin");
        } else {
            sqlx::query("delete from public.admins where user_id = $1")
                .bind(user)
                .execute(&backend.db.owner)
                .await?;
            println!("{email} is not an admin");
        }
        anyhow::Ok(())
    }
    .await;
    let closed = backend.close().await;
    result?;
    closed
}

/// `plinth admin operator <email>`: creates the console operator (or gives
/// it a new password), or removes it.
async fn console_operator(args: &OperatorArgs) -> anyhow::Result<()> {
    init_logging(&args.db.log);
    let password = if args.password_stdin {
        let mut line = String::new();
        std::io::stdin()
            .read_line(&mut line)
            .context("cannot read the password from standard input")?;
        Some(line.trim_end_matches(['\r', '\n']).to_owned())
    } else {
        None
    };
    let backend = Backend::open(&args.db).await?;
    let result = async {
        backend.migrate(&args.db).await?;
        let owner = &backend.db.owner;
        if args.remove {
            plinth_console::remove_operator(owner, &args.email).await?;
            println!("{} is no longer an operator", args.email.trim());
            return anyhow::Ok(());
        }
        let generated = password.is_none();
        let password = password.unwrap_or_else(plinth_console::generate_password);
        let created = plinth_console::set_operator(owner, &args.email, &password).await?;
        let email = args.email.trim();
        match (created, generated) {
            (true, true) => println!("Operator {email} created. Password (shown once): {password}"),
            (true, false) => println!("Operator {email} created."),
            (false, true) => println!(
                "Operator {email}: new password (shown once): {password}; its console sessions ended."
            ),
            (false, false) => {
                println!("Operator {email}: password changed; its console sessions ended.")
            }
        }
        println!("The console is at /_/console when PLINTH_CONSOLE=true.");
        anyhow::Ok(())
    }
    .await;
    let closed = backend.close().await;
    result?;
    closed
}

/// `plinth gen types typescript`: applies the migrations (so the types are
/// those of the schema `plinth serve` would serve), then prints the types.
pub async fn gen_types(args: TypegenArgs) -> anyhow::Result<()> {
    init_logging(&args.db.log);
    let backend = Backend::open(&args.db).await?;
    let result = async {
        backend.migrate(&args.db).await?;
        let schemas: Vec<String> = args
            .schema
            .iter()
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .collect();
        Ok::<_, anyhow::Error>(plinth_rest::typegen::typescript(&backend.db.owner, &schemas).await?)
    }
    .await;
    let closed = backend.close().await;
    let types = result?;
    closed?;
    print!("{types}");
    Ok(())
}

/// `plinth keys` and `plinth keys generate`.
pub fn keys(args: KeysArgs) -> anyhow::Result<()> {
    if let Some(crate::config::KeysAction::Generate { alg }) = args.action {
        print!(
            "{}",
            crate::keys::generate(&args.keys, &args.data_dir, alg)?
        );
        return Ok(());
    }
    let keys = Keys::load_or_generate(&args.keys, &args.data_dir)?;
    print!("{}", keys.as_env());
    Ok(())
}

pub(crate) fn init_logging(args: &LogArgs) {
    init_logging_with(args, None);
}

/// The log to stderr (`RUST_LOG`, text or JSON) and, with the console on,
/// a copy of the info and more severe lines in the console's activity book
/// (whatever `RUST_LOG` says).
fn init_logging_with(args: &LogArgs, activity: Option<&plinth_console::Activity>) {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    use tracing_subscriber::{EnvFilter, Layer};
    const DEFAULT: &str = "info,sqlx=warn,tower_http=warn";
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT));
    let stderr = tracing_subscriber::fmt::layer().with_writer(std::io::stderr);
    let stderr = match args.log_format {
        LogFormat::Json => stderr
            .json()
            .flatten_event(true)
            .with_filter(filter)
            .boxed(),
        LogFormat::Text => stderr.with_filter(filter).boxed(),
    };
    let copy = activity.map(|a| a.layer().with_filter(EnvFilter::new(DEFAULT)));
    let _ = tracing_subscriber::registry()
        .with(stderr)
        .with(copy)
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts() {
        for host in [
            "127.0.0.1",
            "127.1.2.3",
            "::1",
            "[::1]",
            "localhost",
            "::ffff:127.0.0.1",
        ] {
            assert!(is_loopback(host), "{host}");
        }
        for host in ["0.0.0.0", "::", "192.168.1.10", "example.com"] {
            assert!(!is_loopback(host), "{host}");
        }
    }

    fn serve_args(args: &[&str]) -> ServeArgs {
        use clap::Parser;
        let cli = crate::config::Cli::try_parse_from(["plinth", "serve"].iter().chain(args))
            .expect("the arguments parse");
        match cli.command {
            crate::config::Command::Serve(args) => args,
            _ => panic!("not serve"),
        }
    }

    /// A blank SMTP_HOST (a compose file's empty default) names no relay, so
    /// a public address still needs the explicit opt-in.
    #[test]
    fn a_blank_smtp_host_is_no_relay() {
        let blank = serve_args(&["--host", "0.0.0.0", "--smtp-host", " "]);
        assert!(blank.auth.smtp_host().is_none());
        assert!(check_dev_mailbox(&blank).is_err());
        let relay = serve_args(&["--host", "0.0.0.0", "--smtp-host", "mail.example.com"]);
        assert!(check_dev_mailbox(&relay).is_ok());
        let opted_in = serve_args(&["--host", "0.0.0.0", "--allow-dev-mailbox"]);
        assert!(check_dev_mailbox(&opted_in).is_ok());
    }
}
