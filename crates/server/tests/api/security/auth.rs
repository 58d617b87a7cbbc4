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
//! * Item 13: tokens honour `nbf`, need `exp` where `PLINTH_JWT_REQUIRE_EXP`
//!   says so (by default they do not, as on the platform: issue 42 item 10,
//!   `tokens.rs`), and storage URL tokens are no API credentials.
//!
//! Requests come from distinct loopback addresses (127.0.0.x) where a test
//! needs distinct clients: the node believes the TCP peer, as in production.

use std::time::{Duration, Instant};

use reqwest::{Client, StatusCode};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::helpers::{
    Running, TestApp, free_port, output, plinth, spawn_app, spawn_app_requiring_exp,
};
use crate::marketplace_support::{Actor, owner_pool, token};
use crate::security::support::{client_at, seeded_user, unique};

const PASSWORD: &str = "the-owners-password";

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

/// The link of the newest message to `to`, pointed at this node (the test
/// node's links name the default public URL).
async fn link_to(app: &TestApp, to: &str) -> String {
    let mail = mail_to(app, to).await;
    let link = mail[0]["links"][0].as_str().unwrap();
    let path = link.split_once("/auth/v1/").unwrap().1;
    format!("{}/auth/v1/{path}", app.url)
}

/// The six-digit code of the newest message to `to`.
async fn code_to(app: &TestApp, to: &str) -> String {
    let mail = mail_to(app, to).await;
    let text = mail[0]["text"].as_str().unwrap();
    text.split("code: ").nth(1).unwrap()[..6].to_owned()
}

// ------------------------------------------------------------------ item 4

#[tokio::test]
async fn item_04_the_dev_mailbox_answers_only_the_operator() {
    let app = spawn_app().await;
    let email = unique("victim");
    seeded_user(&app, &email, PASSWORD, 4).await;
    // Anyone may ask for a recovery link...
    let asked = auth_post(&app, &Client::new(), "/recover", json!({"email": email})).await;
    assert_eq!(asked.status, 200, "{}", asked.body);

    // ...but not read it: no key, the anon key, a signed-in user's token.
    let (status, body) = mailbox(&app, &email, None).await;
    assert_eq!(status, 401, "{body}");
    assert_eq!(body["error_code"], "no_authorization", "{body}");
    let (status, body) = mailbox(&app, &email, Some(&app.keys.anon_key)).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["error_code"], "not_admin", "{body}");
    let user = token(&app, Actor::User(Uuid::new_v4()));
    let (status, body) = mailbox(&app, &email, Some(&user)).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["error_code"], "not_admin", "{body}");
    let (status, body) = mailbox(&app, &email, Some("not.a.jwt")).await;
    assert_eq!(status, 401, "{body}");

    // The pages too, and a message by id.
    let mail = mail_to(&app, &email).await;
    assert_eq!(mail.len(), 1, "the operator reads the mail");
    assert!(
        mail[0]["text"]
            .as_str()
            .unwrap()
            .contains("/auth/v1/verify")
    );
    for path in [
        "/_/mailbox".to_owned(),
        format!("/_/mailbox/{}", mail[0]["id"].as_str().unwrap()),
    ] {
        let response = Client::new()
            .get(format!("{}{path}", app.url))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 401, "{path}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error_code"], "no_authorization", "{path}: {body}");
        let response = Client::new()
            .get(format!("{}{path}", app.url))
            .header("apikey", &app.keys.service_role_key)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{path}");
    }
}

/// A `plinth serve` on a database of its own, and what it needs kept alive.
struct Served {
    running: Running,
    rt: tokio::runtime::Runtime,
    port: u16,
    _db: plinth_db::testing::TestDb,
    _dir: tempfile::TempDir,
}

/// `plinth serve` on `host`, on a database of its own, with `env`.
fn serve(host: &str, env: &[(&str, &str)]) -> Served {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let test_db = rt.block_on(plinth_db::testing::TestDb::new(&[]));
    let url = format!(
        "{}/{}",
        plinth_db::testing::server_url().rsplit_once('/').unwrap().0,
        test_db.name
    );
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut cmd = plinth(dir.path());
    cmd.args(["serve", "--host", host, "--port", &port.to_string()])
        .args(["--migrations", "none", "--policies", "none"])
        .env("DATABASE_URL", &url)
        .env_remove("SMTP_HOST")
        .env_remove("PLINTH_ALLOW_DEV_MAILBOX");
    for (name, value) in env {
        cmd.env(name, value);
    }
    Served {
        running: Running::start(cmd),
        rt,
        port,
        _db: test_db,
        _dir: dir,
    }
}

