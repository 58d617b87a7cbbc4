//! MFA over HTTP against a real Postgres (one fresh database and server per
//! test): TOTP and phone factors, aal/amr in tokens, the platform's errors,
//! and the admin's factor endpoints. TOTP codes come from the test's own
//! RFC 6238 authenticator below.

#![allow(clippy::unwrap_used)]

mod support;

use std::time::Duration;

use base64::Engine;
use hmac::{Hmac, Mac};
use plinth_auth::AuthConfig;
use reqwest::Method;
use serde_json::{Value, json};
use support::{App, Reply, claims_of};

const PASSWORD: &str = "a-long-password-1";
const TEST_PHONE: &str = "15550001111";
const TEST_CODE: &str = "246810";

/// Autoconfirm, phone factors (with a test number) on and no MFA request
/// limit, everything else as the bare test configuration; changed by
/// `tweak`.
async fn spawn_app_with(tweak: impl FnOnce(&mut AuthConfig)) -> App {
    support::spawn_app_configured(|config| {
        config.mailer_autoconfirm = true;
        config.mfa.rate_limit_challenge_and_verify = u32::MAX;
        config.mfa.phone_enroll_enabled = true;
        config.mfa.phone_verify_enabled = true;
        config
            .sms
            .test_otp
            .insert(TEST_PHONE.into(), TEST_CODE.into());
        tweak(config);
    })
    .await
}

async fn spawn_app() -> App {
    spawn_app_with(|_| {}).await
}

impl App {
    /// `POST path` with a JSON body, as the holder of `bearer`.
    async fn post_as(&self, path: &str, bearer: &str, body: Value) -> Reply {
        self.call(Method::POST, path, Some(bearer), Some(body))
            .await
    }

    /// Signs up `email` (autoconfirmed): the session.
    async fn signed_up(&self, email: &str) -> Value {
        let reply = self
            .post("/signup", json!({"email": email, "password": PASSWORD}))
            .await;
        assert_eq!(reply.status, 200, "{}", reply.text);
        reply.body
    }

    async fn signed_in(&self, email: &str) -> Value {
        let reply = self
            .post(
                "/token?grant_type=password",
                json!({"email": email, "password": PASSWORD}),
            )
            .await;
        assert_eq!(reply.status, 200, "{}", reply.text);
        reply.body
    }

    async fn enroll_totp(&self, token: &str, name: &str) -> Value {
        let reply = self
            .post_as(
                "/factors",
                token,
                json!({"factor_type": "totp", "friendly_name": name}),
            )
            .await;
        assert_eq!(reply.status, 200, "{}", reply.text);
        reply.body
    }

    async fn challenge(&self, token: &str, factor_id: &str) -> Reply {
        self.post_as(&format!("/factors/{factor_id}/challenge"), token, json!({}))
            .await
    }

    async fn verify(&self, token: &str, factor_id: &str, challenge_id: &str, code: &str) -> Reply {
        self.post_as(
            &format!("/factors/{factor_id}/verify"),
            token,
            json!({"challenge_id": challenge_id, "code": code}),
        )
        .await
    }

    /// Challenge and verify `factor_id` with the code of step `offset` from
    /// now: the reply of verify.
    async fn challenge_and_verify(&self, token: &str, factor_id: &str, code: &str) -> Reply {
        let challenge = self.challenge(token, factor_id).await;
        assert_eq!(challenge.status, 200, "{}", challenge.text);
        let id = challenge.body["id"].as_str().unwrap().to_owned();
        self.verify(token, factor_id, &id, code).await
    }

    /// The one value `sql` selects with `$1` bound to the UUID `id`, read
    /// as the database owner.
    async fn sql_scalar_for<T>(&self, sql: &str, id: &str) -> T
    where
        T: for<'r> sqlx::Decode<'r, sqlx::Postgres> + sqlx::Type<sqlx::Postgres> + Send + Unpin,
    {
        sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_owned()))
            .bind(uuid::Uuid::parse_str(id).unwrap())
            .fetch_one(&self.db.db.owner)
            .await
            .unwrap()
    }
}

// The test's authenticator: RFC 6238 written out independently.
fn base32_decode(text: &str) -> Vec<u8> {
    let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut bits = String::new();
    for c in text.chars() {
        let value = alphabet.find(c).unwrap();
        bits.push_str(&format!("{value:05b}"));
    }
    bits.as_bytes()
        .chunks(8)
        .filter(|chunk| chunk.len() == 8)
        .map(|chunk| u8::from_str_radix(std::str::from_utf8(chunk).unwrap(), 2).unwrap())
        .collect()
}

fn totp_at(secret: &str, unix: i64) -> String {
    let mut mac = Hmac::<sha1::Sha1>::new_from_slice(&base32_decode(secret)).unwrap();
    mac.update(&((unix / 30) as u64).to_be_bytes());
    let hash = mac.finalize().into_bytes();
    let offset = (hash[19] & 0xf) as usize;
    let value = u32::from_be_bytes(hash[offset..offset + 4].try_into().unwrap()) & 0x7fff_ffff;
    format!("{:06}", value % 1_000_000)
}

fn methods(claims: &Value) -> Vec<String> {
    claims["amr"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["method"].as_str().unwrap().to_owned())
        .collect()
}

fn s(value: &Value) -> String {
    value.as_str().unwrap().to_owned()
}

