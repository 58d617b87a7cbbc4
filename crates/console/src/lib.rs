//! The operator console's API (`/_/console/api`, see `console/API.md`):
//! sign-in of operators, and what the console reads and changes on their
//! behalf.
//!
//! Every route but `POST /session` is behind [`require_operator`]: a live
//! operator session (cookie), and for writes the console's header and the
//! node's own origin. The platform's own APIs are mounted under the same
//! door with the service key put in place of whatever the browser sent, so
//! the console talks to them with the official client and the key never
//! reaches the browser. Nothing here knows the marketplace.

pub mod activity;
mod error;
mod live;
pub mod operators;
mod policies;
mod schema;
pub mod settings;
mod sql;
mod users;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Json, Response};
use axum::routing::{get, post, put};
use plinth_db::{Database, MigrationSet};
use serde::Deserialize;
use serde_json::json;

pub use activity::Activity;
pub use error::{ConsoleError, Result};
pub use live::STREAM_CHECK;
pub use operators::{Operator, OperatorError, generate_password, remove_operator, set_operator};
pub use settings::Setting;

const COOKIE: &str = "plinth_console";
/// The header every write must carry (a page of another site cannot send it
/// without a CORS preflight, which the console's routes never grant).
pub const WRITE_HEADER: &str = "x-plinth-console";

/// The console's SQL (`plinth_console`: operators, sessions, SQL history).
pub fn migrations() -> MigrationSet {
    MigrationSet::embedded(
        "console",
        "crates/console/migrations",
        &[(
            "0001_console.sql",
            include_str!("../migrations/0001_console.sql"),
        )],
    )
    .expect("the embedded console migrations are well named")
}

/// Settings of the console (`PLINTH_CONSOLE_*`).
#[derive(Debug, Clone)]
pub struct ConsoleConfig {
    /// The built console app, served at `/_/console`.
    pub app_dir: PathBuf,
    /// A session ends this long after sign-in.
    pub session_lifetime: Duration,
    /// ... or after this long without a call.
    pub idle_timeout: Duration,
    /// An open event stream (a tail) checks its session this often, and
    /// ends when the session has ended.
    pub stream_check: Duration,
    /// This node's name (its host and port): behind a load balancer the
    /// console's log book, invocations and counts are those of the node
    /// that answers, and its health says which one that is.
    pub node: String,
    /// Cookies are `Secure` (the node's public address is https).
    pub secure_cookies: bool,
}

/// What the console works with, given by the server.
pub struct Parts {
    pub config: ConsoleConfig,
    pub db: Database,
    pub service_key: String,
    pub anon_key: String,
    pub rest: plinth_rest::RestState,
    pub realtime: plinth_realtime::RealtimeState,
    pub activity: Activity,
    /// The node's effective configuration, secrets already masked.
    pub settings: Vec<Setting>,
    /// The node's auth, REST and storage routers, and the dev mailbox's.
    pub auth: Router,
    pub rest_router: Router,
    pub storage: Router,
    pub mailbox: Router,
}

#[derive(Clone)]
struct ConsoleState {
    inner: Arc<Inner>,
}

struct Inner {
    config: ConsoleConfig,
    db: Database,
    service_key: String,
    service_authorization: HeaderValue,
    anon_key: String,
    rest: plinth_rest::RestState,
    realtime: plinth_realtime::RealtimeState,
    activity: Activity,
    settings: Vec<Setting>,
    mailbox: Router,
    failures: operators::Failures,
    /// Open tails of table changes (each holds a LISTEN connection).
    tails: Arc<tokio::sync::Semaphore>,
}

/// The operator a request was admitted for.
#[derive(Debug, Clone)]
struct Signed(Operator);

