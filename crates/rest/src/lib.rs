//! Plinth's REST gateway: PostgREST's HTTP interface (`/rest/v1`) over any
//! schema in the database, so that the unmodified `postgrest-js` /
//! `supabase-js` client, postgrest-rs and curl work against it.
//!
//! A request goes through six stages, each a module with its own tests:
//!
//! 1. [`request`]: query string, headers and body -> typed [`request::ApiRequest`].
//!    Pure; rejects what does not parse (PGRST100/102/103/107/122/125).
//! 2. [`schema_cache`]: tables, views, columns, keys, functions read from
//!    `pg_catalog` for the exposed schemas. Built off the request path and
//!    swapped in atomically (`arc-swap`) at start, on
//!    `NOTIFY pgrst, 'reload schema'` and after DDL (event trigger in
//!    `migrations/0001_schema_reload.sql`); requests never wait for a reload.
//! 3. [`plan`]: resolves names and relationships against one cache snapshot.
//!    **Plan never touches the database.** Unknown names are PGRST errors
//!    (PGRST200/201/202/203/204/205, 42703).
//! 4. [`sql`]: one parameterised statement. **Identifiers only from the cache,
//!    always quoted; every request value a bind parameter**; `push` accepts
//!    only `&'static str`.
//! 5. [`execute`]: the only stage with a connection. One transaction as the
//!    caller: `BEGIN` + the `set_config` pre-query (role, claims, method,
//!    path, headers, search path, and `timezone` for a known zone of
//!    `Prefer: timezone=`) in one round trip, the statement, then
//!    commit/rollback; singular and `max-affected` checks roll back.
//! 6. [`response`]: status and headers (`Content-Range`, `Location`,
//!    `Preference-Applied`, `Content-Profile`, `Server-Timing`); the JSON or
//!    CSV body was built by Postgres.
//!
//! Errors are [`ApiError`]: PostgREST's `{code, message, details, hint}` with
//! its SQLSTATE -> HTTP table (and `RAISE SQLSTATE 'PGRST'` for errors whose
//! body, status and headers SQL chooses); a presented but invalid or expired
//! JWT is a 401 (PGRST301/PGRST303), never a silent downgrade to `anon`.
//!
//! API: [`RestConfig`], [`RestState::new`], [`router`], [`migrations`].

// `ApiError` is the client-facing error and travels by value through the
// stages; it is built at most once per request, so boxing it buys nothing.
#![allow(clippy::result_large_err, clippy::large_enum_variant)]

pub mod error;
pub mod execute;
pub mod openapi;
pub mod plan;
pub mod request;
pub mod response;
pub mod schema_cache;
pub mod sql;
pub mod typegen;

use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use arc_swap::ArcSwap;
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue, Method as HttpMethod, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use plinth_db::{Database, JwtError, JwtSecret, MigrationSet, presented_token};
use serde_json::Value;

pub use error::ApiError;
pub use schema_cache::SchemaCache;

/// The gateway's settings. The server reads them from the platform's
/// `PGRST_*` environment names (noted on each field).
#[derive(Debug, Clone, PartialEq)]
pub struct RestConfig {
    /// `PGRST_DB_SCHEMAS`: the schemas served; the first is the default
    /// when no `Accept-Profile`/`Content-Profile` header is sent.
    pub db_schemas: Vec<String>,
    /// `PGRST_DB_ANON_ROLE`: the role of requests without a token or without
    /// a `role` claim.
    pub anon_role: String,
    /// `PGRST_DB_MAX_ROWS`: an upper bound on rows a read returns (`None`: no bound).
    pub max_rows: Option<i64>,
    /// `PGRST_DB_EXTRA_SEARCH_PATH`: schemas appended to the search path of
    /// every request transaction (after the request's schema).
    pub extra_search_path: Vec<String>,
    /// `PGRST_DB_AGGREGATES_ENABLED`: allow `count()`, `sum()`, … in `select`.
    pub aggregates_enabled: bool,
    /// `PGRST_DB_PLAN_ENABLED`: allow `Accept: application/vnd.pgrst.plan`.
    pub plan_enabled: bool,
    /// `PGRST_DB_TX_END`: `commit` (default), `commit-allow-override`,
    /// `rollback` or `rollback-allow-override` (the latter two for tests;
    /// `*-allow-override` honours `Prefer: tx=`).
    pub tx_end: String,
    /// Reload the schema cache on this period instead of on `NOTIFY pgrst`
    /// (a read replica cannot LISTEN; DDL reaches it by replication).
    pub schema_poll: Option<Duration>,
}