/// A user with a verified TOTP factor: (aal2 session, factor id, secret).
async fn user_with_totp(app: &App, email: &str) -> (Value, String, String) {
    let session = app.signed_up(email).await;
    let token = s(&session["access_token"]);
    let factor = app.enroll_totp(&token, "phone app").await;
    let id = s(&factor["id"]);
    let secret = s(&factor["totp"]["secret"]);
    let code = totp_at(&secret, app.clock.timestamp());
    let verified = app.challenge_and_verify(&token, &id, &code).await;
    assert_eq!(verified.status, 200, "{}", verified.text);
    (verified.body, id, secret)
}

#[tokio::test]
async fn totp_enrol_challenge_verify_raises_the_session_to_aal2_and_refresh_keeps_it() {
    let app = spawn_app().await;
    let session = app.signed_up("ada@example.com").await;
    let token = s(&session["access_token"]);
    let claims = claims_of(&token);
    assert_eq!(claims["aal"], "aal1");
    assert_eq!(methods(&claims), ["password"]);

    let factor = app.enroll_totp(&token, "my phone").await;
    assert_eq!(factor["type"], "totp");
    assert_eq!(factor["friendly_name"], "my phone");
    let secret = s(&factor["totp"]["secret"]);
    assert_eq!(secret.len(), 32);
    assert_eq!(
        s(&factor["totp"]["uri"]),
        format!(
            "otpauth://totp/localhost:3000:ada@example.com?algorithm=SHA1&digits=6&issuer=localhost%3A3000&period=30&secret={secret}"
        )
    );
    let qr = s(&factor["totp"]["qr_code"]);
    assert!(qr.contains("<svg") && qr.contains("</svg>"), "{qr}");
    let id = s(&factor["id"]);

    // Listed on the user as unverified.
    let user = app.call(Method::GET, "/user", Some(&token), None).await;
    assert_eq!(user.body["factors"][0]["id"], id.as_str());
    assert_eq!(user.body["factors"][0]["status"], "unverified");
    assert_eq!(user.body["factors"][0]["factor_type"], "totp");
    assert_eq!(user.body["factors"][0]["friendly_name"], "my phone");

    let challenge = app.challenge(&token, &id).await;
    assert_eq!(challenge.status, 200, "{}", challenge.text);
    assert_eq!(challenge.body["type"], "totp");
    let expires_at = challenge.body["expires_at"].as_i64().unwrap();
    assert!((expires_at - app.clock.timestamp() - 300).abs() <= 2);

    let code = totp_at(&secret, app.clock.timestamp());
    let verified = app
        .verify(&token, &id, challenge.body["id"].as_str().unwrap(), &code)
        .await;
    assert_eq!(verified.status, 200, "{}", verified.text);
    let aal2 = claims_of(verified.body["access_token"].as_str().unwrap());
    assert_eq!(aal2["aal"], "aal2");
    assert_eq!(aal2["session_id"], claims["session_id"]);
    let amr = methods(&aal2);
    assert!(amr.contains(&"totp".to_owned()) && amr.contains(&"password".to_owned()));
    assert_eq!(verified.body["user"]["factors"][0]["status"], "verified");
    assert_ne!(verified.body["refresh_token"], session["refresh_token"]);
    let session_id = s(&claims["session_id"]);
    let stored: String = app
        .sql_scalar_for(
            "select aal::text from auth.sessions where id = $1",
            &session_id,
        )
        .await;
    assert_eq!(stored, "aal2");
    let factor_of_session: uuid::Uuid = app
        .sql_scalar_for(
            "select factor_id from auth.sessions where id = $1",
            &session_id,
        )
        .await;
    assert_eq!(factor_of_session.to_string(), id);

    // A refresh keeps aal2 and the amr.
    let refreshed = app
        .refresh(verified.body["refresh_token"].as_str().unwrap())
        .await;
    assert_eq!(refreshed.status, 200, "{}", refreshed.text);
    let refreshed = claims_of(refreshed.body["access_token"].as_str().unwrap());
    assert_eq!(refreshed["aal"], "aal2");
    assert_eq!(methods(&refreshed)[0], "totp", "most recent first");
}

#[tokio::test]
async fn a_totp_code_is_accepted_once_and_a_challenge_answered_once() {
    let app = spawn_app().await;
    let session = app.signed_up("replay@example.com").await;
    let token = s(&session["access_token"]);
    let factor = app.enroll_totp(&token, "").await;
    let id = s(&factor["id"]);
    let code = totp_at(&s(&factor["totp"]["secret"]), app.clock.timestamp());
    let challenge = app.challenge(&token, &id).await;
    let challenge_id = s(&challenge.body["id"]);
    app.verify(&token, &id, &challenge_id, &code)
        .await
        .expect(200, "");
    let aal2 = app.verify(&token, &id, &challenge_id, &code).await;
    aal2.expect(422, "mfa_ip_address_mismatch");
    // The same code with a fresh challenge: refused (replay).
    let replay = app.challenge_and_verify(&token, &id, &code).await;
    replay.expect(422, "mfa_verification_failed");
    assert_eq!(replay.body["message"], "Invalid TOTP code entered");
}

