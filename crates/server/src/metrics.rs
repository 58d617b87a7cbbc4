//! `/metrics`: the node's figures in the Prometheus (OpenMetrics) text format.
//!
//! Requests are counted by service, route, method and status, with a latency
//! histogram by service and route. The route is the template the request
//! matched (`/rest/v1/{table}`), never the path a client wrote, so a client
//! cannot grow the label set; requests that matched no route count under
//! `unmatched`. Pools, realtime sockets, stored bytes, memory and the
//! database's health are read when scraped. Readable with the service key
//! (Bearer) or `PLINTH_METRICS_TOKEN`, never anonymously.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Json, Response};
use axum::routing::get;
use plinth_db::{Database, JwtSecret};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use serde_json::json;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    service: &'static str,
    route: Arc<str>,
    method: &'static str,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    service: &'static str,
    route: Arc<str>,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct AuthLabels {
    event: &'static str,
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PoolLabels {
    pool: &'static str,
    state: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PoolName {
    pool: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LimiterName {
    limiter: &'static str,
}

fn latency_histogram() -> Histogram {
    // 0.5 ms to about 16 s.
    Histogram::new(exponential_buckets(0.0005, 2.0, 16))
}

/// The node's metrics; cheap to clone.
#[derive(Clone)]
pub struct Metrics {
    inner: Arc<Inner>,
}

struct Inner {
    /// Requests answered, for [`Metrics::served`].
    served: std::sync::atomic::AtomicU64,
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    latency: Family<RouteLabels, Histogram, fn() -> Histogram>,
    auth_events: Family<AuthLabels, Counter>,
    pool_connections: Family<PoolLabels, Gauge>,
    pool_max: Family<PoolName, Gauge>,
    pool_waiting: Family<PoolName, Gauge>,
    realtime_sockets: Gauge,
    realtime_topics: Gauge,
    realtime_channels: Gauge,
    storage_objects: Gauge,
    storage_bytes: Gauge,
    limiter_keys: Family<LimiterName, Gauge>,
    limiter_swept: Family<LimiterName, Gauge>,
    database_up: Gauge,
    database_ping: Gauge<f64, std::sync::atomic::AtomicU64>,
    resident_memory: Gauge,
    /// When storage was last counted (see [`STORAGE_RECOUNT`]).
    storage_counted: std::sync::Mutex<Option<Instant>>,
    /// The console's activity book, which sees every request (console on).
    activity: std::sync::OnceLock<plinth_console::Activity>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    pub fn new() -> Self {
        let mut registry = Registry::with_prefix("plinth");
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "http_requests",
            "HTTP requests by service, matched route, method and status",
            requests.clone(),
        );
        let latency = Family::<RouteLabels, Histogram, fn() -> Histogram>::new_with_constructor(
            latency_histogram as fn() -> Histogram,
        );
        registry.register(
            "http_request_duration_seconds",
            "Time to the response's head, by service and matched route",
            latency.clone(),
        );
        let auth_events = Family::<AuthLabels, Counter>::default();
        registry.register(
            "auth_events",
            "Sign-ups, sign-ins, refreshes, sign-outs and e-mails asked for, by outcome",
            auth_events.clone(),
        );
        let pool_connections = Family::<PoolLabels, Gauge>::default();
        registry.register(
            "db_pool_connections",
            "Open database connections by pool and state (idle, in_use)",
            pool_connections.clone(),
        );
        let pool_max = Family::<PoolName, Gauge>::default();
        registry.register(
            "db_pool_max_connections",
            "Largest number of connections of each pool",
            pool_max.clone(),
        );
        let pool_waiting = Family::<PoolName, Gauge>::default();
        registry.register(
            "db_pool_waiting",
            "Requests waiting for a connection (the REST gateway's pipelined pool)",
            pool_waiting.clone(),
        );
        let gauge = |registry: &mut Registry, name: &str, help: &str| {
            let gauge = Gauge::default();
            registry.register(name, help, gauge.clone());
            gauge
        };
        let realtime_sockets = gauge(
            &mut registry,
            "realtime_sockets",
            "Open realtime websockets",
        );
        let realtime_topics = gauge(
            &mut registry,
            "realtime_topics",
            "Realtime topics with a subscriber on this node",
        );
        let realtime_channels = gauge(
            &mut registry,
            "realtime_channels",
            "Joined realtime channels on this node",
        );
        let storage_objects = gauge(&mut registry, "storage_objects", "Stored objects");
        let storage_bytes = gauge(&mut registry, "storage_bytes", "Bytes of stored objects");
        let database_up = gauge(
            &mut registry,
            "database_up",
            "Whether the database answered within a second (1) or not (0)",
        );
        let database_ping = Gauge::<f64, std::sync::atomic::AtomicU64>::default();
        registry.register(
            "database_ping_seconds",
            "Time the database took to answer a ping",
            database_ping.clone(),
        );
        let limiter_keys = Family::<LimiterName, Gauge>::default();
        registry.register(
            "rate_limiter_keys",
            "Keys (clients, accounts, factors) a rate limiter holds a state for",
            limiter_keys.clone(),
        );
        let limiter_swept = Family::<LimiterName, Gauge>::default();
        registry.register(
            "rate_limiter_swept_keys",
            "Key states a rate limiter's sweeps have looked at since the start",
            limiter_swept.clone(),
        );
        let resident_memory = gauge(
            &mut registry,
            "process_resident_memory_bytes",
            "Resident memory of this process",
        );
        Self {
            inner: Arc::new(Inner {
                served: std::sync::atomic::AtomicU64::new(0),
                registry,
                requests,
                latency,
                auth_events,
                pool_connections,
                pool_max,
                pool_waiting,
                realtime_sockets,
                realtime_topics,
                realtime_channels,
                storage_objects,
                storage_bytes,
                database_up,
                database_ping,
                resident_memory,
                limiter_keys,
                limiter_swept,
                storage_counted: std::sync::Mutex::new(None),
                activity: std::sync::OnceLock::new(),
            }),
        }
    }

    /// Reports every request to the console's activity book from now on
    /// (the first book given stays).
    pub fn report_to(&self, activity: plinth_console::Activity) {
        let _ = self.inner.activity.set(activity);
    }

    /// Requests answered since start.
    pub fn served(&self) -> u64 {
        self.inner.served.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn observe(&self, request: &Observed, route: Arc<str>, status: StatusCode, elapsed: Duration) {
        let inner = &self.inner;
        inner
            .served
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        inner
            .requests
            .get_or_create(&RequestLabels {
                service: request.service,
                route: route.clone(),
                method: request.method,
                status: status.as_u16(),
            })
            .inc();
        inner
            .latency
            .get_or_create(&RouteLabels {
                service: request.service,
                route: route.clone(),
            })
            .observe(elapsed.as_secs_f64());
        if let Some(event) = auth_event(&route, request.grant_type) {
            let outcome = if status.is_client_error() || status.is_server_error() {
                "failed"
            } else {
                "ok"
            };
            inner
                .auth_events
                .get_or_create(&AuthLabels { event, outcome })
                .inc();
        }
    }

    /// Reads what is measured at scrape time, then encodes everything.
    async fn scrape(&self, sources: &Sources) -> String {
        let inner = &self.inner;
        let db = &sources.db;
        for (pool, name) in [(&db.api, "api"), (&db.owner, "owner")] {
            let size = i64::from(pool.size());
            let idle = i64::try_from(pool.num_idle()).unwrap_or(i64::MAX);
            self.pool(
                name,
                size - idle,
                idle,
                i64::from(pool.options().get_max_connections()),
            );
        }
        let status = db.pipelined.status();
        self.pool(
            "pipelined",
            count(status.size.saturating_sub(status.available)),
            count(status.available),
            count(status.max_size),
        );
        inner
            .pool_waiting
            .get_or_create(&PoolName { pool: "pipelined" })
            .set(count(status.waiting));

        if let Some(realtime) = &sources.realtime {
            let realtime = realtime.stats();
            inner.realtime_sockets.set(count(realtime.sockets));
            inner.realtime_topics.set(count(realtime.topics));
            inner.realtime_channels.set(count(realtime.channels));
        }

        for stats in sources.limiters.iter().flat_map(|read| read()) {
            let (limiter, stats) = stats;
            let name = LimiterName { limiter };
            inner
                .limiter_keys
                .get_or_create(&name)
                .set(count(stats.keys));
            inner
                .limiter_swept
                .get_or_create(&name)
                .set(i64::try_from(stats.swept).unwrap_or(i64::MAX));
        }

        let started = Instant::now();
        let up = db.ping_within(Duration::from_secs(1)).await.is_ok();
        inner.database_up.set(i64::from(up));
        inner.database_ping.set(started.elapsed().as_secs_f64());
        if up
            && self.storage_count_due()
            && let Ok((objects, bytes)) = count_storage(&db.owner).await
        {
            inner.storage_objects.set(objects);
            inner.storage_bytes.set(bytes);
        }
        if let Some(rss) = resident_memory() {
            inner.resident_memory.set(rss);
        }

        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &inner.registry);
        text
    }

    /// Whether storage is to be counted now (then not again for
    /// [`STORAGE_RECOUNT`], whoever scrapes meanwhile).
    fn storage_count_due(&self) -> bool {
        let mut counted = self
            .inner
            .storage_counted
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if counted.is_some_and(|at| at.elapsed() < STORAGE_RECOUNT) {
            return false;
        }
        *counted = Some(Instant::now());
        true
    }

    fn pool(&self, pool: &'static str, in_use: i64, idle: i64, max: i64) {
        let inner = &self.inner;
        for (state, value) in [("in_use", in_use), ("idle", idle)] {
            inner
                .pool_connections
                .get_or_create(&PoolLabels { pool, state })
                .set(value);
        }
        inner.pool_max.get_or_create(&PoolName { pool }).set(max);
    }
}

/// The storage gauges are a scan of every object's row: a scrape counts at
/// most once a minute (the gauges keep the last count between), so a
/// scraper every few seconds does not scan a large table as often.
const STORAGE_RECOUNT: Duration = Duration::from_secs(60);

/// Objects and their bytes; the scan stops (in the database too) after a
/// second.
async fn count_storage(owner: &sqlx::PgPool) -> Result<(i64, i64), sqlx::Error> {
    let mut tx = owner.begin().await?;
    sqlx::query("set local statement_timeout = 1000")
        .execute(&mut *tx)
        .await?;
    let counted = sqlx::query_as::<_, (i64, i64)>(
        "select count(*), coalesce(sum((metadata->>'size')::bigint), 0)::bigint from storage.objects",
    )
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(counted)
}

fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Resident memory in bytes (`VmRSS` of `/proc/self/status`).
fn resident_memory() -> Option<i64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: i64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// What is known of a request before it is answered.
struct Observed {
    service: &'static str,
    method: &'static str,
    grant_type: Option<&'static str>,
}

/// The service a path belongs to, from its prefix alone.
fn service_of(path: &str) -> &'static str {
    let first = path.trim_start_matches('/').split('/').next().unwrap_or("");
    match first {
        "auth" => "auth",
        "rest" => "rest",
        "storage" => "storage",
        "realtime" => "realtime",
        "functions" | "api" => "functions",
        "_" if path.starts_with("/_/mailbox") => "mailbox",
        "_" if path.starts_with("/_/console") => "console",
        "health" | "metrics" | "_" => "node",
        _ => "app",
    }
}

fn method_label(method: &axum::http::Method) -> &'static str {
    use axum::http::Method;
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

/// The grant of a token request, among those the auth service knows.
fn grant_type(query: Option<&str>) -> Option<&'static str> {
    let query = query?;
    let value = query
        .split('&')
        .find_map(|pair| pair.strip_prefix("grant_type="))?;
    Some(match value {
        "password" => "password",
        "refresh_token" => "refresh_token",
        "pkce" => "pkce",
        "id_token" => "id_token",
        "web3" => "web3",
        _ => "other",
    })
}

