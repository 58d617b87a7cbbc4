//! The HTTP surface of one node: the services under their platform prefixes,
//! `/health`, and the web app at `/`.

use std::path::Path;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Json, Response};
use axum::routing::get;
use plinth_db::Database;
use serde_json::json;
use tower_http::cors::{AllowHeaders, AllowOrigin, CorsLayer};
use tower_http::services::{ServeDir, ServeFile};
use tower_http::trace::TraceLayer;

use crate::keys::Keys;
use crate::metrics::{self, Metrics};
use crate::request_id;

/// What every handler of the node shares. Cheap to clone.
#[derive(Debug, Clone)]
pub struct AppState {
    pub db: Database,
    pub keys: Arc<Keys>,
    /// Whether X-Forwarded-For / X-Real-IP from clients are believed.
    pub trust_proxy_headers: bool,
    /// Stripe's publishable key, handed to the app's checkout (`None`: the
    /// simulated provider needs none).
    pub stripe_publishable_key: Option<String>,
    /// The newsletter form's external automation webhook
    /// (PLINTH_NEWSLETTER_WEBHOOK_URL), handed to the app; its origin is
    /// added to the app's CSP `connect-src`.
    pub newsletter_webhook_url: Option<url::Url>,
    /// PLINTH_METRICS_TOKEN: may read `/metrics`, as the service key may.
    pub metrics_token: Option<Arc<str>>,
    /// The node's request counters (one set per node, however many routers).
    pub metrics: Metrics,
}

/// The services a node mounts, each under its platform prefix.
pub struct Services {
    pub auth: plinth_auth::AuthState,
    pub rest: plinth_rest::RestState,
    pub storage: plinth_storage::StorageState,
    pub realtime: plinth_realtime::RealtimeState,
    pub functions: plinth_marketplace::FunctionsState,
    /// The function host: the project's own functions, and the
    /// marketplace's registered with it.
    pub function_host: plinth_functions::FunctionsHost,
    /// The operator console (`PLINTH_CONSOLE`), when on.
    pub console: Option<ConsoleSetup>,
}

/// What the console needs besides the services.
pub struct ConsoleSetup {
    pub config: plinth_console::ConsoleConfig,
    pub activity: plinth_console::Activity,
    pub settings: Vec<plinth_console::Setting>,
}

/// The node's router. `app_dir` is the built web app (served with a fallback
/// to its `index.html`, so the app's own routes load on refresh).
pub fn router(state: AppState, app_dir: &Path, services: Services) -> Router {
    let trust_proxy_headers = state.trust_proxy_headers;
    let csp = app_csp(state.newsletter_webhook_url.as_ref());
    let metrics = state.metrics.clone();
    let console = services.console.map(|setup| {
        plinth_console::router(plinth_console::Parts {
            config: setup.config,
            db: state.db.clone(),
            service_key: state.keys.service_role_key.clone(),
            anon_key: state.keys.anon_key.clone(),
            rest: services.rest.clone(),
            realtime: services.realtime.clone(),
            activity: setup.activity,
            settings: setup.settings,
            auth: plinth_auth::router(services.auth.clone()),
            rest_router: plinth_rest::router(services.rest.clone()),
            storage: plinth_storage::router(services.storage.clone()),
            mailbox: plinth_auth::mailbox_router(services.auth.clone()),
        })
    });
    let limiters: Vec<metrics::LimiterStats> = {
        let auth = services.auth.clone();
        let functions = services.functions.clone();
        let storage = services.storage.clone();
        vec![
            Arc::new(move || auth.rate_limit_stats()),
            Arc::new(move || functions.rate_limit_stats()),
            Arc::new(move || storage.rate_limit_stats()),
        ]
    };
    let api = node_routes(state, Some(services.realtime.clone()), limiters)
        .nest(
            "/auth/v1",
            marked(plinth_auth::router(services.auth.clone())),
        )
        .nest("/rest/v1", marked(plinth_rest::router(services.rest)))
        .nest(
            "/storage/v1",
            marked(plinth_storage::router(services.storage)),
        )
        .nest(
            "/realtime/v1",
            marked(plinth_realtime::router(services.realtime)),
        )
        .nest(
            "/api",
            marked(plinth_marketplace::api_router(services.functions.clone())),
        )
        .nest(
            "/_/mailbox",
            marked(plinth_auth::mailbox_router(services.auth)),
        );
    let api = match app_pages(app_dir, csp.clone(), services.functions.clone()) {
        Some(pages) => api.fallback_service(pages),
        None => api.route(
            "/",
            get(no_app).layer(axum::middleware::map_response_with_state(csp, page_headers)),
        ),
    };
    // The TUS discovery request is a plain OPTIONS (no
    // Access-Control-Request-Method), which the CORS layer would answer as a
    // preflight: it goes to the storage route instead.
    let uncors = api.clone();
    let api = api.layer(cors());
    // The function host is nested outside the CORS layer: a project's own
    // function answers its preflights and sets its CORS headers itself, as
    // on the platform; the marketplace's handlers get the node's CORS.
    let builtin = plinth_functions::Builtin {
        names: plinth_marketplace::FUNCTION_NAMES
            .iter()
            .map(|name| (*name).to_owned())
            .collect(),
        router: plinth_marketplace::router(services.functions).layer(cors()),
        verify_jwt: true,
    };
    let api = api.nest(
        "/functions/v1",
        marked(plinth_functions::router(
            services.function_host,
            Some(builtin),
        )),
    );
    // The console is nested outside the CORS layer: no other origin may
    // read or call it.
    let api = match console {
        Some(console) => api.nest(
            "/_/console",
            marked(console).layer(axum::middleware::map_response_with_state(
                HeaderValue::from_static(plinth_console::CONSOLE_CSP),
                page_headers,
            )),
        ),
        None => api,
    };
    let api = api.layer(axum::middleware::from_fn(
        move |request: Request, next: Next| {
            // The router is cloned only for the requests that take it.
            let uncors = (request.method() == Method::OPTIONS
                && !request
                    .headers()
                    .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD)
                && request
                    .uri()
                    .path()
                    .starts_with("/storage/v1/upload/resumable"))
            .then(|| uncors.clone());
            async move {
                if let Some(uncors) = uncors {
                    use tower::ServiceExt;
                    return match uncors.oneshot(request).await {
                        Ok(response) => response,
                        Err(never) => match never {},
                    };
                }
                next.run(request).await
            }
        },
    ));
    outer_layers(api, trust_proxy_headers, metrics)
}