#[tokio::test]
async fn wrong_codes_and_bad_requests_get_the_platform_errors() {
    let app = spawn_app().await;
    let session = app.signed_up("errors@example.com").await;
    let token = s(&session["access_token"]);
    let factor = app.enroll_totp(&token, "one").await;
    let id = s(&factor["id"]);
    let secret = s(&factor["totp"]["secret"]);

    let wrong = totp_at(&secret, app.clock.timestamp() + 600);
    app.challenge_and_verify(&token, &id, &wrong)
        .await
        .expect(422, "mfa_verification_failed");
    app.challenge_and_verify(&token, &id, "abcdef")
        .await
        .expect(422, "mfa_verification_failed");
    let empty = app.challenge_and_verify(&token, &id, "").await;
    empty.expect(400, "validation_failed");
    assert_eq!(empty.body["message"], "Code needs to be non-empty");
    let unknown = app
        .verify(&token, &id, &uuid::Uuid::new_v4().to_string(), "123456")
        .await;
    unknown.expect(422, "mfa_factor_not_found");
    assert_eq!(
        unknown.body["message"],
        "MFA factor with the provided challenge ID not found"
    );

    // Factor ids: not a UUID, unknown, someone else's.
    app.challenge(&token, "not-a-uuid")
        .await
        .expect(404, "validation_failed");
    let missing = app
        .challenge(&token, &uuid::Uuid::new_v4().to_string())
        .await;
    missing.expect(404, "mfa_factor_not_found");
    assert_eq!(missing.body["message"], "Factor not found");
    let other = app.signed_up("other@example.com").await;
    let other_token = s(&other["access_token"]);
    app.challenge(&other_token, &id)
        .await
        .expect(404, "mfa_factor_not_found");
    app.call(
        Method::DELETE,
        &format!("/factors/{id}"),
        Some(&other_token),
        None,
    )
    .await
    .expect(404, "mfa_factor_not_found");
    // A challenge of one factor does not verify another.
    let other_factor = app.enroll_totp(&other_token, "x").await;
    let challenge = app.challenge(&token, &id).await;
    app.verify(
        &other_token,
        other_factor["id"].as_str().unwrap(),
        challenge.body["id"].as_str().unwrap(),
        &totp_at(
            other_factor["totp"]["secret"].as_str().unwrap(),
            app.clock.timestamp(),
        ),
    )
    .await
    .expect(422, "mfa_factor_not_found");

    // Enrolment: types, names.
    let bad_type = app
        .post_as("/factors", &token, json!({"factor_type": "sms"}))
        .await;
    bad_type.expect(400, "validation_failed");
    assert_eq!(
        bad_type.body["message"],
        "factor_type needs to be totp, phone, or webauthn"
    );
    app.post_as("/factors", &token, json!({"factor_type": "webauthn"}))
        .await
        .expect(422, "mfa_webauthn_enroll_not_enabled");
    let conflict = app
        .post_as(
            "/factors",
            &token,
            json!({"factor_type": "totp", "friendly_name": "one"}),
        )
        .await;
    conflict.expect(422, "mfa_factor_name_conflict");
    assert_eq!(
        conflict.body["message"],
        "A factor with the friendly name \"one\" for this user already exists"
    );
    app.post_as("/factors", &token, json!({"factor_type": 7}))
        .await
        .expect(400, "bad_json");

    // No token, an anonymous user.
    let now = app.clock.timestamp();
    let anon = app.jwt.api_key("anon", now, now + 3600);
    app.post_as("/factors", &anon, json!({"factor_type": "totp"}))
        .await
        .expect(403, "bad_jwt");
}

#[tokio::test]
async fn anonymous_users_cannot_enrol() {
    let app = spawn_app_with(|c| c.anonymous_users = true).await;
    let now = app.clock.timestamp();
    let anon = app.jwt.api_key("anon", now, now + 3600);
    let session = app.post_as("/signup", &anon, json!({})).await;
    assert_eq!(session.status, 200, "{}", session.text);
    let refused = app
        .post_as(
            "/factors",
            session.body["access_token"].as_str().unwrap(),
            json!({"factor_type": "totp"}),
        )
        .await;
    refused.expect(403, "no_authorization");
    assert_eq!(
        refused.body["message"],
        "Anonymous user not allowed to perform these actions"
    );
}

#[tokio::test]
async fn challenges_expire() {
    let app = spawn_app().await;
    let session = app.signed_up("late@example.com").await;
    let token = s(&session["access_token"]);
    let factor = app.enroll_totp(&token, "").await;
    let id = s(&factor["id"]);
    let challenge = app.challenge(&token, &id).await;
    app.clock.advance(Duration::from_secs(301));
    // The access token's own expiry is an hour: still valid.
    let code = totp_at(&s(&factor["totp"]["secret"]), app.clock.timestamp());
    let late = app
        .verify(&token, &id, challenge.body["id"].as_str().unwrap(), &code)
        .await;
    late.expect(422, "mfa_challenge_expired");
    assert!(
        late.body["message"]
            .as_str()
            .unwrap()
            .contains("has expired")
    );
    // The expired challenge is gone.
    app.verify(&token, &id, challenge.body["id"].as_str().unwrap(), &code)
        .await
        .expect(422, "mfa_factor_not_found");
}

