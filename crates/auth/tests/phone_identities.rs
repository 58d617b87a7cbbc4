//! Phone sign-in (SMS codes through the dev mailbox, test numbers, a
//! stand-in Twilio), identity linking and reauthentication, over HTTP
//! against a real Postgres: one fresh database and one server per test.

#![allow(clippy::unwrap_used)]

mod support;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine;
use plinth_auth::{AuthConfig, Rate, SmsProvider};
use reqwest::Method;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use support::{App, Reply, claims_of, fragment, params_of};

/// Phone sign-in on, everything else as the default test configuration,
/// changed by `tweak`.
async fn spawn_app_with(tweak: impl FnOnce(&mut AuthConfig)) -> App {
    support::spawn_app_with(|config| {
        config.sms.phone_enabled = true;
        tweak(config);
    })
    .await
}

impl App {
    async fn put_user(&self, token: &str, body: Value) -> Reply {
        self.call(Method::PUT, "/user", Some(token), Some(body))
            .await
    }

    /// The code in the newest SMS to `to` ("Your code is 123456").
    async fn sms_code(&self, to: &str) -> String {
        let messages = self.mail_to(to).await;
        assert!(!messages.is_empty(), "no SMS to {to}");
        assert_eq!(messages[0]["subject"], "SMS");
        let text = messages[0]["text"].as_str().unwrap();
        text.strip_prefix("Your code is ").unwrap().to_owned()
    }
}

fn token_of(session: &Reply) -> String {
    session.body["access_token"].as_str().unwrap().to_owned()
}

// ------------------------------------------------------------ phone

