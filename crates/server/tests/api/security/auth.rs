//! Security tests: auth.
//!
//! * Item 4: the dev mailbox is readable only by the operator (the link
//!   printed at start-up, or the service-role key), and `plinth serve` on a
//!   non-loopback address without SMTP refuses to start unless told to.
//! * Item 6: failed sign-ins lock out the attacker's address, never the
//!   account's owner elsewhere.
//! * Item 9: recovery e-mails once per address per `GOTRUE_SMTP_MAX_FREQUENCY`,
//!   wrong codes limited per account, codes and links expire after
//!   `GOTRUE_MAILER_OTP_EXP`, link tokens that cannot be computed from a code.
//! * Item 12: sign-in, sign-up, magic links and recovery answer alike whether
//!   an address has an account or not (timing included).
//! * Item 13: tokens need `exp`, honour `nbf`, and storage URL tokens are no
//!   API credentials.
//!
//! Requests come from distinct loopback addresses (127.0.0.x) where a test
//! needs distinct clients: the node believes the TCP peer, as in production.

use std::net::{IpAddr, Ipv4Addr};
use std::time::{Duration, Instant};

use reqwest::{Client, StatusCode};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::helpers::{Running, TestApp, free_port, output, plinth, spawn_app};
use crate::marketplace_support::{Actor, owner_pool, token};

const PASSWORD: &str = "the-owners-password";