#[test]
fn item_04_serve_on_a_public_address_without_smtp_refuses_to_start() {
    let mut served = serve("0.0.0.0", &[]);
    let seen = served.running.wait_for("error: ", Duration::from_secs(60));
    let lines = seen.unwrap_or_else(|seen| panic!("plinth did not refuse to start: {seen:#?}"));
    let last = lines.last().unwrap();
    assert!(
        last.contains("SMTP_HOST") && last.contains("--allow-dev-mailbox"),
        "{last}"
    );
    assert!(
        !lines.iter().any(|l| l.contains("Plinth is ready")),
        "{lines:#?}"
    );
    let status = served.running.child.wait().unwrap();
    assert!(!status.success());
}

#[test]
fn item_04_the_operator_opens_the_mailbox_with_the_link_printed_at_start_up() {
    let served = serve("0.0.0.0", &[("PLINTH_ALLOW_DEV_MAILBOX", "true")]);
    let port = served.port;
    let lines = served
        .running
        .wait_for("Plinth is ready", Duration::from_secs(90))
        .unwrap_or_else(|seen| panic!("plinth did not start: {seen:#?}"));
    let link = lines
        .iter()
        .find_map(|l| {
            l.split_whitespace()
                .find(|w| w.contains("/_/mailbox?token="))
        })
        .unwrap_or_else(|| panic!("no mailbox link printed: {lines:#?}"))
        .to_owned();
    assert!(
        link.starts_with(&format!("http://localhost:{port}/_/mailbox?token=")),
        "{link}"
    );
    let base = format!("http://127.0.0.1:{port}");
    let token = link.split("token=").nth(1).unwrap().to_owned();
    served.rt.block_on(async {
        let client = client_at(0, 0, 1);
        // The printed link opens the mailbox: a cookie, then the clean page.
        let opened = client
            .get(format!("{base}/_/mailbox?token={token}"))
            .send()
            .await
            .unwrap();
        assert_eq!(opened.status(), 303);
        let cookie = opened.headers()["set-cookie"].to_str().unwrap().to_owned();
        assert!(cookie.contains("HttpOnly"), "{cookie}");
        let pair = cookie.split(';').next().unwrap().to_owned();
        let page = client
            .get(format!("{base}/_/mailbox"))
            .header("cookie", &pair)
            .send()
            .await
            .unwrap();
        assert_eq!(page.status(), 200);
        assert!(page.text().await.unwrap().contains("Dev mailbox"));
        // The JSON list takes the token too (scripts).
        let listed = client
            .get(format!("{base}/_/mailbox/api/messages?token={token}"))
            .send()
            .await
            .unwrap();
        assert_eq!(listed.status(), 200);
        // A wrong token is refused.
        let wrong = client
            .get(format!("{base}/_/mailbox/api/messages?token=not-{token}"))
            .send()
            .await
            .unwrap();
        assert_eq!(wrong.status(), 401);
    });
    let Served { running, .. } = served;
    assert!(running.interrupt().success());
}

// ------------------------------------------------------------------ item 6

#[tokio::test]
async fn item_06_failed_sign_ins_block_the_attackers_address_not_the_owner() {
    let app = spawn_app().await;
    let email = unique("owner");
    seeded_user(&app, &email, PASSWORD, 4).await;

    // Three addresses try wrong passwords until each is refused.
    let mut refused_at = Vec::new();
    for attacker in [2u8, 3, 4] {
        let client = client_at(0, 0, attacker);
        let mut attempts = 0;
        loop {
            attempts += 1;
            let reply = sign_in(&app, &client, &email, "a-wrong-guess").await;
            if reply.status == 429 {
                assert_eq!(
                    reply.body["code"], "over_request_rate_limit",
                    "{}",
                    reply.body
                );
                break;
            }
            assert_eq!(reply.status, 400, "{}", reply.body);
            assert_eq!(reply.body["code"], "invalid_credentials");
            assert!(attempts <= 31, "never refused");
        }
        refused_at.push(attempts);
        // Refused even with the right password: that address is blocked for
        // this account.
        let blocked = sign_in(&app, &client, &email, PASSWORD).await;
        assert_eq!(blocked.status, 429, "{}", blocked.body);
    }
    assert!(refused_at.iter().all(|n| *n <= 11), "{refused_at:?}");

    // The owner, elsewhere, signs in.
    let owner = sign_in(&app, &client_at(0, 0, 9), &email, PASSWORD).await;
    assert_eq!(owner.status, 200, "{}", owner.body);
    assert!(owner.body["access_token"].is_string());
}

// ------------------------------------------------------------------ item 9