/// The router of a node on a read replica (`PLINTH_READ_REPLICA`): the REST
/// gateway, for the reads a load balancer sends it, and the node's own
/// routes (`/health`, `/metrics`).
pub fn read_router(state: AppState, rest: plinth_rest::RestState) -> Router {
    let trust_proxy_headers = state.trust_proxy_headers;
    let metrics = state.metrics.clone();
    let api =
        node_routes(state, None, Vec::new()).nest("/rest/v1", marked(plinth_rest::router(rest)));
    outer_layers(api.layer(cors()), trust_proxy_headers, metrics)
}

/// Marks the route template a router matched, for the metrics.
fn marked(router: Router) -> Router {
    router.route_layer(axum::middleware::from_fn(metrics::mark_route))
}

/// `/health`, `/_/app-config.json` and `/metrics`.
fn node_routes(
    state: AppState,
    realtime: Option<plinth_realtime::RealtimeState>,
    limiters: Vec<metrics::LimiterStats>,
) -> Router {
    let scrape = metrics::router(metrics::Sources {
        metrics: state.metrics.clone(),
        limiters,
        db: state.db.clone(),
        realtime,
        secret: state.keys.secret.clone(),
        token: state.metrics_token.clone(),
    });
    marked(
        Router::new()
            .route("/health", get(health))
            .route("/_/app-config.json", get(app_config))
            .with_state(state)
            .merge(scrape),
    )
}

/// What every answer goes through, outermost last: proxy-header hygiene,
/// `nosniff`, the metrics, the log span and the request id.
fn outer_layers(api: Router, trust_proxy_headers: bool, metrics: Metrics) -> Router {
    api.layer(axum::middleware::from_fn(
        move |mut request: Request, next: Next| async move {
            if !trust_proxy_headers {
                let headers = request.headers_mut();
                headers.remove("x-forwarded-for");
                headers.remove("x-real-ip");
            }
            next.run(request).await
        },
    ))
    .layer(axum::middleware::map_response(nosniff))
    .layer(axum::middleware::from_fn_with_state(
        metrics,
        metrics::record,
    ))
    .layer(TraceLayer::new_for_http().make_span_with(request_id::span))
    .layer(axum::middleware::from_fn(request_id::assign))
}

/// The Content-Security-Policy of the web app's pages. Scripts only from
/// the app's own files (the build has no inline script) and Stripe.js;
/// styles also inline (toasts and Stripe's fields inject `<style>`); images
/// also from any https address (template previews may be external links);
/// requests to the origin (`'self'` covers its `ws:`/`wss:` realtime socket)
/// and Stripe's API; frames only Stripe's; no plugins, no `<base>`, forms
/// post only to the origin, and no other site may frame the app.
pub const APP_CSP: &str = "default-src 'self'; \
     script-src 'self' https://js.stripe.com; \
     style-src 'self' 'unsafe-inline'; \
     img-src 'self' data: blob: https:; \
     font-src 'self' data:; \
     connect-src 'self' https://api.stripe.com; \
     frame-src https://js.stripe.com https://hooks.stripe.com; \
     object-src 'none'; \
     base-uri 'self'; \
     form-action 'self'; \
     frame-ancestors 'none'";