/// The console's router, to be nested at `/_/console`: the API under
/// `/api` and the built app everywhere else.
pub fn router(parts: Parts) -> Router {
    let app_dir = parts.config.app_dir.clone();
    let state = ConsoleState {
        inner: Arc::new(Inner {
            service_authorization: HeaderValue::try_from(format!("Bearer {}", parts.service_key))
                .unwrap_or_else(|_| HeaderValue::from_static("")),
            service_key: parts.service_key,
            anon_key: parts.anon_key,
            config: parts.config,
            db: parts.db,
            rest: parts.rest,
            realtime: parts.realtime,
            activity: parts.activity,
            settings: parts.settings,
            mailbox: parts.mailbox,
            failures: operators::Failures::default(),
            tails: Arc::new(tokio::sync::Semaphore::new(live::MAX_TAILS)),
        }),
    };
    let platform = Router::new()
        .nest("/auth/v1", parts.auth)
        .nest("/rest/v1", parts.rest_router)
        .nest("/storage/v1", parts.storage)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            as_service_role,
        ));
    let guarded = Router::new()
        .route("/users", get(users::list))
        .route(
            "/users/{id}/sessions",
            get(users::sessions).delete(users::sign_out_everywhere),
        )
        .route("/schema", get(schema::relations))
        .route("/sql", post(sql::run))
        .route("/sql/history", get(sql::history))
        .route("/policies", get(policies::list))
        .route("/policies/rls", put(policies::set_rls))
        .route("/policies/matrix", get(policies::matrix))
        .route("/realtime", get(live::realtime))
        .route("/realtime/tables", post(live::publish_table))
        .route("/realtime/changes", get(live::changes))
        .route("/functions/invocations", get(live::invocations))
        .route("/logs", get(live::logs))
        .route("/logs/stream", get(live::log_stream))
        .route("/health", get(live::health))
        .route("/mailbox", get(live::mailbox))
        .route("/settings", get(settings::show))
        .route("/settings/service-key", post(settings::service_key))
        .with_state(state.clone())
        .merge(platform)
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            require_operator,
        ));
    let api = Router::new()
        .route(
            "/session",
            post(sign_in)
                .get(current_session)
                .delete(sign_out)
                .route_layer(axum::middleware::from_fn(same_origin_writes)),
        )
        .with_state(state.clone())
        .merge(guarded)
        .fallback(|| async { ConsoleError::not_found("The console's API has no such call") })
        .layer(axum::middleware::map_response(private));
    let index = app_dir.join("index.html");
    Router::new().nest("/api", api).fallback_service(
        tower_http::services::ServeDir::new(&app_dir)
            .fallback(tower_http::services::ServeFile::new(index)),
    )
}

/// The Content-Security-Policy of the console's pages: its own files only,
/// and no framing.
pub const CONSOLE_CSP: &str = "default-src 'self'; img-src 'self' data: blob: https:; \
     style-src 'self' 'unsafe-inline'; connect-src 'self'; object-src 'none'; \
     base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

/// Console answers are never cached nor shared with other origins.
async fn private(mut response: Response) -> Response {
    let headers = response.headers_mut();
    for name in [
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        header::ACCESS_CONTROL_ALLOW_CREDENTIALS,
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        header::ACCESS_CONTROL_ALLOW_METHODS,
        header::ACCESS_CONTROL_EXPOSE_HEADERS,
    ] {
        headers.remove(name);
    }
    headers
        .entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
    response
}

fn session_cookie(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value.to_owned())
        .filter(|v| v.len() == 64 && v.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Writes must carry the console's header and, when the browser names an
/// origin, come from the node's own (the `Host` they were sent to).
fn write_allowed(method: &Method, headers: &HeaderMap) -> bool {
    if matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS) {
        return true;
    }
    if headers.get(WRITE_HEADER).is_none_or(|v| v != "1") {
        return false;
    }
    match headers.get(header::ORIGIN) {
        None => true,
        Some(origin) => {
            let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
            let origin_host = origin
                .to_str()
                .ok()
                .and_then(|o| o.split_once("://"))
                .map(|(_, rest)| rest);
            matches!((host, origin_host), (Some(h), Some(o)) if h.eq_ignore_ascii_case(o))
        }
    }
}

