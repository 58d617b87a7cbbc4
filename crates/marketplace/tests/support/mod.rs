//! The harness the marketplace's integration tests share: a fresh database
//! with every migration set of the project, the function host's
//! configuration, a server on a free local port (the `/api` routes, with the
//! function host and the storage service beside them where a test wants
//! them), and signed-in users.

// Each test binary uses a different subset of these helpers.
#![allow(dead_code)]

use std::path::Path;

use axum::Router;
use plinth_db::testing::TestDb;
use plinth_db::{Database, JwtSecret, MigrationSet};
use plinth_marketplace::{FunctionsConfig, FunctionsState};
use plinth_storage::{Backend, StorageConfig, StorageState};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use uuid::Uuid;
use wiremock::MockServer;

/// The site URL of every test server.
pub const SITE: &str = "http://app.test";

/// Every migration set of the project, in the order the server applies them.
pub fn sets() -> Vec<MigrationSet> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    vec![
        plinth_db::platform_migrations(),
        plinth_auth::migrations(),
        plinth_rest::migrations(),
        plinth_storage::migrations(),
        plinth_realtime::migrations(),
        plinth_marketplace::migrations(),
        MigrationSet::from_dir("project", &root.join("migrations")).unwrap(),
        MigrationSet::from_dir("policies", &root.join("policies")).unwrap(),
    ]
}

pub fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// The configuration every test starts from: the defaults, with the site at
/// [`SITE`] (and the simulated payment provider).
pub fn config() -> FunctionsConfig {
    FunctionsConfig {
        site_url: SITE.into(),
        ..FunctionsConfig::default()
    }
}

/// `config` with payments through Stripe, that is the fake `server`, signed
/// in with `key`.
pub fn with_stripe(config: FunctionsConfig, key: &str, server: &MockServer) -> FunctionsConfig {
    FunctionsConfig {
        stripe_secret_key: Some(key.into()),
        stripe_api_base: Some(server.uri()),
        ..config
    }
}

/// The function host's state over `db`, its mail kept in the dev mailbox.
pub fn functions(db: &Database, jwt: JwtSecret, config: FunctionsConfig) -> FunctionsState {
    let mailer = plinth_auth::Mailer::DevMailbox(db.owner.clone());
    FunctionsState::new(db.clone(), jwt, config, mailer).unwrap()
}

/// A listener on a free local port, and its base URL (`http://127.0.0.1:<port>`).
pub async fn listen() -> (TcpListener, String) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    (listener, base)
}

/// Serves `router` on `listener` until the test ends.
pub fn serve(listener: TcpListener, router: Router) {
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
}

/// What a test server serves.
pub enum Services {
    /// The `/api` routes alone.
    Api,
    /// The `/api` routes, the function host at `/functions/v1` and the
    /// storage service (in memory) at `/storage/v1`.
    ApiFunctionsAndStorage,
}

/// A running server over its own test database.
pub struct TestApp {
    /// `http://127.0.0.1:<port>`
    pub base: String,
    pub jwt: JwtSecret,
    pub http: reqwest::Client,
    pub test_db: TestDb,
    /// The anon API key.
    pub anon: String,
}

/// A server of `services` over a fresh database, with tokens signed by
/// `secret` and `config` (whose `api_external_url` becomes the server's own).
pub async fn spawn_app(secret: &str, services: Services, mut config: FunctionsConfig) -> TestApp {
    let test_db = TestDb::new(&sets()).await;
    let db = test_db.db.clone();
    let jwt = JwtSecret::new(secret).unwrap();
    let (listener, base) = listen().await;
    config.api_external_url = base.clone();
    let functions = functions(&db, jwt.clone(), config);
    let router = match services {
        Services::Api => Router::new().nest("/api", plinth_marketplace::api_router(functions)),
        Services::ApiFunctionsAndStorage => {
            let storage = StorageState::new(
                db,
                jwt.clone(),
                StorageConfig {
                    backend: Backend::Memory,
                    ..StorageConfig::default()
                },
            )
            .await
            .unwrap();
            Router::new()
                .nest(
                    "/functions/v1",
                    plinth_marketplace::router(functions.clone()),
                )
                .nest("/api", plinth_marketplace::api_router(functions))
                .nest("/storage/v1", plinth_storage::router(storage))
        }
    };
    serve(listener, router);
    let anon = jwt.api_key("anon", now(), now() + 3600);
    TestApp {
        base,
        jwt,
        http: reqwest::Client::new(),
        test_db,
        anon,
    }
}

impl TestApp {
    pub fn pool(&self) -> &sqlx::PgPool {
        &self.test_db.db.owner
    }

    /// A new user with `email`, and a token signed in as them.
    pub async fn user(&self, email: &str) -> (Uuid, String) {
        let id = Uuid::new_v4();
        sqlx::query("insert into auth.users (id, email, aud, role) values ($1, $2, 'authenticated', 'authenticated')")
            .bind(id)
            .bind(email)
            .execute(self.pool())
            .await
            .unwrap();
        let token = self.jwt.sign(&json!({
            "sub": id.to_string(), "role": "authenticated", "email": email,
            "aud": "authenticated", "exp": now() + 3600,
        }));
        (id, token)
    }

    /// POSTs `body` as JSON to `path` with the anon key (and `token` when
    /// given); the status and the body as JSON (a string when it is not).
    pub async fn post(&self, path: &str, token: Option<&str>, body: Value) -> (StatusCode, Value) {
        let mut request = self
            .http
            .post(format!("{}{path}", self.base))
            .header("apikey", &self.anon)
            .json(&body);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let text = response.text().await.unwrap();
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }
}
