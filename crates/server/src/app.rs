//! The HTTP surface of one node: the services under their platform prefixes,
//! `/health`, and the web app at `/`.

use std::path::Path;
use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Json};
use axum::routing::get;
use plinth_db::Database;
use serde_json::json;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::trace::TraceLayer;

use crate::keys::Keys;

/// What every handler of the node shares. Cheap to clone.
#[derive(Debug, Clone)]
pub struct AppState {
    pub db: Database,
    pub keys: Arc<Keys>,
}

/// The node's router. `app_dir` is the built web app (served with a fallback
/// to its `index.html`, so the app's own routes load on refresh).
pub fn router(state: AppState, app_dir: &Path) -> Router {
    let api = Router::new()
        .route("/health", get(health))
        .with_state(state);
    let index = app_dir.join("index.html");
    let api = if index.is_file() {
        api.fallback_service(ServeDir::new(app_dir).fallback(ServeFile::new(index)))
    } else {
        api.route("/", get(no_app))
    };
    api.layer(TraceLayer::new_for_http())
}

/// 200 when the database answers, 503 when it does not.
async fn health(State(state): State<AppState>) -> impl IntoResponse {
    match state.db.ping().await {
        Ok(()) => (StatusCode::OK, Json(json!({"status": "ok", "database": "ok"}))),
        Err(e) => {
            tracing::warn!(error = %e, "health check: database unreachable");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Json(json!({"status": "unavailable", "database": "unreachable"})),
            )
        }
    }
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