impl Default for RestConfig {
    fn default() -> Self {
        Self {
            db_schemas: vec!["public".into()],
            anon_role: "anon".into(),
            max_rows: None,
            extra_search_path: vec!["public".into(), "extensions".into()],
            aggregates_enabled: false,
            plan_enabled: false,
            schema_poll: None,
            tx_end: "commit".into(),
        }
    }
}

/// Why the gateway could not start.
#[derive(Debug, thiserror::Error)]
pub enum RestError {
    #[error("cannot load the schema cache: {0}")]
    SchemaCache(#[source] sqlx::Error),
}

/// The gateway's SQL: an event trigger that sends `NOTIFY pgrst, 'reload
/// schema'` after DDL. Set name `rest`.
pub fn migrations() -> MigrationSet {
    MigrationSet::embedded(
        "rest",
        "crates/rest/migrations",
        &[(
            "0001_schema_reload.sql",
            include_str!("../migrations/0001_schema_reload.sql"),
        )],
    )
    .expect("the embedded rest migrations are well named")
}

struct Inner {
    db: Database,
    jwt: JwtSecret,
    config: RestConfig,
    cache: ArcSwap<SchemaCache>,
    listener: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Ok(mut guard) = self.listener.lock()
            && let Some(handle) = guard.take()
        {
            handle.abort();
        }
    }
}

/// Shared state of the gateway: cheap to clone.
#[derive(Clone)]
pub struct RestState {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for RestState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RestState")
            .field("config", &self.inner.config)
            .finish()
    }
}

impl RestState {
    /// Loads the schema cache and starts the reload listener (a task that
    /// ends when the last clone of the state is dropped).
    pub async fn new(db: Database, jwt: JwtSecret, config: RestConfig) -> Result<Self, RestError> {
        // Listen first, then load: a change between the two is not lost.
        let listener = match config.schema_poll {
            Some(_) => None,
            None => match sqlx::postgres::PgListener::connect_with(&db.owner).await {
                Ok(mut l) => match l.listen("pgrst").await {
                    Ok(()) => Some(l),
                    Err(_) => None,
                },
                Err(_) => None,
            },
        };
        let cache = SchemaCache::load(&db.owner, &config.db_schemas)
            .await
            .map_err(RestError::SchemaCache)?;
        let inner = Arc::new(Inner {
            db,
            jwt,
            config,
            cache: ArcSwap::from_pointee(cache),
            listener: Mutex::new(None),
        });
        let handle = match inner.config.schema_poll {
            Some(period) => tokio::spawn(poll(Arc::downgrade(&inner), period)),
            None => tokio::spawn(listen(Arc::downgrade(&inner), listener)),
        };
        if let Ok(mut guard) = inner.listener.lock() {
            *guard = Some(handle);
        }
        Ok(Self { inner })
    }

    /// Rebuilds the schema cache now and swaps it in.
    pub async fn reload_schema(&self) -> Result<(), sqlx::Error> {
        reload(&self.inner).await
    }

    /// The current snapshot.
    pub fn schema_cache(&self) -> Arc<SchemaCache> {
        self.inner.cache.load_full()
    }

    pub fn config(&self) -> &RestConfig {
        &self.inner.config
    }
}

async fn reload(inner: &Inner) -> Result<(), sqlx::Error> {
    let fresh = SchemaCache::load(&inner.db.owner, &inner.config.db_schemas).await?;
    inner.cache.store(Arc::new(fresh));
    tracing::debug!("schema cache reloaded");
    Ok(())
}

/// Reloads every `period` (see [`RestConfig::schema_poll`]).
async fn poll(weak: Weak<Inner>, period: Duration) {
    loop {
        tokio::time::sleep(period).await;
        let Some(inner) = weak.upgrade() else {
            return;
        };
        if let Err(e) = reload(&inner).await {
            tracing::warn!(%e, "schema cache reload failed; keeping the previous one");
        }
    }
}

