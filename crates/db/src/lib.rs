//! Plinth's database layer: the connection pools, the embedded PostgreSQL
//! cluster, the migration runner, request identity (JWT -> claims) and the
//! one helper every service uses to run SQL *as the caller*: a transaction
//! with the caller's role and claims set, so that row-level security decides.

pub mod cluster;
pub mod jwk;
pub mod jwt;
pub mod migrate;
pub mod pipeline;
pub mod project_admin;
#[cfg(feature = "testing")]
pub mod testing;

use std::time::Duration;

use rand::Rng;
use serde_json::Value;
use sqlx::postgres::{PgConnectOptions, PgConnection, PgPoolOptions};
use sqlx::{Connection, PgPool, Postgres, Transaction};

pub use cluster::{Cluster, ClusterError};
pub use jwt::{JwtError, JwtSecret, presented_token};
pub use migrate::{MigrationError, MigrationSet};

/// The roles a request may run as (the login role `authenticator` may switch
/// to these and nothing else).
pub const API_ROLES: [&str; 3] = ["anon", "authenticated", "service_role"];
/// The login role of the request pool.
pub const AUTHENTICATOR: &str = "authenticator";

/// The platform's own SQL: roles, grants, the `auth.uid()` family.
pub fn platform_migrations() -> MigrationSet {
    MigrationSet::embedded(
        "db",
        "crates/db/migrations",
        &[
            (
                "0001_roles.sql",
                include_str!("../migrations/0001_roles.sql"),
            ),
            (
                "0002_auth_helpers.sql",
                include_str!("../migrations/0002_auth_helpers.sql"),
            ),
            (
                "0003_project_admin.sql",
                include_str!("../migrations/0003_project_admin.sql"),
            ),
            (
                "0004_extensions_for_api_roles.sql",
                include_str!("../migrations/0004_extensions_for_api_roles.sql"),
            ),
        ],
    )
    .expect("the embedded platform migrations are well named")
}

/// Why the database could not be reached.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("cannot connect to the database at {target}: {reason}")]
    Unreachable { target: String, reason: String },
}

/// The two pools of a Plinth node.
///
/// * `owner` logs in as the database owner (the superuser of the embedded
///   cluster, or the `DATABASE_URL` user): migrations and start-up work only.
/// * `api` logs in as `authenticator`, which has no privileges of its own;
///   every request switches it to `anon`, `authenticated` or `service_role`
///   for one transaction ([`Database::begin_as`]).
/// * `pipelined` logs in as `authenticator` too, with connections of
///   [`pipeline`] that send a batch of statements with one `Sync`: the REST
///   gateway runs a request's whole transaction (begin, the caller's
///   settings, the statement, commit) in one round trip, answered at once.
///   Its connections cache their prepared statements.
///
/// And how to log in as `project_admin`, the project's own powerful login
/// ([`Database::project_admin_options`]), which no pool of Plinth's uses.
#[derive(Debug, Clone)]
pub struct Database {
    pub owner: PgPool,
    pub api: PgPool,
    pub pipelined: pipeline::Pool,
    project_admin: PgConnectOptions,
}

/// Settings of [`Database::connect`].
#[derive(Debug, Clone)]
pub struct PoolSettings {
    /// Largest number of connections of the request pool.
    pub max_connections: u32,
    /// Largest number of connections of the owner pool (migrations, and the
    /// private tables of services such as auth).
    pub owner_max_connections: u32,
    /// How long a request waits for a connection before failing.
    pub acquire_timeout: Duration,
    /// Password of `authenticator`, when the server asks for one (TCP
    /// connections to a server with password authentication).
    pub authenticator_password: Option<String>,
}

impl Default for PoolSettings {
    fn default() -> Self {
        Self {
            max_connections: 20,
            owner_max_connections: 10,
            acquire_timeout: Duration::from_secs(10),
            authenticator_password: None,
        }
    }
}

impl Database {
    /// Connects both pools. `owner` are the owner's connection options; the
    /// request pool uses the same server and database as `authenticator`.
    ///
    /// The owner pool is connected (and so checked) at once; the request pool
    /// connects lazily, because `authenticator` exists only after the
    /// platform migrations ran (see [`Database::prepare_authenticator`]).
    pub async fn connect(
        owner: PgConnectOptions,
        settings: &PoolSettings,
    ) -> Result<Self, ConnectError> {
        let target = describe_target(&owner);
        let owner_pool = PgPoolOptions::new()
            .max_connections(settings.owner_max_connections)
            .acquire_timeout(settings.acquire_timeout)
            .connect_with(owner.clone())
            .await
            .map_err(|e| ConnectError::Unreachable {
                target,
                reason: short_reason(&e),
            })?;
        let project_admin = owner.clone().username(project_admin::ROLE).password("");
        let mut api = owner.username(AUTHENTICATOR);
        api = match &settings.authenticator_password {
            Some(password) => api.password(password),
            None => api.password(""),
        };
        Ok(Self {
            owner: owner_pool,
            api: api_pool(&api, settings),
            pipelined: pipelined_pool(&api, settings),
            project_admin,
        })
    }