#[tokio::test]
async fn aal2_is_needed_for_more_factors_and_to_unenrol_a_verified_one() {
    let app = spawn_app().await;
    let (aal2, id, secret) = user_with_totp(&app, "grace@example.com").await;
    let aal2_token = s(&aal2["access_token"]);

    // A fresh password sign-in is aal1 and its next level is aal2.
    let aal1 = app.signed_in("grace@example.com").await;
    let aal1_token = s(&aal1["access_token"]);
    assert_eq!(claims_of(&aal1_token)["aal"], "aal1");
    let more = app
        .post_as(
            "/factors",
            &aal1_token,
            json!({"factor_type": "totp", "friendly_name": "second"}),
        )
        .await;
    more.expect(403, "insufficient_aal");
    assert_eq!(more.body["message"], "AAL2 required to enroll a new factor");
    let unenroll = app
        .call(
            Method::DELETE,
            &format!("/factors/{id}"),
            Some(&aal1_token),
            None,
        )
        .await;
    unenroll.expect(422, "insufficient_aal");
    assert_eq!(
        unenroll.body["message"],
        "AAL2 required to unenroll verified factor"
    );

    // The aal1 session passes the factor too (a later code step).
    let code = totp_at(&secret, app.clock.timestamp() + 30);
    let raised = app.challenge_and_verify(&aal1_token, &id, &code).await;
    assert_eq!(raised.status, 200, "{}", raised.text);
    app.post_as(
        "/factors",
        &aal2_token,
        json!({"factor_type": "totp", "friendly_name": "second"}),
    )
    .await
    .expect(200, "");

    // Unenrolling from aal2 takes the session back to aal1.
    let removed = app
        .call(
            Method::DELETE,
            &format!("/factors/{id}"),
            Some(&aal2_token),
            None,
        )
        .await;
    assert_eq!(removed.status, 200, "{}", removed.text);
    assert_eq!(removed.body, json!({ "id": id }));
    let refreshed = app.refresh(aal2["refresh_token"].as_str().unwrap()).await;
    assert_eq!(refreshed.status, 200, "{}", refreshed.text);
    let claims = claims_of(refreshed.body["access_token"].as_str().unwrap());
    assert_eq!(claims["aal"], "aal1");
    assert_eq!(methods(&claims), ["password"]);
}

#[tokio::test]
async fn verifying_ends_the_users_other_aal1_sessions() {
    let app = spawn_app().await;
    let first = app.signed_up("ends@example.com").await;
    let second = app.signed_in("ends@example.com").await;
    let token = s(&first["access_token"]);
    let factor = app.enroll_totp(&token, "").await;
    let code = totp_at(&s(&factor["totp"]["secret"]), app.clock.timestamp());
    app.challenge_and_verify(&token, factor["id"].as_str().unwrap(), &code)
        .await
        .expect(200, "");
    app.call(Method::GET, "/user", second["access_token"].as_str(), None)
        .await
        .expect(403, "session_not_found");
    app.refresh(second["refresh_token"].as_str().unwrap())
        .await
        .expect(400, "refresh_token_not_found");
}

#[tokio::test]
async fn settings_turn_factor_types_off_and_cap_their_number() {
    let app = spawn_app_with(|c| {
        c.mfa.totp_enroll_enabled = false;
        c.mfa.phone_enroll_enabled = false;
    })
    .await;
    let token = s(&app.signed_up("off@example.com").await["access_token"]);
    let totp = app
        .post_as("/factors", &token, json!({"factor_type": "totp"}))
        .await;
    totp.expect(422, "mfa_totp_enroll_not_enabled");
    assert_eq!(totp.body["message"], "MFA enroll is disabled for TOTP");
    app.post_as(
        "/factors",
        &token,
        json!({"factor_type": "phone", "phone": "+15550001111"}),
    )
    .await
    .expect(422, "mfa_phone_enroll_not_enabled");

    let app = spawn_app_with(|c| {
        c.mfa.totp_verify_enabled = false;
        c.mfa.max_enrolled_factors = 2;
    })
    .await;
    let token = s(&app.signed_up("cap@example.com").await["access_token"]);
    let factor = app.enroll_totp(&token, "a").await;
    let challenge = app.challenge(&token, factor["id"].as_str().unwrap()).await;
    challenge.expect(422, "mfa_totp_verify_not_enabled");
    app.enroll_totp(&token, "b").await;
    let third = app
        .post_as(
            "/factors",
            &token,
            json!({"factor_type": "totp", "friendly_name": "c"}),
        )
        .await;
    third.expect(422, "too_many_enrolled_mfa_factors");
}

#[tokio::test]
async fn unverified_factors_expire_at_the_next_enrolment() {
    let app = spawn_app().await;
    let token = s(&app.signed_up("stale@example.com").await["access_token"]);
    let stale = app.enroll_totp(&token, "stale").await;
    app.clock.advance(Duration::from_secs(301));
    app.enroll_totp(&token, "fresh").await;
    app.challenge(&token, stale["id"].as_str().unwrap())
        .await
        .expect(404, "mfa_factor_not_found");
}