#[tokio::test]
async fn item_09_one_recovery_mail_per_address_per_minute() {
    let app = spawn_app().await;
    let email = unique("forgetful");
    seeded_user(&app, &email, PASSWORD, 4).await;
    let first = auth_post(
        &app,
        &client_at(0, 0, 2),
        "/recover",
        json!({"email": email}),
    )
    .await;
    assert_eq!(first.status, 200, "{}", first.body);
    // Again, from another address: per account, not per address.
    let again = auth_post(
        &app,
        &client_at(0, 0, 3),
        "/recover",
        json!({"email": email}),
    )
    .await;
    assert_eq!(again.status, 429, "{}", again.body);
    assert_eq!(again.body["code"], "over_email_send_rate_limit");
    let message = again.body["message"].as_str().unwrap();
    assert!(
        message.starts_with("For security purposes, you can only request this after"),
        "{message}"
    );
    assert_eq!(mail_to(&app, &email).await.len(), 1);
    // A magic link to the same address counts too.
    let otp = auth_post(
        &app,
        &client_at(0, 0, 4),
        "/otp",
        json!({"email": email, "create_user": false}),
    )
    .await;
    assert_eq!(otp.status, 429, "{}", otp.body);
    assert_eq!(mail_to(&app, &email).await.len(), 1);
}

#[tokio::test]
async fn item_09_wrong_codes_are_limited_per_account_and_links_cannot_be_computed() {
    let app = spawn_app().await;
    let email = unique("guessed");
    seeded_user(&app, &email, PASSWORD, 4).await;
    let asked = auth_post(
        &app,
        &client_at(0, 0, 2),
        "/recover",
        json!({"email": email}),
    )
    .await;
    assert_eq!(asked.status, 200);
    let code = code_to(&app, &email).await;
    let wrong = if code == "000000" { "111111" } else { "000000" };

    // The link token is not the SHA-256 of address and code (which anyone
    // could compute for every code, bypassing any per-account limit).
    let computable: String =
        sqlx::query_scalar("select encode(sha256(convert_to(lower($1) || $2, 'UTF8')), 'hex')")
            .bind(&email)
            .bind(&code)
            .fetch_one(owner_pool(&app))
            .await
            .unwrap();
    let by_hash = auth_post(
        &app,
        &client_at(0, 0, 3),
        "/verify",
        json!({"type": "recovery", "token_hash": computable}),
    )
    .await;
    assert_eq!(by_hash.status, 403, "{}", by_hash.body);

    // Wrong codes, each from another address, until the account refuses.
    let mut refused = None;
    for (i, from) in (10u8..30).enumerate() {
        let reply = auth_post(
            &app,
            &client_at(0, 0, from),
            "/verify",
            json!({"type": "recovery", "email": email, "token": wrong}),
        )
        .await;
        if reply.status == 429 {
            assert_eq!(reply.body["code"], "over_request_rate_limit");
            refused = Some(i);
            break;
        }
        assert_eq!(
            (reply.status.as_u16(), reply.body["code"].as_str()),
            (403, Some("otp_expired"))
        );
    }
    let refused = refused.expect("wrong codes were never refused");
    assert!(refused <= 5, "refused after {refused} wrong codes");
    // The right code is refused too for now...
    let right = auth_post(
        &app,
        &client_at(0, 0, 40),
        "/verify",
        json!({"type": "recovery", "email": email, "token": code}),
    )
    .await;
    assert_eq!(right.status, 429, "{}", right.body);
    // ...but the owner's link still works.
    let link = link_to(&app, &email).await;
    let followed = client_at(0, 0, 41).get(&link).send().await.unwrap();
    assert_eq!(followed.status(), 303);
    let location = followed.headers()["location"].to_str().unwrap().to_owned();
    assert!(location.contains("access_token="), "{location}");
}

#[tokio::test]
async fn item_09_codes_and_links_expire_after_an_hour() {
    let app = spawn_app().await;
    let email = unique("slow");
    seeded_user(&app, &email, PASSWORD, 4).await;
    auth_post(
        &app,
        &client_at(0, 0, 2),
        "/recover",
        json!({"email": email}),
    )
    .await;
    let code = code_to(&app, &email).await;
    let link = link_to(&app, &email).await;
    // Sent an hour and a second ago.
    sqlx::query(
        "update auth.users set recovery_sent_at = now() - interval '3601 seconds' where lower(email) = lower($1)",
    )
    .bind(&email)
    .execute(owner_pool(&app))
    .await
    .unwrap();
    let expired = auth_post(
        &app,
        &client_at(0, 0, 3),
        "/verify",
        json!({"type": "recovery", "email": email, "token": code}),
    )
    .await;
    assert_eq!(expired.status, 403, "{}", expired.body);
    assert_eq!(expired.body["code"], "otp_expired");
    let followed = client_at(0, 0, 4).get(&link).send().await.unwrap();
    assert_eq!(followed.status(), 303);
    let location = followed.headers()["location"].to_str().unwrap().to_owned();
    assert!(location.contains("error_code=otp_expired"), "{location}");
}