    /// How to log in as `project_admin`: the owner's server and database
    /// (on the embedded cluster, its trusted socket), with the password of
    /// [`Database::use_project_admin_password`] once given.
    pub fn project_admin_options(&self) -> PgConnectOptions {
        self.project_admin.clone()
    }

    /// Gives `project_admin` `password` (set on the role by the owner) and
    /// logs in with it from now on ([`Database::project_admin_options`]).
    /// The options take the password even when setting it fails (a login
    /// that may not alter roles, the role's password set by hand).
    pub async fn use_project_admin_password(&mut self, password: &str) -> sqlx::Result<()> {
        self.project_admin = self.project_admin.clone().password(password);
        let statement: String = sqlx::query_scalar(
            "select format('alter role project_admin with login password %L', $1::text)",
        )
        .bind(password)
        .fetch_one(&self.owner)
        .await?;
        sqlx::raw_sql(sqlx::AssertSqlSafe(statement))
            .execute(&self.owner)
            .await?;
        Ok(())
    }

    /// Whether `authenticator` can log in as the request pools do (one
    /// connection of its own, closed again).
    pub async fn authenticator_login(&self) -> sqlx::Result<()> {
        let options = self.api.connect_options();
        PgConnection::connect_with(&options).await?.close().await
    }

    /// Gives `authenticator` `password` and makes the request pools log in
    /// with it from now on (they are replaced: call this before serving).
    pub async fn use_authenticator_password(&mut self, password: &str) -> sqlx::Result<()> {
        self.prepare_authenticator(Some(password)).await?;
        self.log_in_authenticator_with(password).await;
        Ok(())
    }

    /// Makes the request pools log in as `authenticator` with `password`
    /// from now on, without setting it (they are replaced: call this before
    /// serving).
    pub async fn log_in_authenticator_with(&mut self, password: &str) {
        let pool = self.api.options();
        let settings = PoolSettings {
            max_connections: pool.get_max_connections(),
            acquire_timeout: pool.get_acquire_timeout(),
            authenticator_password: Some(password.to_owned()),
            ..PoolSettings::default()
        };
        let options = self
            .api
            .connect_options()
            .as_ref()
            .clone()
            .password(password);
        self.api.close().await;
        self.pipelined.close();
        self.api = api_pool(&options, &settings);
        self.pipelined = pipelined_pool(&options, &settings);
    }

    /// Sets the password of `authenticator` when one is configured, so that
    /// the request pool can log in over TCP. Runs after the platform
    /// migrations created the role.
    pub async fn prepare_authenticator(&self, password: Option<&str>) -> sqlx::Result<()> {
        if let Some(password) = password {
            let statement: String = sqlx::query_scalar(
                "select format('alter role authenticator with login password %L', $1::text)",
            )
            .bind(password)
            .fetch_one(&self.owner)
            .await?;
            sqlx::raw_sql(sqlx::AssertSqlSafe(statement))
                .execute(&self.owner)
                .await?;
        }
        Ok(())
    }

    /// Opens a transaction on the request pool running as the caller: role,
    /// `request.jwt.claims`, `request.method`, `request.path` and
    /// `request.headers` are set for this transaction only, in one round trip.
    /// Commit or roll back the returned transaction; dropping it rolls back.
    pub async fn begin_as(
        &self,
        request: &RequestContext,
    ) -> Result<Transaction<'static, Postgres>, sqlx::Error> {
        let mut tx = self.api.begin().await?;
        sqlx::query(SET_REQUEST_SQL)
            .bind(&request.role)
            .bind(request.claims.to_string())
            .bind(&request.method)
            .bind(&request.path)
            .bind(request.headers.to_string())
            .execute(&mut *tx)
            .await?;
        Ok(tx)
    }

    /// Whether the database answers (for `/health`).
    pub async fn ping(&self) -> sqlx::Result<()> {
        sqlx::query("select 1").execute(&self.api).await.map(|_| ())
    }

    /// [`Database::ping`], failing with [`sqlx::Error::PoolTimedOut`] after
    /// `limit`: a database that does not answer counts as gone, however
    /// long the pool would go on trying to connect.
    pub async fn ping_within(&self, limit: Duration) -> sqlx::Result<()> {
        tokio::time::timeout(limit, self.ping())
            .await
            .unwrap_or(Err(sqlx::Error::PoolTimedOut))
    }

    pub async fn close(&self) {
        self.pipelined.close();
        self.api.close().await;
        self.owner.close().await;
    }
}