#[tokio::test]
async fn phone_factors_verify_with_the_sms_code() {
    let app = spawn_app().await;
    let session = app.signed_up("phone@example.com").await;
    let token = s(&session["access_token"]);
    // Without a provider the text lands in the dev mailbox.
    let enrolled = app
        .post_as(
            "/factors",
            &token,
            json!({"factor_type": "phone", "phone": "+1 555 000 2222", "friendly_name": "mobile"}),
        )
        .await;
    assert_eq!(enrolled.status, 200, "{}", enrolled.text);
    assert_eq!(enrolled.body["type"], "phone");
    assert_eq!(enrolled.body["phone"], "+1 555 000 2222");
    let id = s(&enrolled.body["id"]);
    let challenge = app.challenge(&token, &id).await;
    assert_eq!(challenge.status, 200, "{}", challenge.text);
    assert_eq!(challenge.body["type"], "phone");
    let text: String = sqlx::query_scalar(
        "select body_text from auth.mail_messages where recipient = '+15550002222' \
         order by created_at desc limit 1",
    )
    .fetch_one(&app.db.db.owner)
    .await
    .unwrap();
    let code: String = text.chars().filter(char::is_ascii_digit).collect();
    assert_eq!(code.len(), 6, "{text}");
    // The code is not stored as it was sent.
    let stored: Option<String> = app
        .sql_scalar_for(
            "select otp_code from auth.mfa_challenges where id = $1",
            challenge.body["id"].as_str().unwrap(),
        )
        .await;
    assert_ne!(stored.as_deref(), Some(code.as_str()));

    // Again at once: too soon.
    app.challenge(&token, &id)
        .await
        .expect(429, "over_sms_send_rate_limit");

    let wrong = if code == "000000" { "111111" } else { "000000" };
    let refused = app
        .verify(&token, &id, challenge.body["id"].as_str().unwrap(), wrong)
        .await;
    refused.expect(422, "mfa_verification_failed");
    assert_eq!(refused.body["message"], "Invalid MFA Phone code entered");
    let verified = app
        .verify(&token, &id, challenge.body["id"].as_str().unwrap(), &code)
        .await;
    assert_eq!(verified.status, 200, "{}", verified.text);
    let claims = claims_of(verified.body["access_token"].as_str().unwrap());
    assert_eq!(claims["aal"], "aal2");
    assert_eq!(methods(&claims)[0], "mfa/phone");
    assert_eq!(verified.body["user"]["factors"][0]["phone"], "15550002222");

    // The same number again: a verified factor exists.
    let aal2 = s(&verified.body["access_token"]);
    app.post_as(
        "/factors",
        &aal2,
        json!({"factor_type": "phone", "phone": "+15550002222"}),
    )
    .await
    .expect(422, "mfa_verified_factor_exists");
    let bad = app
        .post_as(
            "/factors",
            &aal2,
            json!({"factor_type": "phone", "phone": "0123 call me"}),
        )
        .await;
    bad.expect(400, "validation_failed");
    app.post_as("/factors", &aal2, json!({"factor_type": "phone"}))
        .await
        .expect(400, "validation_failed");
}

#[tokio::test]
async fn test_numbers_answer_their_fixed_code_and_send_nothing() {
    let app = spawn_app().await;
    let token = s(&app.signed_up("fixed@example.com").await["access_token"]);
    let enrolled = app
        .post_as(
            "/factors",
            &token,
            json!({"factor_type": "phone", "phone": format!("+{TEST_PHONE}")}),
        )
        .await;
    let id = s(&enrolled.body["id"]);
    let verified = app.challenge_and_verify(&token, &id, TEST_CODE).await;
    assert_eq!(verified.status, 200, "{}", verified.text);
    assert_eq!(
        claims_of(verified.body["access_token"].as_str().unwrap())["aal"],
        "aal2"
    );
    let sent: i64 =
        sqlx::query_scalar("select count(*) from auth.mail_messages where recipient like '+%'")
            .fetch_one(&app.db.db.owner)
            .await
            .unwrap();
    assert_eq!(sent, 0);
}

#[tokio::test]
async fn phone_factors_are_off_unless_enabled() {
    let app = spawn_app_with(|c| {
        c.mfa.phone_verify_enabled = false;
    })
    .await;
    let token = s(&app.signed_up("pv@example.com").await["access_token"]);
    let enrolled = app
        .post_as(
            "/factors",
            &token,
            json!({"factor_type": "phone", "phone": "+15550003333"}),
        )
        .await;
    assert_eq!(enrolled.status, 200, "{}", enrolled.text);
    app.challenge(&token, enrolled.body["id"].as_str().unwrap())
        .await
        .expect(422, "mfa_phone_verify_not_enabled");
}

#[tokio::test]
async fn the_admin_lists_renames_and_deletes_a_users_factors() {
    let app = spawn_app().await;
    let (aal2, id, _) = user_with_totp(&app, "admin-target@example.com").await;
    let user_id = s(&aal2["user"]["id"]);
    let service = app.service_key();

    let listed = app
        .call(
            Method::GET,
            &format!("/admin/users/{user_id}/factors"),
            Some(&service),
            None,
        )
        .await;
    assert_eq!(listed.status, 200, "{}", listed.text);
    assert_eq!(listed.body.as_array().unwrap().len(), 1);
    assert_eq!(listed.body[0]["id"], id.as_str());
    assert_eq!(listed.body[0]["status"], "verified");

    // Users are not admins.
    app.call(
        Method::GET,
        &format!("/admin/users/{user_id}/factors"),
        aal2["access_token"].as_str(),
        None,
    )
    .await
    .expect(403, "not_admin");
    app.call(
        Method::GET,
        &format!("/admin/users/{}/factors", uuid::Uuid::new_v4()),
        Some(&service),
        None,
    )
    .await
    .expect(404, "user_not_found");

    let renamed = app
        .call(
            Method::PUT,
            &format!("/admin/users/{user_id}/factors/{id}"),
            Some(&service),
            Some(json!({"friendly_name": "renamed"})),
        )
        .await;
    assert_eq!(renamed.status, 200, "{}", renamed.text);
    assert_eq!(renamed.body["friendly_name"], "renamed");

    let deleted = app
        .call(
            Method::DELETE,
            &format!("/admin/users/{user_id}/factors/{id}"),
            Some(&service),
            None,
        )
        .await;
    assert_eq!(deleted.status, 200, "{}", deleted.text);
    assert_eq!(deleted.body["id"], id.as_str());
    app.call(
        Method::DELETE,
        &format!("/admin/users/{user_id}/factors/{id}"),
        Some(&service),
        None,
    )
    .await
    .expect(404, "mfa_factor_not_found");
    let user = app
        .call(Method::GET, "/user", aal2["access_token"].as_str(), None)
        .await;
    assert!(user.body.get("factors").is_none(), "{}", user.text);
    // The user's session went back to aal1.
    let refreshed = app.refresh(aal2["refresh_token"].as_str().unwrap()).await;
    assert_eq!(
        claims_of(refreshed.body["access_token"].as_str().unwrap())["aal"],
        "aal1"
    );
}

