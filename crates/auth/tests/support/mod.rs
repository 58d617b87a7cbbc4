//! The harness the auth integration tests share: a server over a fresh
//! test database, requests to it as supabase-js sends them, and readers of
//! tokens and redirect URLs.

// Each test crate uses a different subset of these helpers.
#![allow(dead_code)]

use std::collections::HashMap;

use axum::Router;
use base64::Engine;
use plinth_auth::{AuthConfig, AuthState, Clock, HashCost, Mailer, RateLimits};
use plinth_db::testing::TestDb;
use plinth_db::{Database, JwtSecret};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// The JWT secret every test server signs with.
pub const SECRET: &str = "test-secret-of-at-least-thirty-two-chars";
/// The site URL of every test server.
pub const SITE: &str = "http://localhost:3000";

/// A running server over its own test database.
pub struct App {
    /// `http://127.0.0.1:<port>`
    pub base: String,
    /// A client that does not follow redirects, so tests can read them.
    pub http: reqwest::Client,
    pub db: TestDb,
    pub clock: Clock,
    pub jwt: JwtSecret,
}

/// An answer of the server: status, headers, and the body as text and as
/// JSON (`Null` when it is not JSON).
pub struct Reply {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
    pub text: String,
}

impl Reply {
    /// The error code (`code` of the versioned error shape), or "".
    pub fn code(&self) -> &str {
        self.body["code"].as_str().unwrap_or_default()
    }

    /// The error message in either shape (`msg` without the version header,
    /// `message` with it), or "".
    pub fn message(&self) -> &str {
        self.body["msg"]
            .as_str()
            .or(self.body["message"].as_str())
            .unwrap_or_default()
    }

    /// The `Location` header of a redirect.
    pub fn location(&self) -> String {
        self.headers[reqwest::header::LOCATION]
            .to_str()
            .unwrap()
            .to_owned()
    }

    /// Whether this is an error with `status` and `code`.
    pub fn is(&self, status: u16, code: &str) -> bool {
        self.status.as_u16() == status && self.code() == code
    }

    /// Asserts that this is an error with `status` and `code`.
    #[track_caller]
    pub fn expect(&self, status: u16, code: &str) {
        assert_eq!(self.status.as_u16(), status, "{}", self.text);
        assert_eq!(self.code(), code, "{}", self.text);
    }
}

/// Reads a whole response into a [`Reply`].
pub async fn read_reply(response: reqwest::Response) -> Reply {
    let status = response.status();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::Null);
    Reply {
        status,
        headers,
        body,
        text,
    }
}

/// Starts the auth API (under `/auth/v1`) and the dev mailbox (under
/// `/_/mailbox`) over `db` on a free loopback port; returns the base URL.
///
/// The server starts from the bare test configuration (the site at
/// [`SITE`], cheap password hashes, no request limits), changed by
/// `configure`.
pub async fn serve(
    db: &Database,
    jwt: JwtSecret,
    clock: Clock,
    configure: impl FnOnce(&mut AuthConfig),
) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let mut config = AuthConfig {
        site_url: SITE.into(),
        api_external_url: base.clone(),
        password_hash: HashCost::cheap(),
        rate_limits: RateLimits::unlimited(),
        ..AuthConfig::default()
    };
    configure(&mut config);
    let mailer = Mailer::from_config(config.smtp.as_ref(), db.owner.clone()).unwrap();
    let state = AuthState::with_parts(db.clone(), jwt, config, mailer, clock);
    let router = Router::new()
        .nest("/auth/v1", plinth_auth::router(state.clone()))
        .nest("/_/mailbox", plinth_auth::mailbox_router(state));
    tokio::spawn(async move {
        axum::serve(listener, router).await.unwrap();
    });
    base
}

/// A server over a fresh test database, with the bare test configuration
/// of [`serve`] changed by `configure`.
pub async fn spawn_app_configured(configure: impl FnOnce(&mut AuthConfig)) -> App {
    let db = TestDb::new(&[plinth_db::platform_migrations(), plinth_auth::migrations()]).await;
    let jwt = JwtSecret::new(SECRET).unwrap();
    let clock = Clock::system();
    let base = serve(&db.db, jwt.clone(), clock.clone(), configure).await;
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    App {
        base,
        http,
        db,
        clock,
        jwt,
    }
}

/// A server with the default test configuration (the bare one, with
/// redirects also allowed to `http://app.test/`), changed by `tweak`.
pub async fn spawn_app_with(tweak: impl FnOnce(&mut AuthConfig)) -> App {
    spawn_app_configured(|config| {
        config.uri_allow_list = vec!["http://app.test/**".into()];
        tweak(config);
    })
    .await
}

/// A server with the default test configuration.
pub async fn spawn_app() -> App {
    spawn_app_with(|_| {}).await
}