// ------------------------------------------------------------------ item 12

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

#[tokio::test]
async fn item_12_sign_in_takes_as_long_for_a_missing_account_as_for_a_bcrypt_one() {
    let app = spawn_app().await;
    let seeded = unique("seeded");
    // bcrypt of cost 10 costs far more than the test's cheap argon2id: a
    // missing account that skipped the work would answer many times faster.
    seeded_user(&app, &seeded, PASSWORD, 10).await;
    let client = client_at(0, 0, 2);
    let (mut bcrypt, mut missing) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        let known = sign_in(&app, &client, &seeded, "wrong-password").await;
        assert_eq!(known.status, 400);
        bcrypt.push(known.elapsed);
        let unknown = sign_in(&app, &client, &unique("nobody"), "wrong-password").await;
        assert_eq!(unknown.status, 400);
        assert_eq!(unknown.body, known.body);
        missing.push(unknown.elapsed);
    }
    let fastest_missing = *missing.iter().min().unwrap();
    let typical_bcrypt = median(bcrypt.clone());
    assert!(
        fastest_missing * 2 >= typical_bcrypt,
        "a missing account answered in {fastest_missing:?}, a bcrypt one in {typical_bcrypt:?} \
         (missing {missing:?}, bcrypt {bcrypt:?})"
    );
}

/// The shape of a JSON value: its keys and the kinds of its values.
fn shape(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), shape(v))).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(shape).collect()),
        Value::String(_) => json!("string"),
        Value::Number(_) => json!("number"),
        Value::Bool(_) => json!("bool"),
        Value::Null => json!("null"),
    }
}

#[tokio::test]
async fn item_12_sign_up_of_a_taken_address_answers_like_a_new_one() {
    let app = spawn_app().await;
    let fresh = unique("fresh");
    let taken = unique("taken");
    let owner = seeded_user(&app, &taken, PASSWORD, 4).await;
    let unconfirmed = unique("pending");
    let pending = crate::marketplace_support::create_user(&app, &unconfirmed, "Pending").await;

    let body = |email: &str| json!({"email": email, "password": "some-new-password", "data": {"display_name": "X"}});
    let new = auth_post(&app, &client_at(0, 0, 2), "/signup", body(&fresh)).await;
    assert_eq!(new.status, 200, "{}", new.body);
    for (email, real_id) in [(&taken, owner), (&unconfirmed, pending)] {
        let reply = auth_post(&app, &client_at(0, 0, 3), "/signup", body(email)).await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        assert_eq!(
            shape(&reply.body),
            shape(&new.body),
            "{} vs {}",
            reply.body,
            new.body
        );
        assert_ne!(reply.body["id"], json!(real_id));
        assert_eq!(reply.body["email"], json!(email));
        assert_eq!(
            reply.body["identities"][0]["identity_data"]["email"],
            json!(email)
        );
        assert_eq!(reply.body["identities"][0]["user_id"], reply.body["id"]);
        // The owner hears of it by e-mail instead.
        assert_eq!(mail_to(&app, email).await.len(), 1, "{email}");
    }
    // Nothing changed for the taken account.
    let still: bool = sqlx::query_scalar(
        "select encrypted_password = crypt($2, encrypted_password) from auth.users where id = $1",
    )
    .bind(owner)
    .bind(PASSWORD)
    .fetch_one(owner_pool(&app))
    .await
    .unwrap();
    assert!(still);
}