// ------------------------------------------------------------- WebAuthn

const RP_ID: &str = "localhost";
const ORIGIN: &str = "http://localhost:3000";
const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// The test's software authenticator: one P-256 key, one credential id, a
/// signature counter.
struct SoftKey {
    key: p256::ecdsa::SigningKey,
    id: Vec<u8>,
    counter: u32,
}

impl SoftKey {
    fn new(seed: u8) -> Self {
        Self {
            key: p256::ecdsa::SigningKey::from_bytes(&[seed; 32].into()).unwrap(),
            id: vec![seed; 16],
            counter: 0,
        }
    }

    fn client_data(kind: &str, challenge: &str, origin: &str) -> Vec<u8> {
        json!({"type": kind, "challenge": challenge, "origin": origin, "crossOrigin": false})
            .to_string()
            .into_bytes()
    }

    fn rp_hash(rp_id: &str) -> Vec<u8> {
        use sha2::Digest;
        sha2::Sha256::digest(rp_id.as_bytes()).to_vec()
    }

    /// A `navigator.credentials.create()` answer (attestation `none`).
    fn create(&self, options: &Value, origin: &str) -> Value {
        let challenge = options["publicKey"]["challenge"].as_str().unwrap();
        let rp_id = options["publicKey"]["rp"]["id"].as_str().unwrap();
        let point = self.key.verifying_key().to_encoded_point(false);
        let mut cose = vec![0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20];
        cose.extend_from_slice(point.x().unwrap());
        cose.extend_from_slice(&[0x22, 0x58, 0x20]);
        cose.extend_from_slice(point.y().unwrap());
        let mut auth_data = Self::rp_hash(rp_id);
        auth_data.push(0x41); // user present, attested credential data
        auth_data.extend_from_slice(&self.counter.to_be_bytes());
        auth_data.extend_from_slice(&[0x11; 16]); // AAGUID
        auth_data.extend_from_slice(&(self.id.len() as u16).to_be_bytes());
        auth_data.extend_from_slice(&self.id);
        auth_data.extend_from_slice(&cose);
        let mut attestation = vec![0xa3, 0x63];
        attestation.extend_from_slice(b"fmt");
        attestation.push(0x64);
        attestation.extend_from_slice(b"none");
        attestation.push(0x67);
        attestation.extend_from_slice(b"attStmt");
        attestation.push(0xa0);
        attestation.push(0x68);
        attestation.extend_from_slice(b"authData");
        attestation.extend_from_slice(&[0x58, auth_data.len() as u8]);
        attestation.extend_from_slice(&auth_data);
        json!({
            "id": B64.encode(&self.id),
            "rawId": B64.encode(&self.id),
            "type": "public-key",
            "response": {
                "clientDataJSON": B64.encode(Self::client_data("webauthn.create", challenge, origin)),
                "attestationObject": B64.encode(attestation),
            },
        })
    }

    /// A `navigator.credentials.get()` answer, signed.
    fn get(&mut self, options: &Value, origin: &str) -> Value {
        use p256::ecdsa::signature::Signer;
        use sha2::Digest;
        self.counter += 1;
        let challenge = options["publicKey"]["challenge"].as_str().unwrap();
        let rp_id = options["publicKey"]["rpId"].as_str().unwrap();
        let client_data = Self::client_data("webauthn.get", challenge, origin);
        let mut auth_data = Self::rp_hash(rp_id);
        auth_data.push(0x05); // user present and verified
        auth_data.extend_from_slice(&self.counter.to_be_bytes());
        let mut signed = auth_data.clone();
        signed.extend_from_slice(&sha2::Sha256::digest(&client_data));
        let signature: p256::ecdsa::Signature = self.key.sign(&signed);
        json!({
            "id": B64.encode(&self.id),
            "rawId": B64.encode(&self.id),
            "type": "public-key",
            "response": {
                "clientDataJSON": B64.encode(client_data),
                "authenticatorData": B64.encode(auth_data),
                "signature": B64.encode(signature.to_der().as_bytes()),
                "userHandle": null,
            },
        })
    }
}