/// Listens on `pgrst` and reloads on `reload schema` (or an empty payload).
async fn listen(weak: Weak<Inner>, mut ready: Option<sqlx::postgres::PgListener>) {
    let mut first = ready.is_some();
    loop {
        let mut listener = match ready.take() {
            Some(l) => l,
            None => {
                let Some(pool) = weak.upgrade().map(|i| i.db.owner.clone()) else {
                    return;
                };
                let mut l = match sqlx::postgres::PgListener::connect_with(&pool).await {
                    Ok(l) => l,
                    Err(e) => {
                        tracing::debug!(%e, "schema listener cannot connect; retrying");
                        tokio::time::sleep(Duration::from_secs(1)).await;
                        continue;
                    }
                };
                if l.listen("pgrst").await.is_err() {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    continue;
                }
                l
            }
        };
        if !first {
            // Events may have been missed while disconnected.
            if let Some(inner) = weak.upgrade() {
                let _ = reload(&inner).await;
            }
        }
        first = false;
        // A receive error ends this connection; the outer loop reconnects.
        while let Ok(n) = listener.recv().await {
            let payload = n.payload().trim();
            if payload.is_empty() || payload == "reload schema" {
                // Several DDL statements in a row: one reload.
                while listener.next_buffered().is_some() {}
                let Some(inner) = weak.upgrade() else {
                    return;
                };
                if let Err(e) = reload(&inner).await {
                    tracing::warn!(%e, "schema cache reload failed; keeping the previous one");
                }
            }
        }
    }
}

/// The gateway's routes, to be nested at `/rest/v1`.
pub fn router(state: RestState) -> Router {
    Router::new()
        .route("/", axum::routing::any(handle))
        .route("/{*path}", axum::routing::any(handle))
        .fallback(handle)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(state)
}

/// The largest request body the gateway reads; a larger one is a 413 in
/// PostgREST's error shape ([`ApiError::body_too_large`]).
pub const BODY_LIMIT: usize = 2 * 1024 * 1024;

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

async fn handle(
    State(state): State<RestState>,
    method: HttpMethod,
    uri: Uri,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let mut timings = response::Timings::default();
    let started = Instant::now();
    let result = match body {
        Ok(body) => serve(&state, &method, &uri, &headers, &body, &mut timings).await,
        Err(rejection) if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            Err(ApiError::body_too_large(BODY_LIMIT))
        }
        Err(rejection) => Err(ApiError::bad_body(rejection.body_text())),
    };
    let mut response = match result {
        Ok(r) => r,
        Err(e) => e.into_response(),
    };
    timings.response = started.elapsed().as_secs_f64() * 1000.0
        - timings.jwt
        - timings.parse
        - timings.plan
        - timings.transaction;
    if timings.response < 0.0 {
        timings.response = 0.0;
    }
    if let Ok(v) = HeaderValue::from_str(&timings.header()) {
        response.headers_mut().insert("server-timing", v);
    }
    response
}