/// [`APP_CSP`] with the newsletter webhook's origin (and only its origin)
/// added to `connect-src` when one is configured. The origin is the `url`
/// crate's serialization (scheme, punycode host, port): no spaces or `;`.
pub fn app_csp(newsletter_webhook: Option<&url::Url>) -> HeaderValue {
    let csp = match newsletter_webhook.map(|url| url.origin().ascii_serialization()) {
        Some(origin) if origin != "null" => APP_CSP.replacen(
            "connect-src 'self'",
            &format!("connect-src 'self' {origin}"),
            1,
        ),
        _ => APP_CSP.to_owned(),
    };
    HeaderValue::from_str(&csp).expect("a CSP of URL origins is a valid header value")
}

/// The built web app in `app_dir`, with a fallback to its `index.html` (so
/// the app's own routes load on refresh; a 404 for a path outside the
/// patterns of its `routes.json`, see [`crate::app_routes`]), every answer
/// carrying `csp`;
/// `None` when the app has not been built. The shareable pages (home,
/// template, profile, category) and the sitemap are the marketplace's,
/// filled on the server with their own head tags.
fn app_pages(
    app_dir: &Path,
    csp: HeaderValue,
    marketplace: plinth_marketplace::FunctionsState,
) -> Option<Router> {
    let index = app_dir.join("index.html");
    if !index.is_file() {
        return None;
    }
    let files =
        Router::new().fallback_service(ServeDir::new(app_dir).fallback(ServeFile::new(&index)));
    // With the app's route patterns, a path it has no screen for is a 404.
    let files = files.layer(axum::middleware::from_fn_with_state(
        Arc::new(crate::app_routes::RoutesFile::new(app_dir)),
        crate::app_routes::not_found_outside_routes,
    ));
    let pages = match plinth_marketplace::pages_router(marketplace, &index) {
        Some(pages) => pages.fallback_service(files),
        None => {
            tracing::warn!(
                index = %index.display(),
                "the app's index.html has no </head>: its pages are served without their own tags"
            );
            Router::new().fallback_service(files)
        }
    };
    Some(
        pages
            .layer(axum::middleware::map_response_with_state(csp, page_headers))
            .layer(axum::middleware::from_fn(cache_assets))
            // The app's scripts and styles travel gzipped to browsers that
            // take it (a fifth of their size: what a phone on a slow
            // connection waits for before the first screen).
            .layer(tower_http::compression::CompressionLayer::new()),
    )
}

/// Vite names every built file under `/assets/` after a hash of its content,
/// so such a file never changes: browsers may keep it for a year without
/// asking again. (A missing asset falls back to `index.html`, which is not
/// cached so.)
const ASSETS: &str = "/assets/";

async fn cache_assets(request: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let asset = request.uri().path().starts_with(ASSETS);
    let mut response = next.run(request).await;
    let html = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|kind| kind.as_bytes().starts_with(b"text/html"));
    if asset && response.status() == StatusCode::OK && !html {
        response.headers_mut().insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("public, max-age=31536000, immutable"),
        );
    }
    response
}

async fn page_headers(State(csp): State<HeaderValue>, mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(header::CONTENT_SECURITY_POLICY, csp);
    response
}

/// `X-Content-Type-Options: nosniff` on every answer: browsers take each
/// response as the type it declares (user files included), never as one
/// they guess from its bytes.
async fn nosniff(mut response: Response) -> Response {
    response
        .headers_mut()
        .entry(header::X_CONTENT_TYPE_OPTIONS)
        .or_insert(HeaderValue::from_static("nosniff"));
    response
}