#[tokio::test]
async fn phone_signup_is_confirmed_by_an_sms_code_from_the_dev_mailbox() {
    let app = spawn_app_with(|_| {}).await;
    let signup = app
        .post(
            "/signup",
            json!({"phone": "+1 555 000 2222", "password": "secret123", "data": {"n": 1}}),
        )
        .await;
    assert_eq!(signup.status, 200, "{}", signup.text);
    assert!(signup.body.get("access_token").is_none());
    assert_eq!(signup.body["phone"], "15550002222");
    assert_eq!(signup.body["email"], "");
    assert_eq!(signup.body["user_metadata"]["n"], 1);
    assert_eq!(signup.body["app_metadata"]["providers"], json!(["phone"]));
    assert_eq!(signup.body["identities"][0]["provider"], "phone");
    assert_eq!(
        signup.body["identities"][0]["identity_data"]["phone"],
        "15550002222"
    );
    assert!(signup.body["confirmation_sent_at"].is_string());

    // Not confirmed yet: the password does not sign in.
    let early = app
        .post(
            "/token?grant_type=password",
            json!({"phone": "+15550002222", "password": "secret123"}),
        )
        .await;
    early.expect(400, "phone_not_confirmed");

    let code = app.sms_code("+15550002222").await;
    assert_eq!(code.len(), 6);
    // The operator's mailbox page lists the text message too.
    let page = app
        .http
        .get(format!("{}/_/mailbox", app.base))
        .header("apikey", app.key("service_role"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("+15550002222") && page.contains(">SMS<"),
        "{page}"
    );
    // Named without the `+` (or with one a query string made a space).
    for to in ["15550002222", " 15550002222"] {
        assert_eq!(app.mail_to(to).await.len(), 1, "{to:?}");
    }
    // Only the hash is stored.
    let stored: String = app
        .sql_scalar("select confirmation_token from auth.users where phone = '15550002222'")
        .await;
    assert!(!stored.contains(&code));

    let wrong = if code == "000000" { "111111" } else { "000000" };
    app.post(
        "/verify",
        json!({"type": "sms", "phone": "+15550002222", "token": wrong}),
    )
    .await
    .expect(403, "otp_expired");
    let verified = app
        .post(
            "/verify",
            json!({"type": "sms", "phone": "+15550002222", "token": code}),
        )
        .await;
    assert_eq!(verified.status, 200, "{}", verified.text);
    assert!(verified.body["user"]["phone_confirmed_at"].is_string());
    let claims = claims_of(&token_of(&verified));
    assert_eq!(claims["phone"], "15550002222");
    assert_eq!(claims["amr"][0]["method"], "otp");
    // The code worked once.
    app.post(
        "/verify",
        json!({"type": "sms", "phone": "+15550002222", "token": code}),
    )
    .await
    .expect(403, "otp_expired");

    let signin = app
        .post(
            "/token?grant_type=password",
            json!({"phone": "15550002222", "password": "secret123"}),
        )
        .await;
    assert_eq!(signin.status, 200, "{}", signin.text);
    assert_eq!(signin.body["user"]["phone"], "15550002222");
    app.post(
        "/token?grant_type=password",
        json!({"phone": "15550002222", "password": "wrong-one"}),
    )
    .await
    .expect(400, "invalid_credentials");

    // Signing up again with the confirmed number looks like a new sign-up
    // and stores nothing.
    let again = app
        .post(
            "/signup",
            json!({"phone": "+15550002222", "password": "other-secret"}),
        )
        .await;
    assert_eq!(again.status, 200, "{}", again.text);
    assert_ne!(again.body["id"], signup.body["id"]);
    let users: i64 = app
        .sql_scalar("select count(*) from auth.users where phone = '15550002222'")
        .await;
    assert_eq!(users, 1);
}

#[tokio::test]
async fn with_phone_sign_in_off_no_text_goes_to_the_dev_mailbox() {
    // Phone sign-in off and no SMS provider: numbers a user adds, and the
    // reauthentication of a phone-only user, find no provider, as on the
    // platform; nothing waits in the dev mailbox.
    let app = support::spawn_app_with(|c| {
        c.mailer_autoconfirm = true;
        c.anonymous_users = true;
        c.sms.test_otp.insert("15550001111".into(), "123456".into());
    })
    .await;
    let session = app
        .post(
            "/signup",
            json!({"email": "off@example.com", "password": "secret123"}),
        )
        .await;
    let token = token_of(&session);
    let change = app.put_user(&token, json!({"phone": "+15550004444"})).await;
    change.expect(500, "unexpected_failure");
    assert_eq!(change.message(), "Unable to get SMS provider");
    assert!(app.mail_to("+15550004444").await.is_empty());
    let me = app.get_user(&token).await;
    assert!(me.body.get("new_phone").is_none(), "{}", me.text);
    // A test number has its fixed code and needs no provider.
    let test = app.put_user(&token, json!({"phone": "+15550001111"})).await;
    assert_eq!(test.status, 200, "{}", test.text);
    assert_eq!(test.body["new_phone"], "15550001111");

    // A phone-only user (an anonymous one given a confirmed number).
    let anon = app.post("/signup", json!({"data": {}})).await;
    assert_eq!(anon.status, 200, "{}", anon.text);
    let phone_only = token_of(&anon);
    sqlx::query(
        "update auth.users set phone = '15550005555', phone_confirmed_at = now(), \
         is_anonymous = false where id = $1::uuid",
    )
    .bind(anon.body["user"]["id"].as_str().unwrap())
    .execute(&app.db.db.owner)
    .await
    .unwrap();
    let reauth = app
        .call(Method::GET, "/reauthenticate", Some(&phone_only), None)
        .await;
    reauth.expect(500, "unexpected_failure");
    assert!(app.mail_to("+15550005555").await.is_empty());

    // With phone sign-in on, the dev mailbox stands in for the provider.
    let on = spawn_app_with(|c| c.mailer_autoconfirm = true).await;
    let session = on
        .post(
            "/signup",
            json!({"email": "on@example.com", "password": "secret123"}),
        )
        .await;
    let changed = on
        .put_user(&token_of(&session), json!({"phone": "+15550004444"}))
        .await;
    assert_eq!(changed.status, 200, "{}", changed.text);
    assert_eq!(on.sms_code("+15550004444").await.len(), 6);
}

#[tokio::test]
async fn phone_errors_are_the_platforms() {
    let app = spawn_app_with(|c| c.sms.phone_enabled = false).await;
    app.post(
        "/signup",
        json!({"phone": "+15550003333", "password": "secret123"}),
    )
    .await
    .expect(400, "phone_provider_disabled");
    app.post("/otp", json!({"phone": "+15550003333"}))
        .await
        .expect(400, "phone_provider_disabled");
    app.post(
        "/token?grant_type=password",
        json!({"phone": "+15550003333", "password": "secret123"}),
    )
    .await
    .expect(422, "phone_provider_disabled");
    app.post("/resend", json!({"type": "sms", "phone": "+15550003333"}))
        .await
        .expect(400, "phone_provider_disabled");
    let settings = app.call(Method::GET, "/settings", None, None).await;
    assert_eq!(settings.body["external"]["phone"], false);
    assert_eq!(settings.body["sms_provider"], "");

    let app = spawn_app_with(|_| {}).await;
    for bad in ["12ab", "+0123456", "+1234567890123456"] {
        let reply = app
            .post("/signup", json!({"phone": bad, "password": "secret123"}))
            .await;
        reply.expect(400, "validation_failed");
        assert_eq!(
            reply.message(),
            "Invalid phone number format (E.164 required)"
        );
        app.post("/otp", json!({"phone": bad}))
            .await
            .expect(400, "validation_failed");
    }
    app.post(
        "/signup",
        json!({"phone": "+15550003333", "email": "a@example.com", "password": "secret123"}),
    )
    .await
    .expect(400, "validation_failed");
    app.post(
        "/signup",
        json!({"phone": "+15550003333", "password": "secret123", "channel": "pigeon"}),
    )
    .await
    .expect(400, "validation_failed");
    // WhatsApp only through Twilio.
    app.post(
        "/otp",
        json!({"phone": "+15550003333", "channel": "whatsapp"}),
    )
    .await
    .expect(400, "validation_failed");
    let pkce = app
        .post(
            "/signup",
            json!({"phone": "+15550003333", "password": "secret123", "code_challenge": "x".repeat(43), "code_challenge_method": "s256"}),
        )
        .await;
    pkce.expect(400, "validation_failed");
    assert_eq!(pkce.message(), "PKCE not supported for phone signups");
    app.post("/signup", json!({"phone": "+15550003333", "password": "1"}))
        .await
        .expect(422, "weak_password");
    app.post(
        "/otp",
        json!({"phone": "+15550003333", "create_user": false}),
    )
    .await
    .expect(422, "otp_disabled");
    app.post(
        "/verify",
        json!({"type": "sms", "phone": "+15550003333", "token": "123456"}),
    )
    .await
    .expect(403, "otp_expired");
    app.post("/verify", json!({"type": "sms", "token": "123456"}))
        .await
        .expect(400, "validation_failed");
    app.post(
        "/token?grant_type=password",
        json!({"phone": "+15550003333", "email": "a@example.com", "password": "x"}),
    )
    .await
    .expect(400, "validation_failed");
    let settings = app.call(Method::GET, "/settings", None, None).await;
    assert_eq!(settings.body["external"]["phone"], true);
}

#[tokio::test]
async fn test_numbers_sign_in_with_their_fixed_code_and_nothing_is_sent() {
    let app = spawn_app_with(|c| {
        c.sms.test_otp = plinth_auth::parse_test_otp("+15550001111=123456").unwrap();
    })
    .await;
    let sent = app.post("/otp", json!({"phone": "+15550001111"})).await;
    assert_eq!(sent.status, 200, "{}", sent.text);
    assert_eq!(sent.body, json!({"message_id": "test-otp"}));
    assert!(app.mail_to("+15550001111").await.is_empty());

    app.post(
        "/verify",
        json!({"type": "sms", "phone": "+15550001111", "token": "654321"}),
    )
    .await
    .expect(403, "otp_expired");
    let session = app
        .post(
            "/verify",
            json!({"type": "sms", "phone": "+15550001111", "token": "123456"}),
        )
        .await;
    assert_eq!(session.status, 200, "{}", session.text);
    assert_eq!(session.body["user"]["phone"], "15550001111");
    assert!(session.body["user"]["phone_confirmed_at"].is_string());

    // A second sign-in of the now confirmed account, a minute later.
    app.clock.advance(Duration::from_secs(61));
    let sent = app.post("/otp", json!({"phone": "15550001111"})).await;
    assert_eq!(sent.status, 200, "{}", sent.text);
    let again = app
        .post(
            "/verify",
            json!({"type": "sms", "phone": "+15550001111", "token": "123456"}),
        )
        .await;
    assert_eq!(again.status, 200, "{}", again.text);
    assert_eq!(again.body["user"]["id"], session.body["user"]["id"]);

    // Other numbers still get real codes, in the dev mailbox.
    let other = app.post("/otp", json!({"phone": "+15550004444"})).await;
    assert_eq!(other.body, json!({}), "{}", other.text);
    assert_eq!(app.sms_code("+15550004444").await.len(), 6);
}

#[tokio::test]
async fn sms_codes_expire_and_sending_is_limited() {
    let app = spawn_app_with(|c| {
        c.sms.max_frequency = Duration::from_secs(60);
        c.sms.otp_length = 8;
        c.sms.template = "Plinth: {{ .Code }} is your code".into();
        c.rate_limits.sms_sent = Rate::per_hour(2);
        c.rate_limits.verify_failures_per_account = 3;
    })
    .await;
    assert_eq!(
        app.post("/otp", json!({"phone": "+15550005555"}))
            .await
            .status,
        200
    );
    let messages = app.mail_to("+15550005555").await;
    let text = messages[0]["text"].as_str().unwrap();
    let code = text
        .strip_prefix("Plinth: ")
        .and_then(|t| t.strip_suffix(" is your code"))
        .unwrap()
        .to_owned();
    assert_eq!(code.len(), 8);

    // One code per number per GOTRUE_SMS_MAX_FREQUENCY.
    let soon = app.post("/otp", json!({"phone": "+15550005555"})).await;
    soon.expect(429, "over_sms_send_rate_limit");
    assert!(
        soon.message()
            .starts_with("For security purposes, you can only request this after")
    );

    // GOTRUE_SMS_SENT_RATE: two SMS per hour for the whole instance.
    assert_eq!(
        app.post("/otp", json!({"phone": "+15550006666"}))
            .await
            .status,
        200
    );
    let third = app.post("/otp", json!({"phone": "+15550007777"})).await;
    third.expect(429, "over_sms_send_rate_limit");
    assert_eq!(third.message(), "SMS rate limit exceeded");

    // Codes expire after GOTRUE_SMS_OTP_EXP (60 s).
    app.clock.advance(Duration::from_secs(61));
    app.post(
        "/verify",
        json!({"type": "sms", "phone": "+15550005555", "token": code}),
    )
    .await
    .expect(403, "otp_expired");

    // Guessing: wrong codes are counted per number, from anywhere.
    for _ in 0..3 {
        app.post(
            "/verify",
            json!({"type": "sms", "phone": "+15550006666", "token": "00000000"}),
        )
        .await
        .expect(403, "otp_expired");
    }
    app.post(
        "/verify",
        json!({"type": "sms", "phone": "+15550006666", "token": "00000000"}),
    )
    .await
    .expect(429, "over_request_rate_limit");
}

/// One request Twilio got: account SID, `Authorization`, form.
type TwilioRequest = (String, String, HashMap<String, String>);

/// A stand-in for Twilio's Messages API: records each form and answers as
/// Twilio does.
#[derive(Clone, Default)]
struct FakeTwilio {
    requests: Arc<Mutex<Vec<TwilioRequest>>>,
    fail: Arc<Mutex<bool>>,
}

async fn twilio_messages(
    State(fake): State<FakeTwilio>,
    axum::extract::Path(account): axum::extract::Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let auth = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert_eq!(content_type, "application/x-www-form-urlencoded");
    let form = params_of(std::str::from_utf8(&body).unwrap());
    fake.requests
        .lock()
        .unwrap()
        .push((account.clone(), auth, form.clone()));
    if *fake.fail.lock().unwrap() {
        return (
            StatusCode::BAD_REQUEST,
            axum::Json(json!({
                "code": 21211,
                "message": "The 'To' number +15550008888 is not a valid phone number.",
                "more_info": "https://www.twilio.com/docs/errors/21211",
                "status": 400,
            })),
        )
            .into_response();
    }
    (
        StatusCode::CREATED,
        axum::Json(json!({
            "sid": "SM0123456789abcdef0123456789abcdef",
            "status": "queued",
            "to": form["To"],
            "from": form["From"],
            "body": form.get("Body"),
            "error_code": null,
            "error_message": null,
            "account_sid": account,
        })),
    )
        .into_response()
}

#[tokio::test]
async fn twilio_gets_the_form_its_messages_api_expects() {
    let fake = FakeTwilio::default();
    let router = Router::new()
        .route(
            "/2010-04-01/Accounts/{account}/Messages.json",
            post(twilio_messages),
        )
        .with_state(fake.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let twilio_base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    let app = spawn_app_with(|c| {
        c.sms.provider = Some(SmsProvider::Twilio);
        c.sms.twilio.account_sid = "AC123".into();
        c.sms.twilio.auth_token = "twilio-token".into();
        c.sms.twilio.message_service_sid = "MG456".into();
        c.sms.twilio.api_base = twilio_base.clone();
    })
    .await;
    let settings = app.call(Method::GET, "/settings", None, None).await;
    assert_eq!(settings.body["sms_provider"], "twilio");

    let sent = app.post("/otp", json!({"phone": "+15550008888"})).await;
    assert_eq!(sent.status, 200, "{}", sent.text);
    assert_eq!(
        sent.body,
        json!({"message_id": "SM0123456789abcdef0123456789abcdef"})
    );
    assert!(app.mail_to("+15550008888").await.is_empty());
    let (account, auth, form) = fake.requests.lock().unwrap()[0].clone();
    assert_eq!(account, "AC123");
    let basic = base64::engine::general_purpose::STANDARD.encode("AC123:twilio-token");
    assert_eq!(auth, format!("Basic {basic}"));
    assert_eq!(form["To"], "+15550008888");
    assert_eq!(form["From"], "MG456");
    assert_eq!(form["Channel"], "sms");
    let code = form["Body"]
        .strip_prefix("Your code is ")
        .unwrap()
        .to_owned();
    let session = app
        .post(
            "/verify",
            json!({"type": "sms", "phone": "+15550008888", "token": code}),
        )
        .await;
    assert_eq!(session.status, 200, "{}", session.text);

    // WhatsApp goes through Twilio too.
    app.clock.advance(Duration::from_secs(61));
    let whatsapp = app
        .post(
            "/otp",
            json!({"phone": "+15550008888", "channel": "whatsapp"}),
        )
        .await;
    assert_eq!(whatsapp.status, 200, "{}", whatsapp.text);
    let (_, _, form) = fake.requests.lock().unwrap()[1].clone();
    assert_eq!(form["To"], "whatsapp:+15550008888");
    assert_eq!(form["Channel"], "whatsapp");

    // Twilio's refusal: 422 sms_send_failed with its message.
    *fake.fail.lock().unwrap() = true;
    let failed = app.post("/otp", json!({"phone": "+15550009999"})).await;
    failed.expect(422, "sms_send_failed");
    assert_eq!(
        failed.message(),
        "Error sending confirmation OTP to provider: The 'To' number +15550008888 is not a valid phone number. More information: https://www.twilio.com/docs/errors/21211"
    );
    // Nothing half-made stays behind.
    let users: i64 = app
        .sql_scalar("select count(*) from auth.users where phone = '15550009999'")
        .await;
    assert_eq!(users, 0);
}

#[tokio::test]
async fn phone_autoconfirm_signs_up_with_a_session_and_numbers_change_through_update_user() {
    let app = spawn_app_with(|c| {
        c.sms.autoconfirm = true;
        c.mailer_autoconfirm = true;
    })
    .await;
    let session = app
        .post(
            "/signup",
            json!({"phone": "+15551110000", "password": "secret123"}),
        )
        .await;
    assert_eq!(session.status, 200, "{}", session.text);
    assert!(session.body["user"]["phone_confirmed_at"].is_string());
    app.post(
        "/signup",
        json!({"phone": "+15551110000", "password": "secret123"}),
    )
    .await
    .expect(422, "user_already_exists");
    let settings = app.call(Method::GET, "/settings", None, None).await;
    assert_eq!(settings.body["phone_autoconfirm"], true);

    // An e-mail user adds a number: confirmed at once with autoconfirm.
    let email_user = app
        .post(
            "/signup",
            json!({"email": "e@example.com", "password": "secret123"}),
        )
        .await;
    let token = token_of(&email_user);
    app.put_user(&token, json!({"phone": "+15551110000"}))
        .await
        .expect(422, "phone_exists");
    app.put_user(&token, json!({"phone": "not a number"}))
        .await
        .expect(400, "validation_failed");
    let changed = app.put_user(&token, json!({"phone": "+15552220000"})).await;
    assert_eq!(changed.status, 200, "{}", changed.text);
    assert_eq!(changed.body["phone"], "15552220000");
    assert_eq!(
        changed.body["app_metadata"]["providers"],
        json!(["email", "phone"])
    );
    let phone_identity = changed.body["identities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["provider"] == "phone")
        .cloned()
        .unwrap();
    assert_eq!(phone_identity["identity_data"]["phone_verified"], true);
}

#[tokio::test]
async fn a_new_number_is_confirmed_by_a_code_sent_to_it() {
    let app = spawn_app_with(|c| c.mailer_autoconfirm = true).await;
    let email_user = app
        .post(
            "/signup",
            json!({"email": "p@example.com", "password": "secret123"}),
        )
        .await;
    let token = token_of(&email_user);
    let pending = app.put_user(&token, json!({"phone": "+15553330000"})).await;
    assert_eq!(pending.status, 200, "{}", pending.text);
    assert_eq!(pending.body["phone"], "");
    assert_eq!(pending.body["new_phone"], "15553330000");
    let code = app.sms_code("+15553330000").await;

    // Resend needs a number; a wrong code is refused.
    app.post("/resend", json!({"type": "phone_change"}))
        .await
        .expect(400, "validation_failed");
    app.post(
        "/verify",
        json!({"type": "phone_change", "phone": "+15553330000", "token": "000000"}),
    )
    .await
    .expect(403, "otp_expired");
    let verified = app
        .post(
            "/verify",
            json!({"type": "phone_change", "phone": "+15553330000", "token": code}),
        )
        .await;
    assert_eq!(verified.status, 200, "{}", verified.text);
    assert_eq!(verified.body["user"]["phone"], "15553330000");
    assert!(verified.body["user"].get("new_phone").is_none());
    assert_eq!(verified.body["user"]["email"], "p@example.com");
    let me = app.get_user(&token_of(&verified)).await;
    assert!(
        me.body["identities"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["provider"] == "phone")
    );
}

#[tokio::test]
async fn anonymous_users_become_permanent_with_a_number_or_an_address() {
    let app = spawn_app_with(|c| {
        c.anonymous_users = true;
        c.sms.autoconfirm = true;
        c.mailer_autoconfirm = true;
    })
    .await;
    let anon = app.post("/signup", json!({"data": {}})).await;
    assert_eq!(anon.status, 200, "{}", anon.text);
    let token = token_of(&anon);
    let refused = app.put_user(&token, json!({"password": "secret123"})).await;
    refused.expect(422, "validation_failed");
    assert_eq!(
        refused.message(),
        "Updating password of an anonymous user without an email or phone is not allowed"
    );
    let upgraded = app
        .put_user(
            &token,
            json!({"phone": "+15554440000", "password": "secret123"}),
        )
        .await;
    assert_eq!(upgraded.status, 200, "{}", upgraded.text);
    assert_eq!(upgraded.body["is_anonymous"], false);
    assert_eq!(upgraded.body["phone"], "15554440000");
    let signin = app
        .post(
            "/token?grant_type=password",
            json!({"phone": "+15554440000", "password": "secret123"}),
        )
        .await;
    assert_eq!(signin.status, 200, "{}", signin.text);
    assert_eq!(claims_of(&token_of(&signin))["is_anonymous"], false);

    let anon = app.post("/signup", json!({})).await;
    let upgraded = app
        .put_user(&token_of(&anon), json!({"email": "was-anon@example.com"}))
        .await;
    assert_eq!(upgraded.status, 200, "{}", upgraded.text);
    assert_eq!(upgraded.body["is_anonymous"], false);
}

// ------------------------------------------------------------ reauthentication

#[tokio::test]
async fn a_password_change_needs_the_reauthentication_nonce_once_the_session_is_old() {
    let app = spawn_app_with(|c| {
        c.mailer_autoconfirm = true;
        c.update_password_require_reauthentication = true;
        c.rate_limits.verify_failures_per_account = 3;
    })
    .await;
    let session = app
        .post(
            "/signup",
            json!({"email": "r@example.com", "password": "secret123"}),
        )
        .await;
    // A session made moments ago needs no nonce.
    let fresh = app
        .put_user(&token_of(&session), json!({"password": "secret456"}))
        .await;
    assert_eq!(fresh.status, 200, "{}", fresh.text);

    // A day later (refreshed, same session) it does.
    app.clock.advance(Duration::from_secs(25 * 3600));
    let refreshed = app
        .post(
            "/token?grant_type=refresh_token",
            json!({"refresh_token": session.body["refresh_token"]}),
        )
        .await;
    assert_eq!(refreshed.status, 200, "{}", refreshed.text);
    let token = token_of(&refreshed);
    let needed = app.put_user(&token, json!({"password": "secret789"})).await;
    needed.expect(400, "reauthentication_needed");
    assert_eq!(
        needed.message(),
        "Password update requires reauthentication"
    );
    app.put_user(&token, json!({"password": "secret789", "nonce": "123456"}))
        .await
        .expect(422, "reauthentication_not_valid");

    let sent = app
        .call(Method::GET, "/reauthenticate", Some(&token), None)
        .await;
    assert_eq!(sent.status, 200, "{}", sent.text);
    assert_eq!(sent.body, json!({}));
    let mail = app.mail_to("r@example.com").await;
    assert_eq!(mail[0]["subject"], "Confirm reauthentication");
    let text = mail[0]["text"].as_str().unwrap();
    let nonce: String = text
        .lines()
        .find(|l| l.len() == 6 && l.bytes().all(|b| b.is_ascii_digit()))
        .unwrap()
        .to_owned();
    let wrong = if nonce == "000000" {
        "111111"
    } else {
        "000000"
    };
    let bad = app
        .put_user(&token, json!({"password": "secret789", "nonce": wrong}))
        .await;
    bad.expect(422, "reauthentication_not_valid");
    assert_eq!(bad.message(), "Nonce has expired or is invalid");
    let changed = app
        .put_user(&token, json!({"password": "secret789", "nonce": nonce}))
        .await;
    assert_eq!(changed.status, 200, "{}", changed.text);
    // Once only.
    app.put_user(&token, json!({"password": "secret000", "nonce": nonce}))
        .await
        .expect(422, "reauthentication_not_valid");
    // Guessing is limited per user.
    app.put_user(&token, json!({"password": "secret000", "nonce": wrong}))
        .await
        .expect(429, "over_request_rate_limit");
    let signin = app
        .post(
            "/token?grant_type=password",
            json!({"email": "r@example.com", "password": "secret789"}),
        )
        .await;
    assert_eq!(signin.status, 200, "{}", signin.text);

    // Other updates never need it.
    let data = app.put_user(&token, json!({"data": {"a": 1}})).await;
    assert_eq!(data.status, 200, "{}", data.text);
}

#[tokio::test]
async fn reauthentication_by_sms_for_phone_users_and_its_errors() {
    let app = spawn_app_with(|c| {
        c.sms.autoconfirm = true;
        c.anonymous_users = true;
        c.update_password_require_reauthentication = true;
        c.sms.test_otp = plinth_auth::parse_test_otp("+15556660000=424242").unwrap();
    })
    .await;
    app.call(Method::GET, "/reauthenticate", None, None)
        .await
        .expect(403, "bad_jwt");
    let anon = app.post("/signup", json!({})).await;
    app.call(Method::GET, "/reauthenticate", Some(&token_of(&anon)), None)
        .await
        .expect(400, "validation_failed");

    let session = app
        .post(
            "/signup",
            json!({"phone": "+15556660000", "password": "secret123"}),
        )
        .await;
    assert_eq!(session.status, 200, "{}", session.text);
    app.clock.advance(Duration::from_secs(25 * 3600));
    let refreshed = app
        .post(
            "/token?grant_type=refresh_token",
            json!({"refresh_token": session.body["refresh_token"]}),
        )
        .await;
    let token = token_of(&refreshed);
    let sent = app
        .call(Method::GET, "/reauthenticate", Some(&token), None)
        .await;
    assert_eq!(sent.status, 200, "{}", sent.text);
    assert_eq!(sent.body, json!({"message_id": "test-otp"}));
    let changed = app
        .put_user(&token, json!({"password": "secret456", "nonce": "424242"}))
        .await;
    assert_eq!(changed.status, 200, "{}", changed.text);

    // Unconfirmed e-mail users are told to verify first.
    let app = spawn_app_with(|_| {}).await;
    let row: (uuid::Uuid,) = sqlx::query_as(
        "insert into auth.users (id, aud, role, email, raw_app_meta_data, raw_user_meta_data, created_at, updated_at) \
         values (gen_random_uuid(), 'authenticated', 'authenticated', 'u@example.com', '{}', '{}', now(), now()) returning id",
    )
    .fetch_one(&app.db.db.owner)
    .await
    .unwrap();
    let now = app.clock.timestamp();
    let token = app.jwt.sign(&json!({
        "sub": row.0.to_string(), "role": "authenticated", "aud": "authenticated",
        "iat": now, "exp": now + 3600,
    }));
    app.call(Method::GET, "/reauthenticate", Some(&token), None)
        .await
        .expect(422, "email_not_confirmed");
}

// ------------------------------------------------------------ identities

/// A fake GitHub: authorize, token, user and e-mails.
#[derive(Clone, Default)]
struct Fake {
    codes: Arc<Mutex<HashMap<String, String>>>,
    user: Arc<Mutex<(u64, String, bool)>>,
}

async fn fake_authorize(State(fake): State<Fake>, RawQuery(q): RawQuery) -> Response {
    let q = params_of(&q.unwrap_or_default());
    let code = plinth_db::random_token(20);
    fake.codes
        .lock()
        .unwrap()
        .insert(code.clone(), q["code_challenge"].clone());
    let target = format!(
        "{}?code={code}&state={}",
        q["redirect_uri"],
        url::form_urlencoded::byte_serialize(q["state"].as_bytes()).collect::<String>()
    );
    (StatusCode::FOUND, [(header::LOCATION, target)]).into_response()
}

async fn fake_token(State(fake): State<Fake>, body: Bytes) -> Response {
    let form = params_of(std::str::from_utf8(&body).unwrap());
    let challenge = fake.codes.lock().unwrap().remove(&form["code"]);
    let computed = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(
        form.get("code_verifier")
            .cloned()
            .unwrap_or_default()
            .as_bytes(),
    ));
    if form["client_secret"] != "client-secret" || challenge != Some(computed) {
        return (
            StatusCode::BAD_REQUEST,
            axum::Json(json!({"error": "bad_verification_code"})),
        )
            .into_response();
    }
    axum::Json(json!({"access_token": "provider-access", "token_type": "bearer"})).into_response()
}

async fn fake_user(State(fake): State<Fake>) -> Response {
    let (id, _, _) = fake.user.lock().unwrap().clone();
    axum::Json(json!({"login": "octocat", "id": id, "name": "The Octocat", "email": null}))
        .into_response()
}

async fn fake_emails(State(fake): State<Fake>) -> Response {
    let (_, email, verified) = fake.user.lock().unwrap().clone();
    axum::Json(json!([{"email": email, "primary": true, "verified": verified}])).into_response()
}

async fn spawn_github(id: u64, email: &str) -> (String, Fake) {
    let fake = Fake::default();
    *fake.user.lock().unwrap() = (id, email.to_owned(), true);
    let router = Router::new()
        .route("/authorize", get(fake_authorize))
        .route("/token", post(fake_token))
        .route("/user", get(fake_user))
        .route("/user/emails", get(fake_emails))
        .with_state(fake.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    (base, fake)
}

fn github_at(config: &mut AuthConfig, provider: &str) {
    config.github.enabled = true;
    config.github.client_id = "client-id".into();
    config.github.secret = "client-secret".into();
    config.github.authorize_url = format!("{provider}/authorize");
    config.github.token_url = format!("{provider}/token");
    config.github.userinfo_url = format!("{provider}/user");
    config.github.emails_url = format!("{provider}/user/emails");
}

/// `linkIdentity` as supabase-js runs it: the URL from
/// `/user/identities/authorize`, then the browser through the provider and
/// the callback; where the app is sent at the end.
async fn link_github(app: &App, token: &str) -> String {
    let start = app
        .call(
            Method::GET,
            "/user/identities/authorize?provider=github&skip_http_redirect=true&redirect_to=http%3A%2F%2Fapp.test%2Flinked",
            Some(token),
            None,
        )
        .await;
    assert_eq!(start.status, 200, "{}", start.text);
    let url = start.body["url"].as_str().unwrap().to_owned();
    let at_provider = app.get_raw(&url).await;
    assert_eq!(at_provider.status, 302);
    let back = app.get_raw(&at_provider.location()).await;
    assert_eq!(back.status, 302, "{}", back.text);
    back.location()
}

#[tokio::test]
async fn identities_are_linked_and_unlinked_as_on_the_platform() {
    let (github, _fake) = spawn_github(583231, "octo@example.com").await;
    let app = spawn_app_with(|c| {
        c.mailer_autoconfirm = true;
        github_at(c, &github);
    })
    .await;
    let session = app
        .post(
            "/signup",
            json!({"email": "me@example.com", "password": "secret123"}),
        )
        .await;
    let token = token_of(&session);
    // Off by default.
    app.call(
        Method::GET,
        "/user/identities/authorize?provider=github&skip_http_redirect=true",
        Some(&token),
        None,
    )
    .await
    .expect(404, "manual_linking_disabled");

    let app = spawn_app_with(|c| {
        c.mailer_autoconfirm = true;
        c.manual_linking_enabled = true;
        github_at(c, &github);
    })
    .await;
    app.call(
        Method::GET,
        "/user/identities/authorize?provider=github&skip_http_redirect=true",
        None,
        None,
    )
    .await
    .expect(403, "bad_jwt");
    let session = app
        .post(
            "/signup",
            json!({"email": "me@example.com", "password": "secret123"}),
        )
        .await;
    let token = token_of(&session);
    let user_id = session.body["user"]["id"].clone();
    let email_identity = session.body["user"]["identities"][0]["identity_id"]
        .as_str()
        .unwrap()
        .to_owned();
    // The last identity cannot go.
    app.call(
        Method::DELETE,
        &format!("/user/identities/{email_identity}"),
        Some(&token),
        None,
    )
    .await
    .expect(422, "single_identity_not_deletable");

    let location = link_github(&app, &token).await;
    assert!(
        location.starts_with("http://app.test/linked#"),
        "{location}"
    );
    let params = fragment(&location);
    // The session handed back is the linking user's, not a new account's.
    assert_eq!(claims_of(&params["access_token"])["sub"], user_id);
    let me = app.get_user(&token).await;
    assert_eq!(me.body["email"], "me@example.com");
    assert_eq!(
        me.body["app_metadata"]["providers"],
        json!(["email", "github"])
    );
    let identities = me.body["identities"].as_array().unwrap().clone();
    assert_eq!(identities.len(), 2);
    let github_identity = identities
        .iter()
        .find(|i| i["provider"] == "github")
        .unwrap()["identity_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let users: i64 = app.sql_scalar("select count(*) from auth.users").await;
    assert_eq!(users, 1);

    // The same identity again: refused, back at the app with the error.
    let again = link_github(&app, &token).await;
    let error = fragment(&again);
    assert_eq!(error["error_code"], "identity_already_exists");
    assert_eq!(error["error_description"], "Identity is already linked");
    // ... and for another user: already linked to another user.
    let other = app
        .post(
            "/signup",
            json!({"email": "other@example.com", "password": "secret123"}),
        )
        .await;
    let taken = fragment(&link_github(&app, &token_of(&other)).await);
    assert_eq!(
        taken["error_description"],
        "Identity is already linked to another user"
    );

    // Unlinking: bad ids and others' identities are refused.
    app.call(
        Method::DELETE,
        "/user/identities/not-a-uuid",
        Some(&token),
        None,
    )
    .await
    .expect(404, "validation_failed");
    let others = other.body["user"]["identities"][0]["identity_id"]
        .as_str()
        .unwrap()
        .to_owned();
    // "other" has one identity; add none. Deleting it through *my* token:
    app.call(
        Method::DELETE,
        &format!("/user/identities/{others}"),
        Some(&token),
        None,
    )
    .await
    .expect(422, "identity_not_found");
    let gone = app
        .call(
            Method::DELETE,
            &format!("/user/identities/{github_identity}"),
            Some(&token),
            None,
        )
        .await;
    assert_eq!(gone.status, 200, "{}", gone.text);
    assert_eq!(gone.body, json!({}));
    let me = app.get_user(&token).await;
    assert_eq!(me.body["identities"].as_array().unwrap().len(), 1);
    assert_eq!(me.body["app_metadata"]["providers"], json!(["email"]));
    assert_eq!(me.body["email"], "me@example.com");
}

#[tokio::test]
async fn an_anonymous_user_linking_an_identity_becomes_permanent() {
    let (github, _fake) = spawn_github(777, "anon-linked@example.com").await;
    let app = spawn_app_with(|c| {
        c.anonymous_users = true;
        c.manual_linking_enabled = true;
        github_at(c, &github);
    })
    .await;
    let anon = app.post("/signup", json!({})).await;
    let token = token_of(&anon);
    assert_eq!(claims_of(&token)["is_anonymous"], true);
    let location = link_github(&app, &token).await;
    let params = fragment(&location);
    assert!(params.contains_key("access_token"), "{location}");
    let claims = claims_of(&params["access_token"]);
    assert_eq!(claims["sub"], anon.body["user"]["id"]);
    assert_eq!(claims["is_anonymous"], false);
    let me = app.get_user(&params["access_token"]).await;
    assert_eq!(me.body["is_anonymous"], false);
    assert_eq!(me.body["email"], "anon-linked@example.com");
    assert!(me.body["email_confirmed_at"].is_string());
    assert_eq!(me.body["identities"][0]["provider"], "github");
}

#[tokio::test]
async fn test_codes_stop_at_their_end_and_wrong_phone_passwords_are_limited() {
    let app = spawn_app_with(|c| {
        c.sms.test_otp = plinth_auth::parse_test_otp("+15550001111=123456").unwrap();
        c.sms.test_otp_valid_until = Some(chrono::Utc::now() - chrono::Duration::seconds(1));
        c.sms.autoconfirm = true;
        c.rate_limits.sign_in_failures_per_account_ip = 2;
    })
    .await;
    // Past GOTRUE_SMS_TEST_OTP_VALID_UNTIL the number gets a real code.
    let sent = app.post("/otp", json!({"phone": "+15550001111"})).await;
    assert_eq!(sent.body, json!({}), "{}", sent.text);
    let code = app.sms_code("+15550001111").await;
    assert_ne!(code, "123456");
    app.post(
        "/verify",
        json!({"type": "sms", "phone": "+15550001111", "token": "123456"}),
    )
    .await
    .expect(403, "otp_expired");

    let signup = app
        .post(
            "/signup",
            json!({"phone": "+15557770000", "password": "secret123"}),
        )
        .await;
    assert_eq!(signup.status, 200, "{}", signup.text);
    for _ in 0..2 {
        app.post(
            "/token?grant_type=password",
            json!({"phone": "+15557770000", "password": "wrong-pass"}),
        )
        .await
        .expect(400, "invalid_credentials");
    }
    // This address is refused for this number now, even with the password.
    app.post(
        "/token?grant_type=password",
        json!({"phone": "+15557770000", "password": "secret123"}),
    )
    .await
    .expect(429, "over_request_rate_limit");
}

#[tokio::test]
async fn linking_refuses_disabled_providers_and_addresses_of_other_accounts() {
    let (github, fake) = spawn_github(9001, "taken@example.com").await;
    let app = spawn_app_with(|c| {
        c.anonymous_users = true;
        c.mailer_autoconfirm = true;
        c.manual_linking_enabled = true;
        github_at(c, &github);
    })
    .await;
    let anon = app.post("/signup", json!({})).await;
    let token = token_of(&anon);
    app.call(
        Method::GET,
        "/user/identities/authorize?provider=google&skip_http_redirect=true",
        Some(&token),
        None,
    )
    .await
    .expect(400, "provider_disabled");

    // The provider's address belongs to another account: not taken over.
    app.post(
        "/signup",
        json!({"email": "taken@example.com", "password": "secret123"}),
    )
    .await;
    let location = link_github(&app, &token).await;
    let refused = fragment(&location);
    assert_eq!(
        refused.get("error_code").map(String::as_str),
        Some("email_exists"),
        "{location}"
    );
    let me = app.get_user(&token).await;
    assert_eq!(me.body["is_anonymous"], true);
    assert_eq!(me.body["identities"], json!([]));

    // GitHub without a verified address: the identity is linked, but the
    // user gets no address from it and stays anonymous.
    *fake.user.lock().unwrap() = (9002, "fresh@example.com".into(), false);
    let linked = fragment(&link_github(&app, &token).await);
    assert!(linked.contains_key("access_token"), "{linked:?}");
    let me = app.get_user(&token).await;
    assert_eq!(me.body["is_anonymous"], true);
    assert_eq!(me.body["identities"][0]["provider"], "github");
    assert_eq!(me.body["email"], "");
}
