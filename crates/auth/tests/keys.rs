//! Asymmetric signing keys (`GOTRUE_JWT_KEYS`), the JWKS, and the gateway's
//! API-key check in front of `/auth/v1`, over HTTP against a real Postgres.

#![allow(clippy::unwrap_used)]

mod support;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use plinth_auth::Clock;
use plinth_db::JwtSecret;
use plinth_db::jwk::{KeyAlg, generate};
use plinth_db::testing::TestDb;
use reqwest::StatusCode;
use serde_json::{Value, json};
use support::SECRET;

/// A server signing with a given key set, its replies read as
/// `(status, body)`; unlike the shared `support::App` it can be a second
/// server over another one's database.
struct App {
    base: String,
    http: reqwest::Client,
    jwt: JwtSecret,
    _db: Option<TestDb>,
}

fn keys_with(set: &[&Value]) -> JwtSecret {
    JwtSecret::new(SECRET)
        .unwrap()
        .with_key_set(&serde_json::to_string(set).unwrap())
        .unwrap()
}

/// The auth API (autoconfirm on) over `db`, signing with `jwt`: its base URL.
async fn serve(db: &plinth_db::Database, jwt: JwtSecret) -> String {
    support::serve(db, jwt, Clock::system(), |config| {
        config.mailer_autoconfirm = true;
    })
    .await
}