fn cross_origin() -> ConsoleError {
    ConsoleError::new(
        StatusCode::FORBIDDEN,
        "cross_origin",
        "Console writes come only from the console's own pages",
    )
}

async fn same_origin_writes(request: Request, next: Next) -> Response {
    if !write_allowed(request.method(), request.headers()) {
        return cross_origin().into_response();
    }
    next.run(request).await
}

/// The door of every console route but sign-in.
async fn require_operator(
    State(state): State<ConsoleState>,
    mut request: Request,
    next: Next,
) -> Response {
    if !write_allowed(request.method(), request.headers()) {
        return cross_origin().into_response();
    }
    let Some(token) = session_cookie(request.headers()) else {
        return ConsoleError::not_signed_in().into_response();
    };
    match operators::session(
        &state.inner.db.owner,
        &token,
        state.inner.config.idle_timeout,
    )
    .await
    {
        Ok(Some((operator, _))) => {
            request.extensions_mut().insert(Signed(operator));
            next.run(request).await
        }
        Ok(None) => ConsoleError::not_signed_in().into_response(),
        Err(e) => ConsoleError::from(e).into_response(),
    }
}

/// The platform's APIs as service role: the browser's credentials and
/// cookie are dropped and the service key takes their place.
async fn as_service_role(
    State(state): State<ConsoleState>,
    mut request: Request,
    next: Next,
) -> Response {
    let headers = request.headers_mut();
    headers.remove(header::COOKIE);
    headers.remove(WRITE_HEADER);
    headers.insert(
        header::AUTHORIZATION,
        state.inner.service_authorization.clone(),
    );
    match HeaderValue::try_from(state.inner.service_key.as_str()) {
        Ok(key) => {
            headers.insert("apikey", key);
        }
        Err(_) => return ConsoleError::not_signed_in().into_response(),
    }
    next.run(request).await
}

/// The client's address as the rest of the node reads it (forwarding
/// headers reach here only from a trusted proxy).
fn client_address(request: &Request) -> String {
    let header = |name: &str| request.headers().get(name).and_then(|v| v.to_str().ok());
    let peer = request
        .extensions()
        .get::<ConnectInfo<std::net::SocketAddr>>()
        .map(|c| c.0.ip());
    plinth_db::client_address(header("x-forwarded-for"), header("x-real-ip"), peer)
}

#[derive(Deserialize)]
struct SignIn {
    email: String,
    password: String,
}

fn cookie_header(state: &ConsoleState, value: &str, max_age: Option<u64>) -> HeaderValue {
    let secure = if state.inner.config.secure_cookies {
        "; Secure"
    } else {
        ""
    };
    let age = max_age.map_or_else(|| "; Max-Age=0".to_owned(), |s| format!("; Max-Age={s}"));
    HeaderValue::try_from(format!(
        "{COOKIE}={value}; Path=/_/console; HttpOnly; SameSite=Strict{secure}{age}"
    ))
    .unwrap_or_else(|_| HeaderValue::from_static(""))
}

async fn sign_in(State(state): State<ConsoleState>, request: Request) -> Result<Response> {
    let address = client_address(&request);
    let user_agent = request
        .headers()
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let body = axum::body::to_bytes(request.into_body(), 16 * 1024)
        .await
        .map_err(|_| ConsoleError::bad_request("The request body is too large"))?;
    let SignIn { email, password } = serde_json::from_slice(&body)
        .map_err(|_| ConsoleError::bad_request("Send {\"email\": ..., \"password\": ...}"))?;
    match state.inner.failures.attempt(&address, &email) {
        operators::Attempt::Refused => {
            return Err(ConsoleError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "too_many_attempts",
                "Too many failed sign-ins from this address; try again later",
            ));
        }
        operators::Attempt::Go(wait) if !wait.is_zero() => tokio::time::sleep(wait).await,
        operators::Attempt::Go(_) => {}
    }
    let db = &state.inner.db.owner;
    let Some(operator) = operators::check_password(db, &email, &password).await? else {
        state.inner.failures.failed(&address, &email);
        tracing::warn!(target: "plinth_console", email = %email.chars().take(254).collect::<String>(), "console: a sign-in failed");
        return Err(ConsoleError::new(
            StatusCode::UNAUTHORIZED,
            "invalid_credentials",
            "Wrong e-mail address or password",
        ));
    };
    state.inner.failures.succeeded(&address, &email);
    let token = operators::new_session_token();
    let lifetime = state.inner.config.session_lifetime;
    let expires = operators::start_session(
        db,
        &operator,
        &token,
        lifetime,
        &address,
        user_agent.as_deref(),
    )
    .await?;
    tracing::info!(target: "plinth_console", operator = %operator.email, "console: an operator signed in");
    let mut response = Json(json!({ "operator": operator, "expires_at": expires })).into_response();
    response.headers_mut().insert(
        header::SET_COOKIE,
        cookie_header(&state, &token, Some(lifetime.as_secs())),
    );
    Ok(response)
}