/// The caller's role and request settings for one transaction, every value
/// bound: [`Database::begin_as`] and [`RequestContext::push_settings`].
const SET_REQUEST_SQL: &str = "select set_config('role', $1, true), \
     set_config('request.jwt.claims', $2, true), \
     set_config('request.method', $3, true), \
     set_config('request.path', $4, true), \
     set_config('request.headers', $5, true)";

/// Who is asking and how: what a request transaction needs to know.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestContext {
    /// The Postgres role to run as (`anon`, `authenticated`, `service_role`).
    pub role: String,
    /// The verified JWT payload (`{}` for anonymous requests without a key).
    pub claims: Value,
    pub method: String,
    pub path: String,
    /// Request headers as a JSON object of lower-case names to values.
    pub headers: Value,
}

impl RequestContext {
    /// Queues on `batch` the statement that makes the rest of its
    /// transaction run as this caller, as [`Database::begin_as`] does.
    pub fn push_settings(&self, batch: &mut pipeline::Batch<'_>) {
        let claims = self.claims.to_string();
        let headers = self.headers.to_string();
        batch.push(
            SET_REQUEST_SQL,
            &[postgres_types::Type::TEXT; 5],
            &[&self.role, &claims, &self.method, &self.path, &headers],
        );
    }

    /// A request as `role` with `claims` and nothing else known.
    pub fn new(role: impl Into<String>, claims: Value) -> Self {
        Self {
            role: role.into(),
            claims,
            method: String::new(),
            path: String::new(),
            headers: Value::Object(Default::default()),
        }
    }

    /// From verified claims: the `role` claim, or `anon_role` when absent
    /// (as PostgREST does).
    pub fn from_claims(claims: Value, anon_role: &str) -> Self {
        let role = claims
            .get("role")
            .and_then(Value::as_str)
            .unwrap_or(anon_role)
            .to_owned();
        Self::new(role, claims)
    }
}

/// The client's address: the first `X-Forwarded-For` entry (the server runs
/// behind a proxy in production; the node drops these headers unless told
/// to trust them), else `X-Real-IP`, else the TCP peer.
pub fn client_address(
    forwarded_for: Option<&str>,
    real_ip: Option<&str>,
    peer: Option<std::net::IpAddr>,
) -> String {
    if let Some(forwarded) = forwarded_for
        .and_then(|v| v.split(',').next())
        .map(str::trim)
        .filter(|v| !v.is_empty())
    {
        return forwarded.to_owned();
    }
    if let Some(real) = real_ip {
        return real.trim().to_owned();
    }
    peer.map_or_else(|| "unknown".into(), |ip| ip.to_string())
}

/// Seconds a client is told to wait (`Retry-After`) before trying again
/// when the database cannot be reached.
pub const RETRY_AFTER_SECS: u32 = 2;

/// Whether `error` means the database cannot be reached now: the server is
/// down or restarting, the connection broke, or no connection came free
/// within the acquire timeout. A request that failed so may succeed if sent
/// again: services answer 503 with `Retry-After`, not 500.
pub fn is_unavailable(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(db) => db.code().is_some_and(|code| unavailable_code(&code)),
        _ => false,
    }
}

/// SQLSTATEs of a database that cannot serve now: connection exceptions,
/// the server shutting down or starting up, too many connections.
pub(crate) fn unavailable_code(code: &str) -> bool {
    code.starts_with("08") || matches!(code, "57P01" | "57P02" | "57P03" | "53300")
}

/// `host:port/database` or `socket/database`, never credentials.
pub fn describe_target(options: &PgConnectOptions) -> String {
    let database = options.get_database().unwrap_or("postgres");
    match options.get_socket() {
        Some(socket) => format!(
            "{} (port {})/{database}",
            socket.display(),
            options.get_port()
        ),
        None => format!("{}:{}/{database}", options.get_host(), options.get_port()),
    }
}

/// The request pool of `sqlx` connections as `authenticator` (created
/// lazily). No ping before each acquire: it would add a round trip to every
/// request. A connection that died is found by the request that uses it
/// (which fails cleanly) and is then dropped from the pool.
fn api_pool(api: &PgConnectOptions, settings: &PoolSettings) -> PgPool {
    PgPoolOptions::new()
        .max_connections(settings.max_connections)
        .acquire_timeout(settings.acquire_timeout)
        .test_before_acquire(false)
        .connect_lazy_with(api.clone())
}