/// A client whose requests come from `127.0.0.<last>`.
fn client_from(last: u8) -> Client {
    Client::builder()
        .local_address(IpAddr::V4(Ipv4Addr::new(127, 0, 0, last)))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

struct Reply {
    status: StatusCode,
    body: Value,
    elapsed: Duration,
}

/// `POST /auth/v1<path>` as supabase-js sends it (anon key, API version).
async fn auth_post(app: &TestApp, client: &Client, path: &str, body: Value) -> Reply {
    let started = Instant::now();
    let response = client
        .post(format!("{}/auth/v1{path}", app.url))
        .header("apikey", &app.keys.anon_key)
        .header("authorization", format!("Bearer {}", app.keys.anon_key))
        .header("x-supabase-api-version", "2024-01-01")
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    let text = response.text().await.unwrap();
    Reply {
        status,
        body: serde_json::from_str(&text).unwrap_or(Value::String(text)),
        elapsed: started.elapsed(),
    }
}

async fn sign_in(app: &TestApp, client: &Client, email: &str, password: &str) -> Reply {
    auth_post(
        app,
        client,
        "/token?grant_type=password",
        json!({"email": email, "password": password, "gotrue_meta_security": {}}),
    )
    .await
}

/// A confirmed user whose password is stored as bcrypt of `cost`, as the
/// platform's seed files write them.
async fn seeded_user(app: &TestApp, email: &str, password: &str, cost: i32) -> Uuid {
    sqlx::query_scalar(
        "insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at, \
           raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
         values ('00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated', 'authenticated', $1,
                 crypt($2, gen_salt('bf', $3)), now(), '{\"provider\":\"email\",\"providers\":[\"email\"]}',
                 '{}', now(), now())
         returning id",
    )
    .bind(email)
    .bind(password)
    .bind(cost)
    .fetch_one(owner_pool(app))
    .await
    .unwrap()
}

/// The dev mailbox's JSON list of messages to `to`, read with `key` (as
/// `apikey` and bearer) when given.
async fn mailbox(app: &TestApp, to: &str, key: Option<&str>) -> (StatusCode, Value) {
    let mut request = Client::new()
        .get(format!("{}/_/mailbox/api/messages", app.url))
        .query(&[("to", to)]);
    if let Some(key) = key {
        request = request
            .header("apikey", key)
            .header("authorization", format!("Bearer {key}"));
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let body = response.json().await.unwrap_or(Value::Null);
    (status, body)
}

/// The operator's view of the mail to `to`, newest first.
async fn mail_to(app: &TestApp, to: &str) -> Vec<Value> {
    let (status, body) = mailbox(app, to, Some(&app.keys.service_role_key)).await;
    assert_eq!(status, 200, "{body}");
    body["messages"].as_array().cloned().unwrap_or_default()
}

/// The six-digit code of the newest message to `to`.
async fn code_to(app: &TestApp, to: &str) -> String {
    let mail = mail_to(app, to).await;
    let text = mail[0]["text"].as_str().unwrap();
    text.split("code: ").nth(1).unwrap()[..6].to_owned()
}

fn unique(tag: &str) -> String {
    format!("{tag}-{}@example.com", Uuid::new_v4().simple())
}

// ------------------------------------------------------------------ item 13

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// What each service answers `token` (as `apikey` and bearer): REST, auth's
/// `/user`, the storage API, a function, the realtime socket.
async fn answers(app: &TestApp, token: &str) -> Vec<(&'static str, StatusCode, Value)> {
    let client = Client::new();
    let mut out = Vec::new();
    for (service, method, path, body) in [
        ("rest", "GET", "/rest/v1/categories?select=id", None),
        ("auth", "GET", "/auth/v1/user", None),
        ("storage", "GET", "/storage/v1/bucket", None),
        (
            "functions",
            "POST",
            "/functions/v1/track-template-view",
            Some(json!({"templateId": Uuid::new_v4()})),
        ),
    ] {
        let mut request = client
            .request(method.parse().unwrap(), format!("{}{path}", app.url))
            .header("apikey", token)
            .header("authorization", format!("Bearer {token}"));
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        out.push((
            service,
            status,
            response.json().await.unwrap_or(Value::Null),
        ));
    }
    let response = client
        .get(format!("{}/realtime/v1/websocket", app.url))
        .query(&[("apikey", token), ("vsn", "1.0.0")])
        .send()
        .await
        .unwrap();
    let status = response.status();
    out.push((
        "realtime",
        status,
        response.json().await.unwrap_or(Value::Null),
    ));
    out
}

fn assert_refused(answers: &[(&str, StatusCode, Value)], what: &str) {
    for (service, status, body) in answers {
        let refused = match *service {
            "rest" => *status == 401 && body["code"] == "PGRST301",
            "auth" => *status == 403 && body["error_code"] == "bad_jwt",
            "storage" => *status == 400 && body["statusCode"] == "403",
            "functions" | "realtime" => *status == 401,
            _ => unreachable!(),
        };
        assert!(refused, "{what}: {service} answered {status} {body}");
    }
}

#[tokio::test]
async fn item_13_tokens_without_exp_or_not_yet_valid_are_refused_everywhere() {
    let app = spawn_app().await;
    let secret = &app.keys.secret;
    let sub = Uuid::new_v4().to_string();
    let no_exp = secret.sign(&json!({"role": "service_role", "sub": sub, "iss": "plinth"}));
    assert_refused(&answers(&app, &no_exp).await, "a token without exp");
    let early = secret.sign(&json!({
        "role": "service_role", "sub": sub, "nbf": now() + 600, "exp": now() + 3600,
    }));
    assert_refused(&answers(&app, &early).await, "a token before its nbf");
    // A token whose nbf has passed is fine.
    let valid =
        secret.sign(&json!({"role": "service_role", "nbf": now() - 5, "exp": now() + 3600}));
    let rest = &answers(&app, &valid).await[0];
    assert_eq!(rest.1, 200, "{}", rest.2);
}

#[tokio::test]
async fn item_13_storage_url_tokens_are_not_api_credentials() {
    let app = spawn_app().await;
    let client = Client::new();
    let service = &app.keys.service_role_key;
    let call = |method: reqwest::Method, path: &str| {
        client
            .request(method, format!("{}/storage/v1{path}", app.url))
            .header("apikey", service)
            .header("authorization", format!("Bearer {service}"))
    };
    let bucket = format!("item13-{}", Uuid::new_v4().simple());
    let made = call(reqwest::Method::POST, "/bucket")
        .json(&json!({"id": bucket, "name": bucket, "public": false}))
        .send()
        .await
        .unwrap();
    assert_eq!(made.status(), 200, "{}", made.text().await.unwrap());
    let uploaded = call(reqwest::Method::POST, &format!("/object/{bucket}/note.txt"))
        .header("content-type", "text/plain")
        .body("hello")
        .send()
        .await
        .unwrap();
    assert_eq!(uploaded.status(), 200, "{}", uploaded.text().await.unwrap());
    let signed: Value = call(
        reqwest::Method::POST,
        &format!("/object/sign/{bucket}/note.txt"),
    )
    .json(&json!({"expiresIn": 600}))
    .send()
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    let url = signed["signedURL"].as_str().unwrap();
    let token = url
        .split("token=")
        .nth(1)
        .unwrap()
        .split('&')
        .next()
        .unwrap();
    // The URL token opens its file...
    let download = client
        .get(format!("{}/storage/v1{url}", app.url))
        .send()
        .await
        .unwrap();
    assert_eq!(download.status(), 200);
    assert_eq!(download.text().await.unwrap(), "hello");
    // ...and nothing else.
    assert_refused(&answers(&app, token).await, "a download URL token");
    let upload: Value = call(
        reqwest::Method::POST,
        &format!("/object/upload/sign/{bucket}/up.txt"),
    )
    .send()
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    let token = upload["token"].as_str().unwrap();
    assert_refused(&answers(&app, token).await, "an upload URL token");
}

#[test]
fn item_13_api_keys_must_expire() {
    let dir = tempfile::tempdir().unwrap();
    let secret_text = "a-configured-secret-of-32-characters-or-more";
    let secret = plinth_db::JwtSecret::new(secret_text).unwrap();
    // The generated keys carry exp.
    let mut keys = plinth(dir.path());
    keys.arg("keys").env("JWT_SECRET", secret_text);
    let (ok, out, stderr) = output(keys);
    assert!(ok, "{stderr}");
    for line in out.lines() {
        let key = line.split_once('=').unwrap().1;
        let claims = secret.verify(key).unwrap();
        assert!(
            claims["exp"].as_i64().unwrap() > now() + 365 * 24 * 3600,
            "{claims}"
        );
    }
    // A configured key without exp stops start-up with a clear line.
    let forever = secret.sign(&json!({"role": "anon", "iss": "supabase-demo", "iat": now()}));
    let mut cmd = plinth(dir.path());
    cmd.arg("keys")
        .env("JWT_SECRET", secret_text)
        .env("ANON_KEY", &forever);
    let (ok, _, stderr) = output(cmd);
    assert!(!ok, "a key without exp was accepted");
    let last = stderr.lines().last().unwrap_or_default();
    assert!(last.starts_with("error: ANON_KEY"), "{last}");
    assert!(last.contains("exp"), "{last}");
}