/// CORS as the platform's gateway answers browsers: any origin (the API is
/// guarded by keys and tokens, not by origin, and no cookie is ever
/// allowed), any request header the preflight asks for (the gateway's CORS
/// plugin, given no list, allows what `Access-Control-Request-Headers`
/// names: an app's own `global.headers` pass, as do the client's `prefer`,
/// `x-upsert`, TUS headers and the rest), and the response headers the
/// official client reads.
fn cors() -> CorsLayer {
    const EXPOSE: [&str; 19] = [
        "content-range",
        "x-supabase-api-version",
        "x-relay-error",
        "content-profile",
        "preference-applied",
        "content-type",
        "etag",
        "x-total-count",
        "link",
        // resumable uploads (TUS)
        "location",
        "tus-resumable",
        "tus-version",
        "tus-extension",
        "tus-max-size",
        "upload-offset",
        "upload-length",
        "upload-defer-length",
        "upload-metadata",
        "upload-expires",
    ];
    CorsLayer::new()
        .allow_origin(AllowOrigin::mirror_request())
        .allow_methods([
            Method::GET,
            Method::HEAD,
            Method::POST,
            Method::PUT,
            Method::PATCH,
            Method::DELETE,
            Method::OPTIONS,
        ])
        .allow_headers(AllowHeaders::mirror_request())
        .expose_headers(EXPOSE.map(HeaderName::from_static))
        .max_age(std::time::Duration::from_secs(86_400))
}

/// 200 when the database answers, 503 when it does not.
async fn health(State(state): State<AppState>) -> impl IntoResponse {
    // Within a second, whatever the pool would do: a supervisor or a load
    // balancer asking must learn at once that the database is gone.
    match state
        .db
        .ping_within(std::time::Duration::from_secs(1))
        .await
    {
        Ok(()) => (
            StatusCode::OK,
            Json(json!({"status": "ok", "database": "ok"})),
        ),
        Err(e) => {
            tracing::warn!(error = %e, "health check: database unreachable");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Json(json!({"status": "unavailable", "database": "unreachable"})),
            )
        }
    }
}

/// What the browser app needs to reach this server: the public (anon) key.
/// The app talks to the origin it was served from.
async fn app_config(State(state): State<AppState>) -> impl IntoResponse {
    (
        [(axum::http::header::CACHE_CONTROL, "no-cache")],
        Json(json!({
            "anonKey": state.keys.anon_key,
            "stripePublishableKey": state.stripe_publishable_key,
            "newsletterWebhookUrl": state.newsletter_webhook_url.as_ref().map(url::Url::as_str),
        })),
    )
}

/// Shown at `/` when the web app has not been built.
async fn no_app() -> Html<&'static str> {
    Html(concat!(
        "<!doctype html><meta charset=utf-8><title>Plinth</title>",
        "<h1>Plinth is running</h1>",
        "<p>The web app is not built (run <code>scripts/serve</code>, or <code>npm run build</code> in <code>app/</code>).</p>",
        "<p>API: <code>/auth/v1</code>, <code>/rest/v1</code>, <code>/storage/v1</code>, ",
        "<code>/functions/v1</code>, <code>/realtime/v1</code>; health: <a href=/health>/health</a>.</p>",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newsletter_webhook_origin_and_only_it_joins_connect_src() {
        let connect_src = |csp: &HeaderValue| {
            csp.to_str()
                .unwrap()
                .split(';')
                .map(str::trim)
                .find(|d| d.starts_with("connect-src "))
                .unwrap()
                .to_owned()
        };
        assert_eq!(app_csp(None), APP_CSP);
        let hook = url::Url::parse("https://Hook.EU1.example.com:8443/abc/def?key=1").unwrap();
        let csp = app_csp(Some(&hook));
        assert_eq!(
            connect_src(&csp),
            "connect-src 'self' https://hook.eu1.example.com:8443 https://api.stripe.com"
        );
        assert!(!csp.to_str().unwrap().contains("/abc"));
        // Nothing else changes.
        assert_eq!(
            csp.to_str()
                .unwrap()
                .replace(" https://hook.eu1.example.com:8443", ""),
            APP_CSP
        );
        let local = url::Url::parse("http://127.0.0.1:4100/hook").unwrap();
        assert_eq!(
            connect_src(&app_csp(Some(&local))),
            "connect-src 'self' http://127.0.0.1:4100 https://api.stripe.com"
        );
    }

    #[test]
    fn the_csp_allows_what_the_app_needs_and_nothing_it_does_not() {
        let directive = |name: &str| {
            APP_CSP
                .split(';')
                .map(str::trim)
                .find(|d| d.split(' ').next() == Some(name))
                .unwrap_or_else(|| panic!("no {name} in {APP_CSP}"))
        };
        assert_eq!(
            directive("script-src"),
            "script-src 'self' https://js.stripe.com"
        );
        assert!(!directive("script-src").contains("unsafe"));
        assert_eq!(directive("object-src"), "object-src 'none'");
        assert_eq!(directive("frame-ancestors"), "frame-ancestors 'none'");
        assert_eq!(directive("base-uri"), "base-uri 'self'");
        assert!(directive("frame-src").contains("https://hooks.stripe.com"));
        assert!(directive("connect-src").contains("https://api.stripe.com"));
        assert!(directive("img-src").contains("https:"));
    }
}