/// Whether the server refused a login for its password (SQLSTATE 28P01, or
/// no password given where one is required).
pub fn is_refused_password(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Database(db) => db.code().as_deref() == Some("28P01"),
        sqlx::Error::Protocol(_) | sqlx::Error::Configuration(_) => {
            error.to_string().to_lowercase().contains("password")
        }
        _ => false,
    }
}

/// The request pool of [`pipeline`] connections, for the same server,
/// database and user as `api` (connected lazily, as `api`). A returned
/// connection is reused without a query unless its batch did not finish.
fn pipelined_pool(api: &PgConnectOptions, settings: &PoolSettings) -> pipeline::Pool {
    // A socket folder, given as such or as a host starting with `/`.
    let socket_dir = api.get_socket().cloned().or_else(|| {
        api.get_host()
            .starts_with('/')
            .then(|| api.get_host().into())
    });
    let target = match socket_dir {
        Some(dir) => pipeline::Target::Unix(dir.join(format!(".s.PGSQL.{}", api.get_port()))),
        None => pipeline::Target::Tcp {
            host: api.get_host().to_owned(),
            port: api.get_port(),
        },
    };
    pipeline::pool(
        pipeline::ConnectSettings {
            target,
            user: api.get_username().to_owned(),
            password: settings.authenticator_password.clone(),
            database: api.get_database().unwrap_or(api.get_username()).to_owned(),
            application_name: api.get_application_name().unwrap_or("plinth").to_owned(),
            options: api.get_options().map(str::to_owned),
        },
        settings.max_connections as usize,
        settings.acquire_timeout,
    )
}

/// The innermost cause of a connection error, in one line.
fn short_reason(error: &sqlx::Error) -> String {
    match error {
        sqlx::Error::Io(io) => io.to_string(),
        sqlx::Error::Database(db) => db.message().to_owned(),
        sqlx::Error::PoolTimedOut => "timed out".into(),
        other => other.to_string(),
    }
}

/// HMAC-SHA256 of `message` under `key`, lower-case hex (keyed hashes of
/// tokens and visitors, webhook signatures).
pub fn hmac_hex(key: &[u8], message: &[u8]) -> String {
    use hmac::{Hmac, Mac};
    let mut mac =
        Hmac::<sha2::Sha256>::new_from_slice(key).expect("HMAC accepts keys of any length");
    mac.update(message);
    hex(&mac.finalize().into_bytes())
}

/// The bytes of hex text (either case); `None` when it is not hex.
pub fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// `bytes` as lower-case hex.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut out, b| {
            let _ = write!(out, "{b:02x}");
            out
        })
}

/// A random string of `len` characters from `[A-Za-z0-9]` (secrets, tokens).
pub fn random_token(len: usize) -> String {
    rand::rng()
        .sample_iter(rand::distr::Alphanumeric)
        .take(len)
        .map(char::from)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlx::Connection;

    #[tokio::test]
    async fn a_database_that_does_not_answer_fails_the_ping_in_time() {
        // A listener that never accepts: connecting works, the server's
        // greeting never comes.
        let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let options = PgConnectOptions::new()
            .host("127.0.0.1")
            .port(silent.local_addr().unwrap().port())
            .username(AUTHENTICATOR);
        let pool = || {
            PgPoolOptions::new()
                .acquire_timeout(Duration::from_secs(30))
                .connect_lazy_with(options.clone())
        };
        let db = Database {
            owner: pool(),
            api: pool(),
            pipelined: pipelined_pool(&options, &PoolSettings::default()),
            project_admin: options.clone(),
        };
        let started = std::time::Instant::now();
        let error = db
            .ping_within(Duration::from_millis(300))
            .await
            .unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(2));
        assert!(is_unavailable(&error), "{error}");
    }

    #[tokio::test]
    async fn unavailable_means_the_database_cannot_be_reached_not_a_bad_request() {
        let url = std::env::var("DATABASE_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
        let mut conn = sqlx::PgConnection::connect(&url).await.unwrap();
        let raise = |code: &str| {
            format!("do $$ begin raise exception 'x' using errcode = '{code}'; end $$")
        };
        for (code, unavailable) in [
            ("08006", true),
            ("57P01", true),
            ("57P03", true),
            ("53300", true),
            ("42501", false),
            ("23505", false),
            ("P0001", false),
        ] {
            let error = sqlx::raw_sql(sqlx::AssertSqlSafe(raise(code)))
                .execute(&mut conn)
                .await
                .unwrap_err();
            assert_eq!(is_unavailable(&error), unavailable, "{code}: {error}");
        }
        assert!(is_unavailable(&sqlx::Error::PoolTimedOut));
        assert!(is_unavailable(&sqlx::Error::Io(std::io::Error::from(
            std::io::ErrorKind::ConnectionRefused
        ))));
        assert!(!is_unavailable(&sqlx::Error::RowNotFound));
    }
}
