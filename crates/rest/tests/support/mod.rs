//! The harness shared by the gateway's HTTP test binaries: a fresh database
//! per test (the platform SQL, the gateway's SQL and the binary's own test
//! schema), the gateway served on 127.0.0.1:0, and raw HTTP requests that
//! keep status, headers and body text for exact assertions.
#![allow(dead_code)]

use std::time::{SystemTime, UNIX_EPOCH};

use plinth_db::testing::TestDb;
use plinth_db::{JwtSecret, MigrationSet};
use plinth_rest::{RestConfig, RestState};
use reqwest::header::HeaderMap;
use serde_json::{Value, json};

pub const SECRET: &str = "rest-tests-secret-of-at-least-32-characters";

pub struct App {
    pub base: String,
    pub http: reqwest::Client,
    pub secret: JwtSecret,
    pub state: RestState,
    pub test_db: TestDb,
}

pub fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// The configuration most tests use: `public` and `api` exposed,
/// aggregates and EXPLAIN on, transactions that may be rolled back by
/// `Prefer: tx=rollback`.
pub fn default_config() -> RestConfig {
    RestConfig {
        db_schemas: vec!["public".into(), "api".into()],
        aggregates_enabled: true,
        plan_enabled: true,
        tx_end: "commit-allow-override".into(),
        ..RestConfig::default()
    }
}

/// The gateway over a fresh database holding `schema` after the platform's
/// and the gateway's own SQL.
pub async fn spawn_with(schema: MigrationSet, config: RestConfig) -> App {
    let test_db = TestDb::new(&[
        plinth_db::platform_migrations(),
        plinth_rest::migrations(),
        schema,
    ])
    .await;
    let secret = JwtSecret::new(SECRET).expect("secret");
    let state = RestState::new(test_db.db.clone(), secret.clone(), config)
        .await
        .expect("rest state");
    let app = axum::Router::new().nest("/rest/v1", plinth_rest::router(state.clone()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    App {
        base: format!("http://{addr}/rest/v1"),
        http: reqwest::Client::new(),
        secret,
        state,
        test_db,
    }
}

#[derive(Debug)]
pub struct Res {
    pub status: u16,
    pub headers: HeaderMap,
    pub text: String,
}

impl Res {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text))
    }
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
    pub fn code(&self) -> String {
        self.json()["code"].as_str().unwrap_or_default().to_owned()
    }
}

impl App {
    pub fn user(&self, sub: &str) -> String {
        self.secret.sign(&json!({"sub": sub, "role": "authenticated", "aud": "authenticated", "exp": now() + 600}))
    }
    pub fn service(&self) -> String {
        self.secret.api_key("service_role", now(), now() + 600)
    }
    pub fn anon(&self) -> String {
        self.secret.api_key("anon", now(), now() + 600)
    }

    pub async fn req(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        headers: &[(&str, &str)],
        body: Option<Value>,
    ) -> Res {
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
        let mut rb = self.http.request(method, format!("{}{}", self.base, path));
        if let Some(t) = token {
            rb = rb
                .header("apikey", t)
                .header("authorization", format!("Bearer {t}"));
        }
        for (k, v) in headers {
            rb = rb.header(*k, *v);
        }
        if let Some(b) = body {
            rb = rb
                .header("content-type", "application/json")
                .body(b.to_string());
        }
        let r = rb.send().await.expect("request");
        let status = r.status().as_u16();
        let headers = r.headers().clone();
        let text = r.text().await.expect("body");
        Res {
            status,
            headers,
            text,
        }
    }

    pub async fn get(&self, path: &str) -> Res {
        self.req("GET", path, None, &[], None).await
    }

    pub async fn get_as(&self, path: &str, token: &str) -> Res {
        self.req("GET", path, Some(token), &[], None).await
    }
}