async fn spawn(jwt: JwtSecret) -> App {
    let db = TestDb::new(&[plinth_db::platform_migrations(), plinth_auth::migrations()]).await;
    let base = serve(&db.db, jwt.clone()).await;
    App {
        base,
        http: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap(),
        jwt,
        _db: Some(db),
    }
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

fn header_of(token: &str) -> Value {
    serde_json::from_slice(&B64.decode(token.split('.').next().unwrap()).unwrap()).unwrap()
}

impl App {
    fn url(&self, path: &str) -> String {
        format!("{}/auth/v1{path}", self.base)
    }

    fn anon(&self) -> String {
        self.jwt.api_key("anon", now(), now() + 600)
    }

    /// A call as supabase-js makes it: the anon key as `apikey`, `bearer`
    /// (else the anon key) as `Authorization`.
    async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        bearer: Option<&str>,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let anon = self.anon();
        let mut request = self
            .http
            .request(method, self.url(path))
            .header("apikey", &anon)
            .header("x-supabase-api-version", "2024-01-01")
            .bearer_auth(bearer.unwrap_or(&anon));
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    async fn sign_up(&self, email: &str) -> Value {
        let (status, body) = self
            .call(
                reqwest::Method::POST,
                "/signup",
                None,
                Some(json!({"email": email, "password": "correct horse battery"})),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        body
    }

    async fn sign_in(&self, email: &str) -> Value {
        let (status, body) = self
            .call(
                reqwest::Method::POST,
                "/token?grant_type=password",
                None,
                Some(json!({"email": email, "password": "correct horse battery"})),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        body
    }

    async fn user(&self, token: &str) -> (StatusCode, Value) {
        self.call(reqwest::Method::GET, "/user", Some(token), None)
            .await
    }

    /// A request with the given headers only.
    async fn raw(&self, path: &str, headers: &[(&str, &str)]) -> (StatusCode, Value) {
        let mut request = self.http.get(self.url(path));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        (status, response.json().await.unwrap_or(Value::Null))
    }
}

#[tokio::test]
async fn sessions_are_signed_with_the_set_and_the_jwks_publishes_it() {
    for alg in [KeyAlg::Es256, KeyAlg::Rs256] {
        let jwk = generate(alg);
        let app = spawn(keys_with(&[&jwk])).await;
        let session = app.sign_up("ada@example.com").await;
        let token = session["access_token"].as_str().unwrap();
        let header = header_of(token);
        assert_eq!(header["kid"], jwk["kid"]);
        assert_eq!(header["alg"], jwk["alg"]);
        let (status, user) = app.user(token).await;
        assert_eq!(status, 200, "{user}");
        assert_eq!(user["email"], "ada@example.com");
        // Refreshed sessions too.
        let (status, refreshed) = app
            .call(
                reqwest::Method::POST,
                "/token?grant_type=refresh_token",
                None,
                Some(json!({"refresh_token": session["refresh_token"]})),
            )
            .await;
        assert_eq!(status, 200, "{refreshed}");
        assert_eq!(
            header_of(refreshed["access_token"].as_str().unwrap())["kid"],
            jwk["kid"]
        );

        // The JWKS: public, cacheable, public parts only.
        let response = app
            .http
            .get(app.url("/.well-known/jwks.json"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["cache-control"], "public, max-age=600");
        let jwks: Value = response.json().await.unwrap();
        let keys = jwks["keys"].as_array().unwrap();
        assert_eq!(keys.len(), 1);
        assert_eq!(keys[0]["kid"], jwk["kid"]);
        assert_eq!(keys[0]["use"], "sig");
        assert_eq!(keys[0]["key_ops"], json!(["verify"]));
        for private in ["d", "p", "q", "dp", "dq", "qi"] {
            assert!(keys[0].get(private).is_none(), "{private} leaked");
        }
    }
}

#[tokio::test]
async fn rotation_keeps_old_sessions_and_signs_new_ones_with_the_new_key() {
    let old = generate(KeyAlg::Es256);
    let new = generate(KeyAlg::Rs256);
    let before = spawn(keys_with(&[&old])).await;
    let old_token = before.sign_up("grace@example.com").await["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let legacy_anon = JwtSecret::new(SECRET)
        .unwrap()
        .api_key("anon", now(), now() + 600);

    // The same database, now served with the new key ahead of the old one.
    let db = before._db.as_ref().unwrap().db.clone();
    let rotated = keys_with(&[&new, &old]);
    let after = App {
        base: serve(&db, rotated.clone()).await,
        http: reqwest::Client::new(),
        jwt: rotated,
        _db: None,
    };
    let (status, user) = after.user(&old_token).await;
    assert_eq!(status, 200, "{user}");
    let new_token = after.sign_in("grace@example.com").await["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(header_of(&new_token)["kid"], new["kid"]);
    assert_eq!(after.user(&new_token).await.0, 200);
    // The old server does not know the new key.
    let (status, body) = before.user(&new_token).await;
    assert_eq!(
        (status.as_u16(), body["code"].as_str()),
        (403, Some("bad_jwt"))
    );
    // Legacy HS256 API keys still pass the gateway.
    let (status, _) = after
        .raw("/settings", &[("apikey", legacy_anon.as_str())])
        .await;
    assert_eq!(status, 200);
    // Both public keys are published, the new one first.
    let (_, jwks) = after.raw("/.well-known/jwks.json", &[]).await;
    let kids: Vec<&Value> = jwks["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| &k["kid"])
        .collect();
    assert_eq!(kids, vec![&new["kid"], &old["kid"]]);
}

#[tokio::test]
async fn tokens_made_with_public_key_bytes_or_unsigned_are_refused() {
    let rsa = generate(KeyAlg::Rs256);
    let app = spawn(keys_with(&[&rsa])).await;
    let session = app.sign_up("mallory@example.com").await;
    let sub = session["user"]["id"].as_str().unwrap();
    let (_, jwks) = app.raw("/.well-known/jwks.json", &[]).await;
    let public = &jwks["keys"][0];
    let claims = json!({"sub": sub, "role": "service_role", "aud": "authenticated",
        "exp": now() + 600});
    let mut forgeries = Vec::new();
    for bytes in [
        serde_json::to_vec(public).unwrap(),
        B64.decode(public["n"].as_str().unwrap()).unwrap(),
        public["n"].as_str().unwrap().as_bytes().to_vec(),
    ] {
        for kid in [Some(rsa["kid"].as_str().unwrap()), None] {
            let mut header = Header::new(Algorithm::HS256);
            header.kid = kid.map(str::to_owned);
            forgeries.push(
                jsonwebtoken::encode(&header, &claims, &EncodingKey::from_secret(&bytes)).unwrap(),
            );
        }
    }
    let payload = B64.encode(serde_json::to_vec(&claims).unwrap());
    for header in [
        json!({"alg": "none"}),
        json!({"alg": "none", "kid": rsa["kid"]}),
    ] {
        let head = B64.encode(serde_json::to_vec(&header).unwrap());
        forgeries.push(format!("{head}.{payload}."));
    }
    for forged in &forgeries {
        let (status, body) = app.user(forged).await;
        assert_eq!(
            (status.as_u16(), body["code"].as_str()),
            (403, Some("bad_jwt"))
        );
        let (status, body) = app
            .call(reqwest::Method::GET, "/admin/users", Some(forged), None)
            .await;
        assert_eq!(status, 403, "{body}");
        // Nor do they pass the gateway as API keys.
        let (status, body) = app.raw("/settings", &[("apikey", forged.as_str())]).await;
        assert_eq!(
            (status.as_u16(), &body["message"]),
            (401, &json!("Invalid API key"))
        );
    }
}

#[tokio::test]
async fn the_gateway_wants_an_api_key_on_auth_routes() {
    let app = spawn(keys_with(&[&generate(KeyAlg::Es256)])).await;
    let no_key = json!({"message": "No API key found in request",
        "hint": "No `apikey` request header or url param was found."});
    let bad_key = json!({"message": "Invalid API key",
        "hint": "Double check your Supabase `anon` or `service_role` API key."});
    for path in ["/settings", "/health", "/user", "/admin/users", "/nowhere"] {
        assert_eq!(
            app.raw(path, &[]).await,
            (StatusCode::UNAUTHORIZED, no_key.clone()),
            "{path}"
        );
    }
    let post = app
        .http
        .post(app.url("/token?grant_type=password"))
        .json(&json!({"email": "a@example.com", "password": "x"}))
        .send()
        .await
        .unwrap();
    assert_eq!(post.status(), 401);
    assert_eq!(post.json::<Value>().await.unwrap(), no_key);

    let other = JwtSecret::new("another-secret-of-thirty-two-characters!").unwrap();
    let foreign = other.api_key("anon", now(), now() + 600);
    let expired = app.jwt.api_key("anon", now() - 600, now() - 10);
    let session = app.sign_up("linus@example.com").await;
    let user_token = session["access_token"].as_str().unwrap();
    for key in ["garbage", foreign.as_str(), expired.as_str(), user_token] {
        assert_eq!(
            app.raw("/settings", &[("apikey", key)]).await,
            (StatusCode::UNAUTHORIZED, bad_key.clone())
        );
    }
    // The key as a query parameter, as the gateway also reads it.
    let anon = app.anon();
    let (status, _) = app.raw(&format!("/settings?apikey={anon}"), &[]).await;
    assert_eq!(status, 200);
    // A valid bearer token without apikey is let through; a bad one is not.
    let bearer = format!("Bearer {user_token}");
    let (status, user) = app.raw("/user", &[("authorization", &bearer)]).await;
    assert_eq!(
        (status.as_u16(), &user["email"]),
        (200, &json!("linus@example.com"))
    );
    let forged = format!("Bearer {foreign}");
    assert_eq!(
        app.raw("/user", &[("authorization", &forged)]).await,
        (StatusCode::UNAUTHORIZED, no_key.clone())
    );
    // An expired session with a valid apikey reaches GoTrue's own answer.
    let stale = app.jwt.sign(
        &json!({"sub": session["user"]["id"], "role": "authenticated",
        "exp": now() - 10}),
    );
    let (status, body) = app.user(&stale).await;
    assert_eq!(
        (status.as_u16(), body["code"].as_str()),
        (403, Some("bad_jwt"))
    );

    // Links from mail and providers, and the public keys, stay open.
    let (status, body) = app.raw("/.well-known/jwks.json", &[]).await;
    assert_eq!(
        (status.as_u16(), body["keys"].as_array().map(Vec::len)),
        (200, Some(1))
    );
    let verify = app
        .http
        .get(app.url("/verify?type=signup&token=nope&redirect_to=http://localhost:3000"))
        .send()
        .await
        .unwrap();
    assert_ne!(verify.status(), 401);
    assert!(verify.status().is_redirection(), "{}", verify.status());
    for path in [
        "/callback?error=access_denied",
        "/authorize?provider=github",
    ] {
        let response = app.http.get(app.url(path)).send().await.unwrap();
        assert_ne!(response.status(), 401, "{path}");
        let body: Value = response.json().await.unwrap_or(Value::Null);
        assert_ne!(body, no_key, "{path}");
    }
}

#[tokio::test]
async fn supabase_admin_is_an_admin_role() {
    let app = spawn(keys_with(&[&generate(KeyAlg::Es256)])).await;
    app.sign_up("root@example.com").await;
    let admin = app.jwt.api_key("supabase_admin", now(), now() + 600);
    let (status, body) = app
        .call(reqwest::Method::GET, "/admin/users", Some(&admin), None)
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["users"].as_array().unwrap().len(), 1);
    let service = app.jwt.api_key("service_role", now(), now() + 600);
    let (status, _) = app
        .call(reqwest::Method::GET, "/admin/users", Some(&service), None)
        .await;
    assert_eq!(status, 200);
    for role in ["anon", "authenticated", "postgres"] {
        let token = app.jwt.api_key(role, now(), now() + 600);
        let (status, body) = app
            .call(reqwest::Method::GET, "/admin/users", Some(&token), None)
            .await;
        assert_eq!(
            (status.as_u16(), body["code"].as_str()),
            (403, Some("not_admin")),
            "{role}"
        );
    }
}