async fn webauthn_app() -> App {
    spawn_app_with(|c| {
        c.mfa.webauthn_enroll_enabled = true;
        c.mfa.webauthn_verify_enabled = true;
        c.mfa.webauthn_rp_id = RP_ID.into();
        c.mfa.webauthn_rp_display_name = "Plinth".into();
        c.mfa.webauthn_rp_origins = vec![ORIGIN.into()];
    })
    .await
}

impl App {
    async fn verify_webauthn(
        &self,
        token: &str,
        factor: &str,
        challenge: &str,
        kind: &str,
        response: Value,
    ) -> Reply {
        self.post_as(
            &format!("/factors/{factor}/verify"),
            token,
            json!({"challenge_id": challenge, "webauthn": {"type": kind, "credential_response": response}}),
        )
        .await
    }
}

#[tokio::test]
async fn webauthn_factors_register_and_assert_with_a_software_authenticator() {
    let app = webauthn_app().await;
    let session = app.signed_up("keys@example.com").await;
    let token = s(&session["access_token"]);
    let user_id = s(&session["user"]["id"]);
    let enrolled = app
        .post_as(
            "/factors",
            &token,
            json!({"factor_type": "webauthn", "friendly_name": "key"}),
        )
        .await;
    assert_eq!(enrolled.status, 200, "{}", enrolled.text);
    assert_eq!(enrolled.body["type"], "webauthn");
    let id = s(&enrolled.body["id"]);
    let mut key = SoftKey::new(7);

    let challenge = app.challenge(&token, &id).await;
    assert_eq!(challenge.status, 200, "{}", challenge.text);
    assert_eq!(challenge.body["webauthn"]["type"], "create");
    let options = &challenge.body["webauthn"]["credential_options"];
    assert_eq!(options["publicKey"]["rp"]["id"], RP_ID);
    assert_eq!(
        options["publicKey"]["user"]["id"],
        B64.encode(user_id.as_bytes())
    );
    assert_eq!(options["publicKey"]["user"]["name"], "keys@example.com");
    assert_eq!(options["publicKey"]["pubKeyCredParams"][0]["alg"], -7);

    // From another origin: refused.
    let elsewhere = app
        .verify_webauthn(
            &token,
            &id,
            challenge.body["id"].as_str().unwrap(),
            "create",
            key.create(options, "https://evil.test"),
        )
        .await;
    elsewhere.expect(422, "mfa_verification_failed");
    let registered = app
        .verify_webauthn(
            &token,
            &id,
            challenge.body["id"].as_str().unwrap(),
            "create",
            key.create(options, ORIGIN),
        )
        .await;
    assert_eq!(registered.status, 200, "{}", registered.text);
    let claims = claims_of(registered.body["access_token"].as_str().unwrap());
    assert_eq!(claims["aal"], "aal2");
    assert_eq!(methods(&claims)[0], "mfa/webauthn");
    assert_eq!(registered.body["user"]["factors"][0]["status"], "verified");
    assert_eq!(
        registered.body["user"]["factors"][0]["web_authn_aaguid"],
        "11111111-1111-1111-1111-111111111111"
    );

    // A later sign-in asserts with the key.
    let later = app.signed_in("keys@example.com").await;
    let later_token = s(&later["access_token"]);
    let challenge = app.challenge(&later_token, &id).await;
    assert_eq!(challenge.body["webauthn"]["type"], "request");
    let options = challenge.body["webauthn"]["credential_options"].clone();
    assert_eq!(
        options["publicKey"]["allowCredentials"][0]["id"],
        B64.encode(&key.id)
    );
    // Signed by another key: refused.
    let mut impostor = SoftKey::new(9);
    impostor.id = key.id.clone();
    let forged = app
        .verify_webauthn(
            &later_token,
            &id,
            challenge.body["id"].as_str().unwrap(),
            "request",
            impostor.get(&options, ORIGIN),
        )
        .await;
    forged.expect(422, "mfa_verification_failed");
    let answer = key.get(&options, ORIGIN);
    let asserted = app
        .verify_webauthn(
            &later_token,
            &id,
            challenge.body["id"].as_str().unwrap(),
            "request",
            answer.clone(),
        )
        .await;
    assert_eq!(asserted.status, 200, "{}", asserted.text);
    assert_eq!(
        claims_of(asserted.body["access_token"].as_str().unwrap())["aal"],
        "aal2"
    );

    // The same answer for a new challenge: its challenge does not match.
    let third = app.signed_in("keys@example.com").await;
    let third_token = s(&third["access_token"]);
    let challenge = app.challenge(&third_token, &id).await;
    app.verify_webauthn(
        &third_token,
        &id,
        challenge.body["id"].as_str().unwrap(),
        "request",
        answer,
    )
    .await
    .expect(422, "mfa_verification_failed");
    // A cloned key whose counter did not move on: refused.
    let mut clone = SoftKey::new(7);
    let options = challenge.body["webauthn"]["credential_options"].clone();
    let cloned = app
        .verify_webauthn(
            &third_token,
            &id,
            challenge.body["id"].as_str().unwrap(),
            "request",
            clone.get(&options, ORIGIN),
        )
        .await;
    cloned.expect(422, "mfa_verification_failed");
}