async fn serve(
    state: &RestState,
    method: &HttpMethod,
    uri: &Uri,
    headers: &HeaderMap,
    body: &Bytes,
    timings: &mut response::Timings,
) -> Result<Response, ApiError> {
    let inner = &state.inner;
    let config = &inner.config;

    // Who is asking.
    let t = Instant::now();
    let token = presented_token(
        header_str(headers, "authorization"),
        header_str(headers, "apikey"),
    );
    let claims = match token {
        None => Value::Object(Default::default()),
        Some(token) => inner.jwt.verify(token).map_err(|e| match e {
            JwtError::Expired => ApiError::jwt(true, "JWT expired"),
            // A claim check, like expiry: PostgREST's PGRST303.
            JwtError::Invalid(why) if why == plinth_db::jwt::NOT_YET_VALID => {
                ApiError::jwt(true, plinth_db::jwt::NOT_YET_VALID)
            }
            JwtError::Invalid(_) => {
                let parts = token.split('.').count();
                if parts != 3 {
                    ApiError::jwt(false, &format!("Expected 3 parts in JWT; got {parts}"))
                } else {
                    ApiError::jwt(false, "JWT cryptographic operation failed")
                }
            }
        })?,
    };
    let role = claims
        .get("role")
        .and_then(Value::as_str)
        .unwrap_or(&config.anon_role)
        .to_owned();
    timings.jwt = ms(t);

    // Parse.
    let t = Instant::now();
    let prefer: Vec<&str> = headers
        .get_all("prefer")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    let raw = request::RawRequest {
        method: method.as_str(),
        path: uri.path(),
        query: uri.query(),
        accept: header_str(headers, "accept"),
        accept_profile: header_str(headers, "accept-profile"),
        content_profile: header_str(headers, "content-profile"),
        content_type: header_str(headers, "content-type"),
        range: header_str(headers, "range"),
        prefer: &prefer,
        body,
    };
    let mut req = request::parse(&raw)?;
    if !config.plan_enabled && matches!(req.media, request::MediaType::Plan { .. }) {
        // Plans are not on offer: the next type of `Accept`, else 406.
        (req.media, req.strip_nulls) = request::MediaType::negotiate_for(raw.accept, false)?;
    }
    timings.parse = ms(t);

    // Plan against one snapshot.
    let t = Instant::now();
    let cache = inner.cache.load();
    let plan = plan::plan(&req, &cache, config)?;
    let csv_header = match (plan.media.representation(), &plan.action) {
        (request::MediaType::Csv, plan::Action::Read { node })
        | (
            request::MediaType::Csv,
            plan::Action::Call {
                result: plan::CallResult::Rows { node, .. },
                ..
            },
        )
        | (
            request::MediaType::Csv,
            plan::Action::Mutate {
                returning: Some(node),
                ..
            },
        ) => Some(node.output_names().join(",")),
        _ => None,
    };
    let statement = sql::render(&plan, csv_header.as_deref());
    timings.plan = ms(t);

    match &plan.action {
        plan::Action::Options => {
            let allow = match &req.target {
                request::Target::Table(_) => "OPTIONS,GET,HEAD,POST,PUT,PATCH,DELETE",
                request::Target::Rpc(_) => "OPTIONS,GET,HEAD,POST",
                request::Target::Root => "OPTIONS,GET,HEAD",
            };
            return Ok((StatusCode::OK, [(header::ALLOW, allow)]).into_response());
        }
        plan::Action::OpenApi => {
            let doc = openapi::document(&cache, &plan.schema, "/");
            let mut r = Response::new(if method == HttpMethod::HEAD {
                Body::empty()
            } else {
                Body::from(doc.to_string())
            });
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/openapi+json; charset=utf-8"),
            );
            return Ok(r);
        }
        _ => {}
    }
    let Some(statement) = statement else {
        return Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "PGRST000",
            "Nothing to execute",
        ));
    };
    drop(cache);

    // Execute as the caller. The search path is the request's schema, then
    // the extra ones as configured, repeats kept: PostgREST v14 sets (and
    // EXPLAIN's settings show) `"public", "public", "extensions"`.
    let mut search_path = vec![plan.schema.clone()];
    search_path.extend(config.extra_search_path.iter().cloned());
    let header_json: serde_json::Map<String, Value> = headers
        .iter()
        .filter_map(|(k, v)| {
            Some((
                k.as_str().to_owned(),
                Value::String(v.to_str().ok()?.to_owned()),
            ))
        })
        .collect();
    let ctx = execute::TxContext {
        authenticated: role != config.anon_role,
        role,
        claims: claims.to_string(),
        method: method.as_str().to_owned(),
        path: uri.path().to_owned(),
        headers: Value::Object(header_json).to_string(),
        search_path,
        read_only: plan.read_only,
    };
    let outcome = execute::run(&inner.db, &ctx, &plan, &statement, config.max_rows).await?;
    timings.transaction = outcome.transaction_ms;

    let offset = match &plan.action {
        plan::Action::Read { node } => node.range.offset,
        plan::Action::Call {
            result: plan::CallResult::Rows { node, .. },
            ..
        } => node.range.offset,
        _ => 0,
    };
    let location_base = match &req.target {
        request::Target::Table(t) => format!(
            "/{}",
            percent_encoding::utf8_percent_encode(t, response::URL_UNRESERVED)
        ),
        _ => String::new(),
    };
    response::respond(&plan, outcome, offset, &location_base)
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}