fn auth_event(route: &str, grant_type: Option<&'static str>) -> Option<&'static str> {
    Some(match route {
        "/auth/v1/token" => match grant_type {
            Some("refresh_token") => "token_refreshed",
            Some("password") => "signed_in_password",
            Some("pkce") => "signed_in_pkce",
            Some("id_token") => "signed_in_id_token",
            Some("web3") => "signed_in_web3",
            _ => "token_other",
        },
        "/auth/v1/signup" => "signed_up",
        "/auth/v1/logout" => "signed_out",
        "/auth/v1/verify" => "verified",
        "/auth/v1/otp" => "otp_sent",
        "/auth/v1/recover" => "recovery_sent",
        _ => return None,
    })
}

/// The route template a request matched, carried out on the response from
/// inside the router that matched it.
#[derive(Clone)]
struct Route(Arc<str>);

/// A `route_layer` for every router the node mounts: records the matched
/// route's template (nested routers see the whole path) unless a router
/// nested deeper already did.
pub async fn mark_route(matched: Option<MatchedPath>, request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    if let Some(matched) = matched
        && response.extensions().get::<Route>().is_none()
    {
        response
            .extensions_mut()
            .insert(Route(Arc::from(matched.as_str())));
    }
    response
}

/// The middleware that counts and times every request.
pub async fn record(State(metrics): State<Metrics>, request: Request, next: Next) -> Response {
    let path = request.uri().path();
    let service = service_of(path);
    let observed = Observed {
        service,
        method: method_label(request.method()),
        grant_type: (service == "auth")
            .then(|| grant_type(request.uri().query()))
            .flatten(),
    };
    // Only the console's book needs the path and id, copied when it is on.
    let seen = metrics.inner.activity.get().map(|_| {
        let id = request
            .headers()
            .get(&crate::request_id::HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        (
            request.method().to_string(),
            request.uri().path().to_owned(),
            id,
        )
    });
    let started = Instant::now();
    let response = next.run(request).await;
    let elapsed = started.elapsed();
    let route = response
        .extensions()
        .get::<Route>()
        .map_or_else(|| Arc::from("unmatched"), |r| r.0.clone());
    if let (Some(activity), Some((method, path, id))) = (metrics.inner.activity.get(), &seen) {
        activity.request(&plinth_console::activity::RequestSeen {
            service: observed.service,
            method,
            path,
            route: Some(&route),
            status: response.status().as_u16(),
            elapsed,
            request_id: id.as_deref(),
        });
    }
    metrics.observe(&observed, route, response.status(), elapsed);
    response
}

/// What a scrape reads besides the counters.
#[derive(Clone)]
pub struct Sources {
    pub metrics: Metrics,
    /// The services' rate limiters: each one's name and what it holds.
    pub limiters: Vec<LimiterStats>,
    pub db: Database,
    /// `None` on a read replica's node, which serves no websockets.
    pub realtime: Option<plinth_realtime::RealtimeState>,
    pub secret: JwtSecret,
    /// `PLINTH_METRICS_TOKEN`: a bearer token that may read the metrics.
    pub token: Option<Arc<str>>,
}

/// Reads some service's rate limiters (their names and what they hold).
pub type LimiterStats = Arc<dyn Fn() -> Vec<(&'static str, plinth_limits::Stats)> + Send + Sync>;

/// The `/metrics` route.
pub fn router(sources: Sources) -> Router {
    Router::new()
        .route("/metrics", get(scrape))
        .with_state(sources)
}

async fn scrape(State(sources): State<Sources>, request: Request) -> Response {
    if !may_read(&sources, request.headers()) {
        let mut response = (
            StatusCode::UNAUTHORIZED,
            Json(json!({
                "code": 401,
                "message": "metrics need the service key or the metrics token as a Bearer token"
            })),
        )
            .into_response();
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return response;
    }
    let text = sources.metrics.scrape(&sources).await;
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        text,
    )
        .into_response()
}

fn may_read(sources: &Sources, headers: &axum::http::HeaderMap) -> bool {
    let Some(token) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(str::trim)
    else {
        return false;
    };
    if let Some(expected) = &sources.token
        && constant_time_eq(token.as_bytes(), expected.as_bytes())
    {
        return true;
    }
    sources
        .secret
        .verify(token)
        .is_ok_and(|claims| claims["role"] == "service_role")
}

/// Equality whose time does not depend on where the inputs differ.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn services_come_from_the_prefix_alone() {
        for (path, service) in [
            ("/rest/v1/templates", "rest"),
            ("/auth/v1/token", "auth"),
            ("/storage/v1/object/public/a/b.png", "storage"),
            ("/realtime/v1/websocket", "realtime"),
            ("/functions/v1/hello", "functions"),
            ("/api/create-free-order", "functions"),
            ("/_/mailbox", "mailbox"),
            ("/_/app-config.json", "node"),
            ("/health", "node"),
            ("/metrics", "node"),
            ("/templates/abc", "app"),
            ("/", "app"),
        ] {
            assert_eq!(service_of(path), service, "{path}");
        }
    }

    #[test]
    fn grant_types_are_a_closed_set() {
        assert_eq!(grant_type(Some("grant_type=password")), Some("password"));
        assert_eq!(
            grant_type(Some("a=1&grant_type=refresh_token")),
            Some("refresh_token")
        );
        assert_eq!(
            grant_type(Some("grant_type=anything-at-all")),
            Some("other")
        );
        assert_eq!(grant_type(Some("x=1")), None);
        assert_eq!(grant_type(None), None);
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(constant_time_eq(b"secret", b"secret"));
        assert!(!constant_time_eq(b"secret", b"secreT"));
        assert!(!constant_time_eq(b"secret", b"secret2"));
        assert!(!constant_time_eq(b"", b"x"));
    }
}