#[tokio::test]
async fn item_12_magic_links_and_recovery_answer_alike_for_unknown_addresses() {
    let app = spawn_app().await;
    for path in ["/otp", "/recover"] {
        let known = unique("known");
        seeded_user(&app, &known, PASSWORD, 4).await;
        let unknown = unique("unknown");
        // `signInWithOtp({ shouldCreateUser: false })` sends `create_user: false`.
        let payload = |email: &str| json!({"email": email, "create_user": false, "data": {}});
        let a = auth_post(&app, &client_at(0, 0, 2), path, payload(&known)).await;
        let b = auth_post(&app, &client_at(0, 0, 2), path, payload(&unknown)).await;
        assert_eq!((a.status, &a.body), (StatusCode::OK, &json!({})), "{path}");
        assert_eq!(
            (b.status, &b.body),
            (StatusCode::OK, &json!({})),
            "{path}: {}",
            b.body
        );
        // Asked again at once: refused alike.
        let a = auth_post(&app, &client_at(0, 0, 3), path, payload(&known)).await;
        let b = auth_post(&app, &client_at(0, 0, 3), path, payload(&unknown)).await;
        assert_eq!(a.status, 429, "{path}: {}", a.body);
        assert_eq!(b.status, 429, "{path}: {}", b.body);
        assert_eq!(a.body["code"], b.body["code"], "{path}");
        // No account was made for the unknown address, nor mail sent to it.
        let made: i64 =
            sqlx::query_scalar("select count(*) from auth.users where lower(email) = lower($1)")
                .bind(&unknown)
                .fetch_one(owner_pool(&app))
                .await
                .unwrap();
        assert_eq!(made, 0, "{path}");
        assert!(mail_to(&app, &unknown).await.is_empty(), "{path}");
        assert_eq!(mail_to(&app, &known).await.len(), 1, "{path}");
    }
}

// ------------------------------------------------------------------ item 13

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// What each service answers `token` (as `apikey` and bearer; for auth as
/// the bearer beside the anon key): REST, auth's
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
        // Auth's gateway would refuse the token as an API key before GoTrue
        // reads it (tests/keys.rs in crates/auth): there the anon key is the
        // apikey and the token only the bearer, as supabase-js sends them.
        let apikey = if service == "auth" {
            app.keys.anon_key.as_str()
        } else {
            token
        };
        let mut request = client
            .request(method.parse().unwrap(), format!("{}{path}", app.url))
            .header("apikey", apikey)
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
            // PostgREST: a token it cannot accept is PGRST301, one whose
            // time claims refuse it (not yet valid) PGRST303.
            "rest" => {
                *status == 401 && matches!(body["code"].as_str(), Some("PGRST301" | "PGRST303"))
            }
            "auth" => *status == 403 && body["error_code"] == "bad_jwt",
            "storage" => *status == 400 && body["statusCode"] == "403",
            "functions" | "realtime" => *status == 401,
            _ => unreachable!(),
        };
        assert!(refused, "{what}: {service} answered {status} {body}");
    }
}

/// On a node with `PLINTH_JWT_REQUIRE_EXP` (without it, tokens without
/// `exp` are accepted as on the platform: `tokens.rs`).
#[tokio::test]
async fn item_13_tokens_without_exp_or_not_yet_valid_are_refused_everywhere() {
    let app = spawn_app_requiring_exp().await;
    let secret = &app.keys.secret;
    let sub = Uuid::new_v4().to_string();
    let no_exp = secret.sign(&json!({"role": "service_role", "sub": sub, "iss": "plinth"}));
    assert_refused(&answers(&app, &no_exp).await, "a token without exp");
    let early = secret.sign(&json!({
        "role": "service_role", "sub": sub, "nbf": now() + 600, "exp": now() + 3600,
    }));
    let early_answers = answers(&app, &early).await;
    assert_refused(&early_answers, "a token before its nbf");
    assert_eq!(
        early_answers[0].2["code"], "PGRST303",
        "{}",
        early_answers[0].2
    );
    assert_eq!(early_answers[0].2["message"], "JWT not yet valid");
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
fn item_13_api_keys_expire_and_keys_without_exp_are_refused_when_required() {
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
    // A configured key without exp is taken, as on the platform...
    let forever = secret.sign(&json!({"role": "anon", "iss": "supabase-demo", "iat": now()}));
    let mut cmd = plinth(dir.path());
    cmd.arg("keys")
        .env("JWT_SECRET", secret_text)
        .env("ANON_KEY", &forever);
    let (ok, out, stderr) = output(cmd);
    assert!(ok, "{stderr}");
    assert!(out.contains(&format!("ANON_KEY={forever}\n")), "{out}");
    // ...and with PLINTH_JWT_REQUIRE_EXP stops start-up with a clear line.
    let mut cmd = plinth(dir.path());
    cmd.arg("keys")
        .env("JWT_SECRET", secret_text)
        .env("ANON_KEY", &forever)
        .env("PLINTH_JWT_REQUIRE_EXP", "true");
    let (ok, _, stderr) = output(cmd);
    assert!(!ok, "a key without exp was accepted");
    let last = stderr.lines().last().unwrap_or_default();
    assert!(last.starts_with("error: ANON_KEY"), "{last}");
    assert!(last.contains("exp"), "{last}");
}