impl App {
    /// The URL of `path` under `/auth/v1`.
    pub fn url(&self, path: &str) -> String {
        format!("{}/auth/v1{path}", self.base)
    }

    /// An API key (a JWT) of `role`, valid for an hour.
    pub fn key(&self, role: &str) -> String {
        let now = self.clock.timestamp();
        self.jwt.api_key(role, now, now + 3600)
    }

    /// The anon API key.
    pub fn anon_key(&self) -> String {
        self.key("anon")
    }

    /// The service-role API key.
    pub fn service_key(&self) -> String {
        self.key("service_role")
    }

    /// Sends `request` and reads the answer.
    pub async fn send(&self, request: reqwest::RequestBuilder) -> Reply {
        read_reply(request.send().await.unwrap()).await
    }

    /// A request to `path` with the anon key as `apikey` and `bearer` (else
    /// the anon key) as `Authorization`, without the API version header.
    pub fn request(
        &self,
        method: Method,
        path: &str,
        bearer: Option<&str>,
    ) -> reqwest::RequestBuilder {
        let anon = self.anon_key();
        self.http
            .request(method, self.url(path))
            .header("apikey", &anon)
            .header(
                "authorization",
                format!("Bearer {}", bearer.unwrap_or(&anon)),
            )
    }

    /// A request as supabase-js sends it (apikey, API version header);
    /// `bearer` replaces the anon key as `Authorization`.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        bearer: Option<&str>,
        body: Option<Value>,
    ) -> Reply {
        self.call_headers(method, path, bearer, body, &[]).await
    }

    /// [`App::call`] with more request headers.
    pub async fn call_headers(
        &self,
        method: Method,
        path: &str,
        bearer: Option<&str>,
        body: Option<Value>,
        headers: &[(&str, &str)],
    ) -> Reply {
        let mut request = self
            .request(method, path, bearer)
            .header("x-supabase-api-version", "2024-01-01");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        self.send(request).await
    }

    /// `POST path` with a JSON body, as the anon key.
    pub async fn post(&self, path: &str, body: Value) -> Reply {
        self.call(Method::POST, path, None, Some(body)).await
    }

    /// A call with the service-role key.
    pub async fn admin(&self, method: Method, path: &str, body: Option<Value>) -> Reply {
        let key = self.service_key();
        self.call(method, path, Some(&key), body).await
    }

    /// `GET /user` with the session `token`.
    pub async fn get_user(&self, token: &str) -> Reply {
        self.call(Method::GET, "/user", Some(token), None).await
    }

    /// The refresh-token grant with `token`.
    pub async fn refresh(&self, token: &str) -> Reply {
        self.post(
            "/token?grant_type=refresh_token",
            json!({ "refresh_token": token }),
        )
        .await
    }

    /// `GET url` (a full URL) with no headers of ours.
    pub async fn get_raw(&self, url: &str) -> Reply {
        self.get_raw_with(url, &[]).await
    }

    /// `GET url` (a full URL) with only `headers`.
    pub async fn get_raw_with(&self, url: &str, headers: &[(&str, &str)]) -> Reply {
        let mut request = self.http.get(url);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        self.send(request).await
    }

    /// The dev mailbox's messages (e-mails and SMS) to `to`, newest first
    /// (read as the operator, with the service-role key).
    pub async fn mail_to(&self, to: &str) -> Vec<Value> {
        let body: Value = self
            .http
            .get(format!("{}/_/mailbox/api/messages", self.base))
            .query(&[("to", to)])
            .header("apikey", self.service_key())
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        body["messages"].as_array().cloned().unwrap_or_default()
    }

    /// The one value `sql` selects, read as the database owner.
    pub async fn sql_scalar<T>(&self, sql: &str) -> T
    where
        T: for<'r> sqlx::Decode<'r, sqlx::Postgres> + sqlx::Type<sqlx::Postgres> + Send + Unpin,
    {
        sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_owned()))
            .fetch_one(&self.db.db.owner)
            .await
            .unwrap()
    }
}

/// The claims of a JWT, unverified (the tests only read them).
pub fn claims_of(jwt: &str) -> Value {
    let payload = jwt.split('.').nth(1).unwrap();
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

/// Form-decoded fragment (or query) parameters of a URL.
pub fn params_of(part: &str) -> HashMap<String, String> {
    url::form_urlencoded::parse(part.as_bytes())
        .into_owned()
        .collect()
}

/// The parameters in the fragment of `location`.
pub fn fragment(location: &str) -> HashMap<String, String> {
    params_of(location.split_once('#').map(|(_, f)| f).unwrap_or(""))
}

/// The query parameters of the URL `location`.
pub fn query(location: &str) -> HashMap<String, String> {
    let url = url::Url::parse(location).unwrap();
    url.query_pairs().into_owned().collect()
}