#[tokio::test]
async fn webauthn_factors_stored_by_the_earlier_verifier_still_verify() {
    let app = webauthn_app().await;
    let token = s(&app.signed_up("earlier@example.com").await["access_token"]);
    let enrolled = app
        .post_as("/factors", &token, json!({"factor_type": "webauthn"}))
        .await;
    let id = s(&enrolled.body["id"]);
    // A credential as Plinth's hand-written verifier stored it: the key's
    // coordinates, base64url, its counter at 4.
    let mut key = SoftKey::new(5);
    key.counter = 4;
    let point = key.key.verifying_key().to_encoded_point(false);
    let earlier = json!({
        "id": B64.encode(&key.id),
        "public_key": {"kty": "EC2", "alg": -7, "crv": "P-256",
                       "x": B64.encode(point.x().unwrap()), "y": B64.encode(point.y().unwrap())},
        "sign_count": 4,
        "aaguid": B64.encode([0x22u8; 16]),
    });
    sqlx::query(
        "update auth.mfa_factors set status = 'verified', web_authn_credential = $2 \
         where id = $1::uuid",
    )
    .bind(&id)
    .bind(&earlier)
    .execute(&app.db.db.owner)
    .await
    .unwrap();

    let challenge = app.challenge(&token, &id).await;
    assert_eq!(
        challenge.body["webauthn"]["type"], "request",
        "{}",
        challenge.text
    );
    let options = challenge.body["webauthn"]["credential_options"].clone();
    assert_eq!(
        options["publicKey"]["allowCredentials"][0]["id"],
        B64.encode(&key.id)
    );
    let asserted = app
        .verify_webauthn(
            &token,
            &id,
            &s(&challenge.body["id"]),
            "request",
            key.get(&options, ORIGIN),
        )
        .await;
    assert_eq!(asserted.status, 200, "{}", asserted.text);
    assert_eq!(
        claims_of(asserted.body["access_token"].as_str().unwrap())["aal"],
        "aal2"
    );
    // Stored again in the platform's shape (go-webauthn's JSON), counter 5.
    let stored: Value = app
        .sql_scalar_for(
            "select web_authn_credential from auth.mfa_factors where id = $1",
            &id,
        )
        .await;
    let standard = base64::engine::general_purpose::STANDARD;
    assert_eq!(stored["id"], standard.encode(&key.id), "{stored}");
    assert_eq!(stored["authenticator"]["signCount"], 5);
    assert!(stored["publicKey"].is_string() && stored.get("public_key").is_none());
    // A copy of the key at the old counter: refused.
    let mut copy = SoftKey::new(5);
    copy.counter = 4;
    let challenge = app.challenge(&token, &id).await;
    let options = challenge.body["webauthn"]["credential_options"].clone();
    app.verify_webauthn(
        &token,
        &id,
        &s(&challenge.body["id"]),
        "request",
        copy.get(&options, ORIGIN),
    )
    .await
    .expect(422, "mfa_verification_failed");
}

#[tokio::test]
async fn webauthn_verify_needs_its_parameters() {
    let app = webauthn_app().await;
    let token = s(&app.signed_up("params@example.com").await["access_token"]);
    let enrolled = app
        .post_as("/factors", &token, json!({"factor_type": "webauthn"}))
        .await;
    let id = s(&enrolled.body["id"]);
    let challenge = app.challenge(&token, &id).await;
    let challenge_id = s(&challenge.body["id"]);
    let missing = app
        .post_as(
            &format!("/factors/{id}/verify"),
            &token,
            json!({"challenge_id": challenge_id}),
        )
        .await;
    missing.expect(400, "validation_failed");
    assert_eq!(missing.body["message"], "WebAuthn config required");
    let kind = app
        .verify_webauthn(&token, &id, &challenge_id, "login", json!({}))
        .await;
    kind.expect(400, "validation_failed");
    assert_eq!(
        kind.body["message"],
        "WebAuthn type must be create or request"
    );
    let no_response = app
        .post_as(
            &format!("/factors/{id}/verify"),
            &token,
            json!({"challenge_id": challenge_id, "webauthn": {"type": "create"}}),
        )
        .await;
    no_response.expect(400, "validation_failed");
    assert_eq!(no_response.body["message"], "credential_response required");
    // Garbage in the response: a refusal, not a failure.
    let garbage = app
        .verify_webauthn(
            &token,
            &id,
            &challenge_id,
            "create",
            json!({"rawId": "AA", "response": {"clientDataJSON": "!!", "attestationObject": "AA"}}),
        )
        .await;
    garbage.expect(422, "mfa_verification_failed");
}

#[tokio::test]
async fn challenges_and_verifications_are_rate_limited_per_address() {
    let app = spawn_app_with(|c| c.mfa.rate_limit_challenge_and_verify = 3).await;
    let token = s(&app.signed_up("busy@example.com").await["access_token"]);
    let factor = app.enroll_totp(&token, "").await;
    let id = s(&factor["id"]);
    let challenge = app.challenge(&token, &id).await;
    assert_eq!(challenge.status, 200, "{}", challenge.text);
    app.verify(
        &token,
        &id,
        challenge.body["id"].as_str().unwrap(),
        "000000",
    )
    .await
    .expect(422, "mfa_verification_failed");
    app.challenge(&token, &id).await.expect(200, "");
    // The fourth within the minute: 429, for guesses as for challenges.
    let limited = app
        .verify(
            &token,
            &id,
            challenge.body["id"].as_str().unwrap(),
            "111111",
        )
        .await;
    limited.expect(429, "over_request_rate_limit");
    app.challenge(&token, &id)
        .await
        .expect(429, "over_request_rate_limit");
}