async fn current_session(
    State(state): State<ConsoleState>,
    headers: HeaderMap,
) -> Result<Response> {
    let token = session_cookie(&headers).ok_or_else(ConsoleError::not_signed_in)?;
    let (operator, expires) = operators::session(
        &state.inner.db.owner,
        &token,
        state.inner.config.idle_timeout,
    )
    .await?
    .ok_or_else(ConsoleError::not_signed_in)?;
    Ok(Json(json!({ "operator": operator, "expires_at": expires })).into_response())
}

async fn sign_out(State(state): State<ConsoleState>, headers: HeaderMap) -> Result<Response> {
    if let Some(token) = session_cookie(&headers) {
        operators::end_session(&state.inner.db.owner, &token).await?;
    }
    let mut response = StatusCode::NO_CONTENT.into_response();
    response
        .headers_mut()
        .insert(header::SET_COOKIE, cookie_header(&state, "", None));
    Ok(response)
}

/// A switch for one table (`{"schema", "table", "enabled"}`): row-level
/// security, or publishing its changes.
#[derive(Deserialize)]
struct TableSwitch {
    schema: String,
    table: String,
    enabled: bool,
}

impl TableSwitch {
    fn parse(body: &[u8]) -> Result<Self> {
        serde_json::from_slice(body).map_err(|_| {
            ConsoleError::bad_request("Send {\"schema\", \"table\", \"enabled\": true|false}")
        })
    }
}

/// Query strings of the console's reads.
fn query_map(query: Option<&str>) -> std::collections::HashMap<String, String> {
    form_urlencoded::parse(query.unwrap_or("").as_bytes())
        .into_owned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(
                *name,
                HeaderValue::try_from(*value).expect("a header value"),
            );
        }
        map
    }

    #[test]
    fn writes_need_the_header_and_the_own_origin() {
        let get = Method::GET;
        let post = Method::POST;
        assert!(write_allowed(&get, &headers(&[])));
        assert!(!write_allowed(&post, &headers(&[])));
        assert!(write_allowed(&post, &headers(&[(WRITE_HEADER, "1")])));
        assert!(write_allowed(
            &post,
            &headers(&[
                (WRITE_HEADER, "1"),
                ("origin", "http://127.0.0.1:8000"),
                ("host", "127.0.0.1:8000")
            ])
        ));
        assert!(!write_allowed(
            &post,
            &headers(&[
                (WRITE_HEADER, "1"),
                ("origin", "https://evil.example"),
                ("host", "127.0.0.1:8000")
            ])
        ));
        assert!(!write_allowed(
            &Method::DELETE,
            &headers(&[(WRITE_HEADER, "0")])
        ));
    }

    #[test]
    fn only_a_well_formed_cookie_is_read() {
        let good = "a".repeat(64);
        assert_eq!(
            session_cookie(&headers(&[("cookie", &format!("x=1; {COOKIE}={good}"))])),
            Some(good)
        );
        assert_eq!(
            session_cookie(&headers(&[("cookie", &format!("{COOKIE}=short"))])),
            None
        );
        assert_eq!(session_cookie(&headers(&[])), None);
    }
}
