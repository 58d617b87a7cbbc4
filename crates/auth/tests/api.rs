//! The auth API over HTTP against a real Postgres: one fresh database and
//! one server per test, driven with reqwest, as supabase-js would.

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
use plinth_auth::{AuthConfig, RateLimits};
use plinth_db::JwtSecret;
use reqwest::Method;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use support::{App, Reply, SITE, claims_of, fragment, params_of, query, spawn_app, spawn_app_with};

impl App {
    /// [`App::call`], with the API version header only if `versioned`.
    async fn call_with(
        &self,
        method: Method,
        path: &str,
        bearer: Option<&str>,
        body: Option<Value>,
        versioned: bool,
    ) -> Reply {
        let mut request = self.request(method, path, bearer);
        if versioned {
            request = request.header("x-supabase-api-version", "2024-01-01");
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        self.send(request).await
    }

    async fn sign_in(&self, email: &str, password: &str) -> Reply {
        self.post(
            "/token?grant_type=password",
            json!({"email": email, "password": password, "gotrue_meta_security": {}}),
        )
        .await
    }

    /// Signs up (the app must autoconfirm) and returns the session.
    async fn signed_up(&self, email: &str, password: &str) -> Value {
        let reply = self
            .post(
                "/signup",
                json!({"email": email, "password": password, "data": {}}),
            )
            .await;
        assert_eq!(reply.status, 200, "{}", reply.text);
        reply.body
    }

    /// The link in the newest message to `to`.
    async fn link_to(&self, to: &str) -> String {
        let mail = self.mail_to(to).await;
        assert!(!mail.is_empty(), "no mail to {to}");
        mail[0]["links"][0].as_str().unwrap().to_owned()
    }

    /// The six-digit code in the newest message to `to`.
    async fn code_to(&self, to: &str) -> String {
        let mail = self.mail_to(to).await;
        let text = mail[0]["text"].as_str().unwrap();
        let code = text.split("code: ").nth(1).unwrap();
        code[..6].to_owned()
    }

    /// The mailbox's pages, as the operator.
    async fn mailbox_page(&self, path: &str) -> Reply {
        let key = self.service_key();
        self.get_raw_with(&format!("{}{path}", self.base), &[("apikey", &key)])
            .await
    }
}

fn pkce_pair() -> (String, String) {
    let verifier: String = plinth_db::random_token(64);
    let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(Sha256::digest(verifier.as_bytes()));
    (verifier, challenge)
}

fn autoconfirm(config: &mut AuthConfig) {
    config.mailer_autoconfirm = true;
}

// ------------------------------------------------------------------ sign-up

#[tokio::test]
async fn signup_with_autoconfirm_returns_a_session_with_the_platform_claims() {
    let app = spawn_app_with(autoconfirm).await;
    let session = app.signed_up("Ada@Example.com", "correct horse").await;
    assert_eq!(session["token_type"], "bearer");
    assert_eq!(session["expires_in"], 3600);
    assert!(session["refresh_token"].as_str().unwrap().len() >= 32);
    let user = &session["user"];
    assert_eq!(user["email"], "ada@example.com");
    assert_eq!(user["aud"], "authenticated");
    assert_eq!(user["phone"], "");
    assert_eq!(
        user["app_metadata"],
        json!({"provider": "email", "providers": ["email"]})
    );
    assert_eq!(user["identities"][0]["provider"], "email");
    assert_eq!(
        user["identities"][0]["identity_data"]["email_verified"],
        true
    );
    assert!(user["email_confirmed_at"].is_string());

    let access = session["access_token"].as_str().unwrap();
    let claims = claims_of(access);
    for key in [
        "sub",
        "aud",
        "role",
        "email",
        "phone",
        "app_metadata",
        "user_metadata",
        "session_id",
        "aal",
        "amr",
        "is_anonymous",
        "iat",
        "exp",
    ] {
        assert!(claims.get(key).is_some(), "claim {key} missing: {claims}");
    }
    assert_eq!(claims["aud"], "authenticated");
    assert_eq!(claims["role"], "authenticated");
    assert_eq!(claims["sub"], user["id"]);
    assert_eq!(claims["aal"], "aal1");
    assert_eq!(claims["amr"][0]["method"], "password");
    assert_eq!(claims["is_anonymous"], false);
    assert_eq!(
        claims["exp"].as_i64().unwrap() - claims["iat"].as_i64().unwrap(),
        3600
    );
    assert_eq!(session["expires_at"], claims["exp"]);

    let me = app.get_user(access).await;
    assert_eq!(me.status, 200);
    assert_eq!(me.body["id"], user["id"]);
    assert!(me.body["identities"].is_array());
}

#[tokio::test]
async fn signup_data_becomes_user_metadata_and_a_trigger_on_auth_users_runs() {
    let app = spawn_app_with(autoconfirm).await;
    sqlx::raw_sql(
        "create table public.profiles (id uuid primary key references auth.users on delete cascade, full_name text);
         create function public.handle_new_user() returns trigger language plpgsql security definer set search_path = ''
         as $$ begin
           insert into public.profiles (id, full_name) values (new.id, new.raw_user_meta_data ->> 'full_name');
           return new;
         end $$;
         create trigger on_auth_user_created after insert on auth.users
           for each row execute procedure public.handle_new_user();",
    )
    .execute(&app.db.db.owner)
    .await
    .unwrap();
    let reply = app
        .post("/signup", json!({"email": "p@example.com", "password": "secret123", "data": {"full_name": "Pat"}}))
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    assert_eq!(
        reply.body["user"]["user_metadata"],
        json!({"full_name": "Pat"})
    );
    let name: String = app
        .sql_scalar("select full_name from public.profiles")
        .await;
    assert_eq!(name, "Pat");
}

#[tokio::test]
async fn signup_errors_have_the_platform_codes() {
    let app = spawn_app_with(autoconfirm).await;
    let weak = app
        .post(
            "/signup",
            json!({"email": "w@example.com", "password": "12345"}),
        )
        .await;
    assert_eq!(weak.status, 422);
    assert_eq!(weak.code(), "weak_password");
    assert_eq!(weak.body["weak_password"]["reasons"], json!(["length"]));
    assert_eq!(weak.headers["x-supabase-api-version"], "2024-01-01");

    let missing = app.post("/signup", json!({"email": "w@example.com"})).await;
    assert_eq!(
        (missing.status.as_u16(), missing.code()),
        (400, "validation_failed")
    );

    let invalid = app
        .post(
            "/signup",
            json!({"email": "not-an-email", "password": "secret123"}),
        )
        .await;
    assert_eq!(
        (invalid.status.as_u16(), invalid.code()),
        (400, "validation_failed")
    );
    assert_eq!(
        invalid.body["msg"]
            .as_str()
            .or(invalid.body["message"].as_str()),
        Some("Unable to validate email address: invalid format")
    );

    app.signed_up("dup@example.com", "secret123").await;
    let dup = app
        .post(
            "/signup",
            json!({"email": "DUP@example.com", "password": "secret123"}),
        )
        .await;
    assert_eq!(
        (dup.status.as_u16(), dup.code()),
        (422, "user_already_exists")
    );
    assert_eq!(dup.body["message"], "User already registered");

    let anonymous = app.post("/signup", json!({"data": {}})).await;
    assert_eq!(
        (anonymous.status.as_u16(), anonymous.code()),
        (422, "anonymous_provider_disabled")
    );

    let phone = app
        .post(
            "/signup",
            json!({"phone": "+15555550100", "password": "secret123"}),
        )
        .await;
    assert_eq!(
        (phone.status.as_u16(), phone.code()),
        (400, "phone_provider_disabled")
    );

    let garbled = app
        .http
        .post(app.url("/signup"))
        .header("apikey", app.anon_key())
        .header("x-supabase-api-version", "2024-01-01")
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(garbled.status(), 400);
    let body: Value = garbled.json().await.unwrap();
    assert_eq!(body["code"], "bad_json");
}

#[tokio::test]
async fn errors_use_the_legacy_shape_without_the_version_header() {
    let app = spawn_app().await;
    let reply = app
        .call_with(
            Method::POST,
            "/token?grant_type=password",
            None,
            Some(json!({"email": "nobody@example.com", "password": "whatever"})),
            false,
        )
        .await;
    assert_eq!(reply.status, 400);
    assert_eq!(reply.body["code"], 400);
    assert_eq!(reply.body["error_code"], "invalid_credentials");
    assert_eq!(reply.body["msg"], "Invalid login credentials");
    assert_eq!(reply.headers["x-sb-error-code"], "invalid_credentials");
    assert!(reply.headers.get("x-supabase-api-version").is_none());
}

#[tokio::test]
async fn disabled_signups_and_anonymous_users() {
    let app = spawn_app_with(|c| {
        c.disable_signup = true;
    })
    .await;
    let reply = app
        .post(
            "/signup",
            json!({"email": "a@example.com", "password": "secret123"}),
        )
        .await;
    assert_eq!(
        (reply.status.as_u16(), reply.code()),
        (422, "signup_disabled")
    );

    let app = spawn_app_with(|c| c.anonymous_users = true).await;
    let reply = app.post("/signup", json!({"data": {"k": 1}})).await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    assert_eq!(reply.body["user"]["is_anonymous"], true);
    let claims = claims_of(reply.body["access_token"].as_str().unwrap());
    assert_eq!(claims["is_anonymous"], true);
    assert_eq!(claims["role"], "authenticated");
    assert_eq!(claims["amr"][0]["method"], "anonymous");
}

// ------------------------------------------------------------ confirmation

#[tokio::test]
async fn confirmation_through_the_dev_mailbox() {
    let app = spawn_app().await;
    let reply = app
        .call(
            Method::POST,
            "/signup?redirect_to=http%3A%2F%2Fapp.test%2Fwelcome",
            None,
            Some(json!({"email": "new@example.com", "password": "secret123", "data": {}, "code_challenge": null, "code_challenge_method": null})),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    // Confirmation required: the bare user, no session.
    assert!(reply.body["id"].is_string());
    assert!(reply.body.get("access_token").is_none());
    assert!(reply.body["confirmation_sent_at"].is_string());

    let refused = app.sign_in("new@example.com", "secret123").await;
    assert_eq!(
        (refused.status.as_u16(), refused.code()),
        (400, "email_not_confirmed")
    );

    // The mailbox page lists the message and shows it with a clickable link.
    let index = app.mailbox_page("/_/mailbox").await;
    assert_eq!(index.status, 200);
    assert!(index.text.contains("Confirm your signup"));
    let mail = app.mail_to("new@example.com").await;
    assert_eq!(mail.len(), 1);
    let message_path = format!("/_/mailbox/{}", mail[0]["id"].as_str().unwrap());
    assert!(
        index.text.contains(&format!("href=\"{message_path}\"")),
        "{}",
        index.text
    );
    let page = app.mailbox_page(&message_path).await;
    assert_eq!(page.status, 200);
    assert!(
        page.text.contains("<a href=\"http://127.0.0.1:"),
        "{}",
        page.text
    );
    assert!(page.text.contains("href=\"/_/mailbox\""), "{}", page.text);
    let missing = app
        .mailbox_page(&format!("/_/mailbox/{}", uuid::Uuid::new_v4()))
        .await;
    assert_eq!(missing.status, 404);
    // Nobody else reads it.
    let refused = app.get_raw(&format!("{}{message_path}", app.base)).await;
    assert_eq!(refused.status, 401);

    let link = app.link_to("new@example.com").await;
    assert!(link.starts_with(&app.url("/verify?token=")), "{link}");
    let followed = app.get_raw(&link).await;
    assert_eq!(followed.status, 303);
    let location = followed.location();
    assert!(
        location.starts_with("http://app.test/welcome#"),
        "{location}"
    );
    let params = fragment(&location);
    assert_eq!(params["type"], "signup");
    assert_eq!(params["token_type"], "bearer");
    assert_eq!(params["expires_in"], "3600");
    assert!(params.contains_key("sb"));
    let me = app.get_user(&params["access_token"]).await;
    assert_eq!(me.status, 200);
    assert!(me.body["email_confirmed_at"].is_string());
    assert!(
        app.refresh(&params["refresh_token"])
            .await
            .status
            .is_success()
    );

    // The link works once.
    let again = app.get_raw(&link).await;
    assert_eq!(again.status, 303);
    let params = fragment(&again.location());
    assert_eq!(params["error_code"], "otp_expired");
    assert_eq!(params["error"], "access_denied");

    assert_eq!(
        app.sign_in("new@example.com", "secret123").await.status,
        200
    );

    // Signing up again with a confirmed address answers a look-alike user
    // (a new sign-up's shape, an identity too) and tells the owner by mail.
    let again = app
        .post(
            "/signup",
            json!({"email": "new@example.com", "password": "other-pass"}),
        )
        .await;
    assert_eq!(again.status, 200);
    assert_ne!(again.body["id"], me.body["id"]);
    assert_eq!(again.body["identities"][0]["user_id"], again.body["id"]);
    assert_eq!(again.body["identities"].as_array().unwrap().len(), 1);
    let told = app.mail_to("new@example.com").await;
    assert_eq!(told.len(), 2);
    assert_eq!(
        told[0]["subject"],
        "Someone tried to sign up with your address"
    );
}

#[tokio::test]
async fn links_redirect_to_the_site_url_unless_allowed_and_expire() {
    let app = spawn_app().await;
    app.call(
        Method::POST,
        "/signup?redirect_to=https%3A%2F%2Fevil.example%2F",
        None,
        Some(json!({"email": "e@example.com", "password": "secret123"})),
    )
    .await;
    let link = app.link_to("e@example.com").await;
    assert!(
        link.contains(&format!(
            "redirect_to={}",
            url::form_urlencoded::byte_serialize(SITE.as_bytes()).collect::<String>()
        )),
        "{link}"
    );
    // GOTRUE_MAILER_OTP_EXP: an hour by default.
    app.clock.advance(Duration::from_secs(3601));
    let reply = app.get_raw(&link).await;
    let location = reply.location();
    assert!(location.starts_with(SITE), "{location}");
    assert_eq!(fragment(&location)["error_code"], "otp_expired");
}

#[tokio::test]
async fn verify_by_code_and_resend() {
    let app = spawn_app().await;
    app.post(
        "/signup",
        json!({"email": "c@example.com", "password": "secret123"}),
    )
    .await;
    let resent = app
        .post(
            "/resend",
            json!({"type": "signup", "email": "c@example.com"}),
        )
        .await;
    assert_eq!(resent.status, 200);
    assert_eq!(resent.body, json!({}));
    assert_eq!(app.mail_to("c@example.com").await.len(), 2);
    let code = app.code_to("c@example.com").await;

    let wrong = app
        .post(
            "/verify",
            json!({"type": "signup", "email": "c@example.com", "token": "000000x"}),
        )
        .await;
    assert_eq!((wrong.status.as_u16(), wrong.code()), (403, "otp_expired"));
    let reply = app
        .post(
            "/verify",
            json!({"type": "email", "email": "c@example.com", "token": code}),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    assert!(reply.body["access_token"].is_string());
    assert!(reply.body["user"]["email_confirmed_at"].is_string());

    let bad_type = app
        .post("/verify", json!({"type": "nope", "token_hash": "x"}))
        .await;
    assert_eq!(
        (bad_type.status.as_u16(), bad_type.code()),
        (400, "validation_failed")
    );
}

#[tokio::test]
async fn magic_link_by_otp() {
    let app = spawn_app_with(autoconfirm).await;
    app.signed_up("m@example.com", "secret123").await;
    let reply = app
        .post(
            "/otp",
            json!({"email": "m@example.com", "create_user": true, "data": {}}),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    let link = app.link_to("m@example.com").await;
    assert!(link.contains("type=magiclink"), "{link}");
    let params = fragment(&app.get_raw(&link).await.location());
    assert!(params.contains_key("access_token"), "{params:?}");
}

// ------------------------------------------------------------ password grant

#[tokio::test]
async fn password_grant_errors() {
    let app = spawn_app_with(autoconfirm).await;
    app.signed_up("u@example.com", "secret123").await;
    let wrong = app.sign_in("u@example.com", "wrong-password").await;
    assert_eq!(
        (wrong.status.as_u16(), wrong.code()),
        (400, "invalid_credentials")
    );
    assert_eq!(wrong.body["message"], "Invalid login credentials");
    let unknown = app.sign_in("nobody@example.com", "secret123").await;
    assert_eq!(
        (unknown.status.as_u16(), unknown.code()),
        (400, "invalid_credentials")
    );
    let no_email = app
        .post("/token?grant_type=password", json!({"password": "x"}))
        .await;
    assert_eq!(
        (no_email.status.as_u16(), no_email.code()),
        (400, "validation_failed")
    );
    let grant = app.post("/token?grant_type=magic", json!({})).await;
    assert_eq!(
        (grant.status.as_u16(), grant.code()),
        (400, "invalid_credentials")
    );
    assert_eq!(grant.body["message"], "unsupported_grant_type");
    let ok = app.sign_in("U@example.com", "secret123").await;
    assert_eq!(ok.status, 200);
    assert!(ok.body["user"]["last_sign_in_at"].is_string());
}

#[tokio::test]
async fn seeded_bcrypt_users_sign_in_and_are_rehashed() {
    let app = spawn_app().await;
    sqlx::raw_sql(
        "do $$ declare uid uuid := uuid_generate_v4(); begin
           insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
             recovery_sent_at, last_sign_in_at, raw_app_meta_data, raw_user_meta_data, created_at, updated_at,
             confirmation_token, email_change, email_change_token_new, recovery_token)
           values ('00000000-0000-0000-0000-000000000000', uid, 'authenticated', 'authenticated', 'seed@example.com',
             crypt('password123', gen_salt('bf')), now(), now(), now(),
             '{\"provider\":\"email\",\"providers\":[\"email\"]}', '{\"name\":\"Seed\"}', now(), now(), '', '', '', '');
           insert into auth.identities (id, user_id, provider_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
           values (uuid_generate_v4(), uid, uid, format('{\"sub\":\"%s\",\"email\":\"%s\"}', uid::text, 'seed@example.com')::jsonb,
             'email', now(), now(), now());
         end $$;",
    )
    .execute(&app.db.db.owner)
    .await
    .unwrap();
    let before: String = app
        .sql_scalar("select encrypted_password from auth.users")
        .await;
    assert!(before.starts_with("$2a$"), "{before}");
    assert_eq!(
        app.sign_in("seed@example.com", "wrong").await.code(),
        "invalid_credentials"
    );
    let reply = app.sign_in("seed@example.com", "password123").await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    assert_eq!(reply.body["user"]["user_metadata"]["name"], "Seed");
    assert_eq!(
        reply.body["user"]["identities"][0]["email"],
        "seed@example.com"
    );
    let after: String = app
        .sql_scalar("select encrypted_password from auth.users")
        .await;
    assert!(after.starts_with("$argon2id$"), "{after}");
    assert_eq!(
        app.sign_in("seed@example.com", "password123").await.status,
        200
    );
}

// ------------------------------------------------------------ refresh tokens

#[tokio::test]
async fn refresh_tokens_rotate_and_reuse_revokes_the_session() {
    let app = spawn_app_with(autoconfirm).await;
    let session = app.signed_up("r@example.com", "secret123").await;
    let first = session["refresh_token"].as_str().unwrap().to_owned();

    let rotated = app.refresh(&first).await;
    assert_eq!(rotated.status, 200, "{}", rotated.text);
    let second = rotated.body["refresh_token"].as_str().unwrap().to_owned();
    assert_ne!(first, second);
    assert_eq!(rotated.body["user"]["email"], "r@example.com");
    let claims = claims_of(rotated.body["access_token"].as_str().unwrap());
    assert_eq!(
        claims["session_id"],
        claims_of(session["access_token"].as_str().unwrap())["session_id"]
    );
    assert_eq!(claims["amr"][0]["method"], "password");

    // Within the reuse interval the old token answers the current one.
    let concurrent = app.refresh(&first).await;
    assert_eq!(concurrent.status, 200, "{}", concurrent.text);
    assert_eq!(concurrent.body["refresh_token"], second.as_str());

    // Later, reuse revokes the whole session.
    app.clock.advance(Duration::from_secs(11));
    let reused = app.refresh(&first).await;
    assert_eq!(
        (reused.status.as_u16(), reused.code()),
        (400, "refresh_token_already_used")
    );
    let after = app.refresh(&second).await;
    assert_eq!(
        (after.status.as_u16(), after.code()),
        (400, "refresh_token_not_found")
    );
    let me = app
        .get_user(rotated.body["access_token"].as_str().unwrap())
        .await;
    assert_eq!((me.status.as_u16(), me.code()), (403, "session_not_found"));

    let unknown = app.refresh("no-such-token").await;
    assert_eq!(
        (unknown.status.as_u16(), unknown.code()),
        (400, "refresh_token_not_found")
    );
    let missing = app.post("/token?grant_type=refresh_token", json!({})).await;
    assert_eq!(
        (missing.status.as_u16(), missing.code()),
        (400, "validation_failed")
    );
}

#[tokio::test]
async fn access_tokens_expire() {
    let app = spawn_app_with(|c| {
        c.mailer_autoconfirm = true;
        c.jwt_expiry = 60;
    })
    .await;
    let session = app.signed_up("x@example.com", "secret123").await;
    assert_eq!(session["expires_in"], 60);
    let token = session["access_token"].as_str().unwrap();
    assert_eq!(app.get_user(token).await.status, 200);
    app.clock.advance(Duration::from_secs(61));
    let expired = app.get_user(token).await;
    assert_eq!((expired.status.as_u16(), expired.code()), (403, "bad_jwt"));
    // The refresh token still works and gives a fresh access token.
    let fresh = app
        .refresh(session["refresh_token"].as_str().unwrap())
        .await;
    assert_eq!(
        app.get_user(fresh.body["access_token"].as_str().unwrap())
            .await
            .status,
        200
    );
}

#[tokio::test]
async fn user_endpoints_need_a_valid_bearer() {
    let app = spawn_app().await;
    let none = app
        .http
        .get(app.url("/user"))
        .header("apikey", app.anon_key())
        .header("x-supabase-api-version", "2024-01-01")
        .send()
        .await
        .unwrap();
    assert_eq!(none.status(), 401);
    let body: Value = none.json().await.unwrap();
    assert_eq!(body["code"], "no_authorization");
    let garbage = app.get_user("not.a.jwt").await;
    assert_eq!((garbage.status.as_u16(), garbage.code()), (403, "bad_jwt"));
    let other = JwtSecret::new("another-secret-of-thirty-two-characters!").unwrap();
    let forged = other.sign(&json!({"sub": uuid::Uuid::new_v4(), "role": "authenticated", "exp": app.clock.timestamp() + 60}));
    assert_eq!(app.get_user(&forged).await.code(), "bad_jwt");
    let ghost = app.jwt.sign(&json!({"sub": uuid::Uuid::new_v4(), "role": "authenticated", "exp": app.clock.timestamp() + 60}));
    let reply = app.get_user(&ghost).await;
    assert_eq!(
        (reply.status.as_u16(), reply.code()),
        (403, "user_not_found")
    );
}

// ------------------------------------------------------------ PUT /user, logout

#[tokio::test]
async fn update_user_merges_data_and_changes_the_password() {
    let app = spawn_app_with(autoconfirm).await;
    let session = app.signed_up("up@example.com", "secret123").await;
    let token = session["access_token"].as_str().unwrap();
    let put = |body: Value| app.call(Method::PUT, "/user", Some(token), Some(body));
    let reply = put(json!({"data": {"a": 1, "b": 2}})).await;
    assert_eq!(reply.body["user_metadata"], json!({"a": 1, "b": 2}));
    let reply = put(json!({"data": {"b": null, "c": 3}})).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body["user_metadata"], json!({"a": 1, "c": 3}));

    let same = put(json!({"password": "secret123"})).await;
    assert_eq!((same.status.as_u16(), same.code()), (422, "same_password"));
    let weak = put(json!({"password": "abc"})).await;
    assert_eq!(weak.code(), "weak_password");
    assert_eq!(put(json!({"password": "new-secret"})).await.status, 200);
    assert_eq!(
        app.sign_in("up@example.com", "secret123").await.code(),
        "invalid_credentials"
    );
    assert_eq!(
        app.sign_in("up@example.com", "new-secret").await.status,
        200
    );

    // A taken address is refused. Autoconfirm or not, a user's new address
    // is confirmed by a link (as on the platform); with autoconfirm the
    // link of either address makes the change.
    app.signed_up("taken@example.com", "secret123").await;
    let taken = put(json!({"email": "taken@example.com"})).await;
    assert_eq!((taken.status.as_u16(), taken.code()), (422, "email_exists"));
    let moved = put(json!({"email": "moved@example.com"})).await;
    assert_eq!(moved.body["email"], "up@example.com");
    assert_eq!(moved.body["new_email"], "moved@example.com");
    let link = app.link_to("moved@example.com").await;
    assert!(
        app.link_to("up@example.com")
            .await
            .contains("type=email_change")
    );
    let params = fragment(&app.get_raw(&link).await.location());
    assert_eq!(params["type"], "email_change");
    let me = app.get_user(&params["access_token"]).await;
    assert_eq!(me.body["email"], "moved@example.com");
    assert_eq!(
        me.body["identities"][0]["identity_data"]["email"],
        "moved@example.com"
    );
}

/// A user signed up at `email` and confirmed: the session's access token.
async fn confirmed_user(app: &App, email: &str) -> String {
    app.post("/signup", json!({"email": email, "password": "secret123"}))
        .await;
    let link = app.link_to(email).await;
    let params = fragment(&app.get_raw(&link).await.location());
    params["access_token"].clone()
}

const ONE_OF_TWO: &str =
    "Confirmation link accepted. Please proceed to confirm link sent to the other email";

#[tokio::test]
async fn email_change_is_confirmed_from_both_addresses() {
    let app = spawn_app().await;
    let token = confirmed_user(&app, "old@example.com").await;
    let reply = app
        .call(
            Method::PUT,
            "/user",
            Some(&token),
            Some(json!({"email": "fresh@example.com"})),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    assert_eq!(reply.body["email"], "old@example.com");
    assert_eq!(reply.body["new_email"], "fresh@example.com");
    // A mail to each address, each with its own link and code.
    let to_new = app.link_to("fresh@example.com").await;
    let to_current = app.link_to("old@example.com").await;
    assert!(to_new.contains("type=email_change") && to_current.contains("type=email_change"));
    assert_ne!(to_new, to_current);
    let tokens: i64 = app
        .sql_scalar(
            "select count(*) from auth.one_time_tokens \
             where token_type in ('email_change_token_new', 'email_change_token_current')",
        )
        .await;
    assert_eq!(tokens, 2);

    // The new address's link: accepted, the address not changed yet.
    let first = app.get_raw(&to_new).await.location();
    assert!(first.starts_with(SITE), "{first}");
    let params = fragment(&first);
    assert_eq!(params["message"], ONE_OF_TWO);
    assert!(!params.contains_key("access_token"));
    let me = app.get_user(&token).await;
    assert_eq!(me.body["email"], "old@example.com");
    assert_eq!(me.body["new_email"], "fresh@example.com");
    let status: i16 = app
        .sql_scalar(
            "select email_change_confirm_status from auth.users where email = 'old@example.com'",
        )
        .await;
    assert_eq!(status, 1);
    // Used once.
    let again = app.get_raw(&to_new).await.location();
    assert!(again.contains("error_code=otp_expired"), "{again}");

    // The current address's code (verifyOtp): now the change is made.
    let code = app.code_to("old@example.com").await;
    let verified = app
        .post(
            "/verify",
            json!({"type": "email_change", "email": "old@example.com", "token": code}),
        )
        .await;
    assert_eq!(verified.status, 200, "{}", verified.text);
    assert_eq!(verified.body["user"]["email"], "fresh@example.com");
    assert!(verified.body["user"].get("new_email").is_none());
    assert_eq!(
        verified.body["user"]["identities"][0]["identity_data"]["email"],
        "fresh@example.com"
    );
    let left: i64 = app
        .sql_scalar(
            "select count(*) from auth.one_time_tokens \
             where token_type in ('email_change_token_new', 'email_change_token_current')",
        )
        .await;
    assert_eq!(left, 0);
    let status: i16 = app
        .sql_scalar(
            "select email_change_confirm_status from auth.users where email = 'fresh@example.com'",
        )
        .await;
    assert_eq!(status, 0);
}

#[tokio::test]
async fn email_change_by_code_then_pkce_link_and_too_soon_again() {
    let app = spawn_app().await;
    let token = confirmed_user(&app, "pk-old@example.com").await;
    let (verifier, challenge) = pkce_pair();
    let reply = app
        .call(
            Method::PUT,
            "/user?redirect_to=http%3A%2F%2Fapp.test%2Fchanged",
            Some(&token),
            Some(
                json!({"email": "pk-new@example.com", "code_challenge": challenge,
                        "code_challenge_method": "s256"}),
            ),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    // Too soon for another change (the platform's answer, with the wait).
    let soon = spawn_app_with(|c| {
        c.rate_limits.email_max_frequency = Duration::from_secs(60);
    })
    .await;
    let soon_token = confirmed_user(&soon, "s-old@example.com").await;
    let put = |email: &str| {
        soon.call(
            Method::PUT,
            "/user",
            Some(&soon_token),
            Some(json!({ "email": email })),
        )
    };
    assert_eq!(put("s-new@example.com").await.status, 200);
    let refused = put("s-other@example.com").await;
    refused.expect(429, "over_email_send_rate_limit");
    assert!(refused.message().contains("seconds"), "{}", refused.text);

    // The first confirmation by code: the platform's `{msg, code}`.
    let code = app.code_to("pk-new@example.com").await;
    let first = app
        .post(
            "/verify",
            json!({"type": "email_change", "email": "pk-new@example.com", "token": code}),
        )
        .await;
    assert_eq!(first.status, 200, "{}", first.text);
    assert_eq!(first.body, json!({"msg": ONE_OF_TWO, "code": "200"}));
    // The second by link: the PKCE code to exchange.
    let link = app.link_to("pk-old@example.com").await;
    assert!(link.contains("token=pkce_"), "{link}");
    let location = app.get_raw(&link).await.location();
    assert!(
        location.starts_with("http://app.test/changed?code="),
        "{location}"
    );
    let code = query(&location)["code"].clone();
    let session = app
        .post(
            "/token?grant_type=pkce",
            json!({"auth_code": code, "code_verifier": verifier}),
        )
        .await;
    assert_eq!(session.status, 200, "{}", session.text);
    assert_eq!(session.body["user"]["email"], "pk-new@example.com");
}

#[tokio::test]
async fn email_change_with_the_first_link_of_a_pkce_flow_keeps_the_message_in_the_query() {
    let app = spawn_app().await;
    let token = confirmed_user(&app, "q-old@example.com").await;
    let (_, challenge) = pkce_pair();
    app.call(
        Method::PUT,
        "/user?redirect_to=http%3A%2F%2Fapp.test%2Fchanged",
        Some(&token),
        Some(
            json!({"email": "q-new@example.com", "code_challenge": challenge,
                    "code_challenge_method": "s256"}),
        ),
    )
    .await;
    let location = app
        .get_raw(&app.link_to("q-old@example.com").await)
        .await
        .location();
    assert!(
        location.starts_with("http://app.test/changed?message="),
        "{location}"
    );
    assert_eq!(query(&location)["message"], ONE_OF_TWO);
    assert_eq!(fragment(&location)["message"], ONE_OF_TWO);
}

#[tokio::test]
async fn email_change_resend_and_the_single_link_when_secure_change_is_off() {
    let app = spawn_app().await;
    let token = confirmed_user(&app, "r-old@example.com").await;
    app.call(
        Method::PUT,
        "/user",
        Some(&token),
        Some(json!({"email": "r-new@example.com"})),
    )
    .await;
    let before_new = app.link_to("r-new@example.com").await;
    let before_current = app.link_to("r-old@example.com").await;
    // `resend` names the current address, as on the platform: both again.
    let resent = app
        .post(
            "/resend",
            json!({"type": "email_change", "email": "r-old@example.com"}),
        )
        .await;
    assert_eq!(resent.status, 200, "{}", resent.text);
    assert_eq!(app.mail_to("r-new@example.com").await.len(), 2);
    assert_ne!(app.link_to("r-new@example.com").await, before_new);
    assert_ne!(app.link_to("r-old@example.com").await, before_current);
    // An address with no change pending: the same answer, no mail.
    let none = app
        .post(
            "/resend",
            json!({"type": "email_change", "email": "nobody@example.com"}),
        )
        .await;
    assert_eq!((none.status.as_u16(), &none.body), (200, &json!({})));

    // Secure e-mail change off: one mail, to the new address, whose link
    // makes the change.
    let single = spawn_app_with(|c| c.secure_email_change = false).await;
    let token = confirmed_user(&single, "one-old@example.com").await;
    single
        .call(
            Method::PUT,
            "/user",
            Some(&token),
            Some(json!({"email": "one-new@example.com"})),
        )
        .await;
    assert_eq!(single.mail_to("one-old@example.com").await.len(), 1);
    let link = single.link_to("one-new@example.com").await;
    let params = fragment(&single.get_raw(&link).await.location());
    assert_eq!(params["type"], "email_change");
    let me = single.get_user(&params["access_token"]).await;
    assert_eq!(me.body["email"], "one-new@example.com");
}

#[tokio::test]
async fn logout_scopes() {
    let app = spawn_app_with(autoconfirm).await;
    app.signed_up("l@example.com", "secret123").await;
    let mut tokens = Vec::new();
    for _ in 0..4 {
        tokens.push(
            app.sign_in("l@example.com", "secret123").await.body["access_token"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    let bad = app
        .call(
            Method::POST,
            "/logout?scope=everything",
            Some(&tokens[0]),
            None,
        )
        .await;
    assert_eq!(
        (bad.status.as_u16(), bad.code()),
        (400, "validation_failed")
    );

    let local = app
        .call(Method::POST, "/logout?scope=local", Some(&tokens[0]), None)
        .await;
    assert_eq!(local.status, 204);
    assert!(local.text.is_empty());
    assert_eq!(app.get_user(&tokens[0]).await.code(), "session_not_found");
    assert_eq!(app.get_user(&tokens[1]).await.status, 200);

    let others = app
        .call(Method::POST, "/logout?scope=others", Some(&tokens[1]), None)
        .await;
    assert_eq!(others.status, 204);
    assert_eq!(app.get_user(&tokens[1]).await.status, 200);
    assert_eq!(app.get_user(&tokens[2]).await.code(), "session_not_found");

    let global = app
        .call(Method::POST, "/logout", Some(&tokens[1]), None)
        .await;
    assert_eq!(global.status, 204);
    assert_eq!(app.get_user(&tokens[1]).await.code(), "session_not_found");
    let twice = app
        .call(Method::POST, "/logout", Some(&tokens[1]), None)
        .await;
    assert_eq!(
        (twice.status.as_u16(), twice.code()),
        (403, "session_not_found")
    );
    let sessions: i64 = app.sql_scalar("select count(*) from auth.sessions").await;
    assert_eq!(sessions, 0);
}

// ------------------------------------------------------------ null fields

#[tokio::test]
async fn null_fields_read_as_left_out_in_every_body() {
    let app = spawn_app_with(autoconfirm).await;
    // Sign-up, sign-in and the user's own endpoints, as clients send them
    // with their unset options as `null`.
    let signup = app
        .post(
            "/signup",
            json!({"email": "nulls@example.com", "password": "secret123", "data": null,
                   "code_challenge": null, "code_challenge_method": null, "phone": null,
                   "gotrue_meta_security": {"captcha_token": null}}),
        )
        .await;
    assert_eq!(signup.status, 200, "{}", signup.text);
    let token = signup.body["access_token"].as_str().unwrap().to_owned();
    let signed_in = app
        .post(
            "/token?grant_type=password",
            json!({"email": "nulls@example.com", "password": "secret123", "phone": null}),
        )
        .await;
    assert_eq!(signed_in.status, 200, "{}", signed_in.text);

    // A factor with its optional fields null (supabase-js sends `issuer:
    // null` when the app passes it so).
    let enrolled = app
        .call(
            Method::POST,
            "/factors",
            Some(&token),
            Some(json!({"factor_type": "totp", "friendly_name": null, "issuer": null, "phone": null})),
        )
        .await;
    assert_eq!(enrolled.status, 200, "{}", enrolled.text);
    assert_eq!(enrolled.body["type"], "totp");
    let factor = enrolled.body["id"].as_str().unwrap().to_owned();
    let challenge = app
        .call(
            Method::POST,
            &format!("/factors/{factor}/challenge"),
            Some(&token),
            Some(json!({"channel": null})),
        )
        .await;
    assert_eq!(challenge.status, 200, "{}", challenge.text);
    // A null code is an empty one: the platform's validation, not bad JSON.
    let verify = app
        .call(
            Method::POST,
            &format!("/factors/{factor}/verify"),
            Some(&token),
            Some(json!({"challenge_id": challenge.body["id"], "code": null, "webauthn": null})),
        )
        .await;
    verify.expect(400, "validation_failed");

    // Inside `data` a null keeps its own meaning: the key goes.
    let put = |body: Value| app.call(Method::PUT, "/user", Some(&token), Some(body));
    let kept =
        put(json!({"data": {"a": 1, "b": 2}, "email": null, "password": null, "nonce": null}))
            .await;
    assert_eq!(kept.status, 200, "{}", kept.text);
    let removed = put(json!({"data": {"a": null}, "phone": null, "channel": null})).await;
    assert_eq!(removed.body["user_metadata"], json!({"b": 2}));

    // A whole body of `null` is an empty one.
    let empty = app
        .http
        .post(app.url("/recover"))
        .header("apikey", app.anon_key())
        .header("x-supabase-api-version", "2024-01-01")
        .header("content-type", "application/json")
        .body("null");
    app.send(empty).await.expect(400, "validation_failed");
    // Types are still checked.
    app.post("/otp", json!({"email": 5}))
        .await
        .expect(400, "bad_json");
}

// ------------------------------------------------------------ recovery, PKCE

#[tokio::test]
async fn password_recovery() {
    let app = spawn_app_with(autoconfirm).await;
    app.signed_up("forgot@example.com", "secret123").await;
    let unknown = app
        .post("/recover", json!({"email": "nobody@example.com"}))
        .await;
    assert_eq!((unknown.status.as_u16(), &unknown.body), (200, &json!({})));
    assert!(app.mail_to("nobody@example.com").await.is_empty());

    let reply = app.post("/recover", json!({"email": "forgot@example.com", "code_challenge": null, "code_challenge_method": null})).await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    let link = app.link_to("forgot@example.com").await;
    assert!(link.contains("type=recovery"));
    let params = fragment(&app.get_raw(&link).await.location());
    assert_eq!(params["type"], "recovery");
    let token = params["access_token"].clone();
    assert_eq!(claims_of(&token)["amr"][0]["method"], "recovery");
    let put = app
        .call(
            Method::PUT,
            "/user",
            Some(&token),
            Some(json!({"password": "brand-new"})),
        )
        .await;
    assert_eq!(put.status, 200);
    assert_eq!(
        app.sign_in("forgot@example.com", "brand-new").await.status,
        200
    );

    let missing = app.post("/recover", json!({})).await;
    assert_eq!(missing.code(), "validation_failed");
}

#[tokio::test]
async fn pkce_signup_confirmation_and_code_exchange() {
    let app = spawn_app().await;
    let (verifier, challenge) = pkce_pair();
    let reply = app
        .call(
            Method::POST,
            "/signup?redirect_to=http%3A%2F%2Fapp.test%2Fcb%3Fsb_flow_id%3Dabc",
            None,
            Some(json!({"email": "pk@example.com", "password": "secret123", "code_challenge": challenge, "code_challenge_method": "s256"})),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    let link = app.link_to("pk@example.com").await;
    let location = app.get_raw(&link).await.location();
    assert!(
        location.starts_with("http://app.test/cb?sb_flow_id=abc&code="),
        "{location}"
    );
    let code = query(&location)["code"].clone();

    let bad = app
        .post(
            "/token?grant_type=pkce",
            json!({"auth_code": code, "code_verifier": "wrong"}),
        )
        .await;
    assert_eq!(
        (bad.status.as_u16(), bad.code()),
        (400, "bad_code_verifier")
    );
    let unknown = app
        .post(
            "/token?grant_type=pkce",
            json!({"auth_code": "nope", "code_verifier": verifier}),
        )
        .await;
    assert_eq!(
        (unknown.status.as_u16(), unknown.code()),
        (404, "flow_state_not_found")
    );
    let empty = app
        .post(
            "/token?grant_type=pkce",
            json!({"auth_code": "", "code_verifier": ""}),
        )
        .await;
    assert_eq!(empty.code(), "validation_failed");

    let session = app
        .post(
            "/token?grant_type=pkce",
            json!({"auth_code": code, "code_verifier": verifier}),
        )
        .await;
    assert_eq!(session.status, 200, "{}", session.text);
    assert_eq!(session.body["user"]["email"], "pk@example.com");
    assert!(session.body["user"]["email_confirmed_at"].is_string());
    let used = app
        .post(
            "/token?grant_type=pkce",
            json!({"auth_code": code, "code_verifier": verifier}),
        )
        .await;
    assert_eq!(used.code(), "flow_state_not_found");
}

#[tokio::test]
async fn pkce_codes_expire() {
    let app = spawn_app().await;
    let (verifier, challenge) = pkce_pair();
    app.post("/recover", json!({"email": "none@example.com"}))
        .await;
    app.post("/signup", json!({"email": "slow@example.com", "password": "secret123", "code_challenge": challenge, "code_challenge_method": "S256"})).await;
    let link = app.link_to("slow@example.com").await;
    let code = query(&app.get_raw(&link).await.location())["code"].clone();
    app.clock.advance(Duration::from_secs(301));
    let reply = app
        .post(
            "/token?grant_type=pkce",
            json!({"auth_code": code, "code_verifier": verifier}),
        )
        .await;
    assert_eq!(
        (reply.status.as_u16(), reply.code()),
        (422, "flow_state_expired")
    );
}

// ------------------------------------------------------------ admin

#[tokio::test]
async fn admin_users() {
    let app = spawn_app_with(autoconfirm).await;
    let user_session = app.signed_up("plain@example.com", "secret123").await;
    let user_token = user_session["access_token"].as_str().unwrap();
    let service = app.service_key();

    let refused = app
        .call(Method::GET, "/admin/users", Some(user_token), None)
        .await;
    assert_eq!(
        (refused.status.as_u16(), refused.code()),
        (403, "not_admin")
    );
    let anon = app.call(Method::GET, "/admin/users", None, None).await;
    assert_eq!(anon.code(), "not_admin");

    let created = app
        .call(
            Method::POST,
            "/admin/users",
            Some(&service),
            Some(json!({"email": "made@example.com", "password": "secret123", "email_confirm": true, "user_metadata": {"n": 1}, "app_metadata": {"plan": "pro"}})),
        )
        .await;
    assert_eq!(created.status, 200, "{}", created.text);
    let id = created.body["id"].as_str().unwrap().to_owned();
    assert_eq!(created.body["app_metadata"]["plan"], "pro");
    assert_eq!(created.body["app_metadata"]["provider"], "email");
    assert_eq!(
        app.sign_in("made@example.com", "secret123").await.status,
        200
    );

    let dup = app
        .call(
            Method::POST,
            "/admin/users",
            Some(&service),
            Some(json!({"email": "made@example.com"})),
        )
        .await;
    assert_eq!((dup.status.as_u16(), dup.code()), (422, "email_exists"));

    let list = app
        .call(
            Method::GET,
            "/admin/users?page=1&per_page=1",
            Some(&service),
            None,
        )
        .await;
    assert_eq!(list.status, 200);
    assert_eq!(list.body["users"].as_array().unwrap().len(), 1);
    assert_eq!(list.body["aud"], "authenticated");
    assert_eq!(list.headers["x-total-count"], "2");
    assert!(
        list.headers["link"]
            .to_str()
            .unwrap()
            .contains("rel=\"next\"")
    );

    let got = app
        .call(
            Method::GET,
            &format!("/admin/users/{id}"),
            Some(&service),
            None,
        )
        .await;
    assert_eq!(got.body["email"], "made@example.com");
    let missing = app
        .call(
            Method::GET,
            &format!("/admin/users/{}", uuid::Uuid::new_v4()),
            Some(&service),
            None,
        )
        .await;
    assert_eq!(
        (missing.status.as_u16(), missing.code()),
        (404, "user_not_found")
    );
    let garbled = app
        .call(Method::GET, "/admin/users/not-a-uuid", Some(&service), None)
        .await;
    assert_eq!(garbled.code(), "user_not_found");

    let updated = app
        .call(
            Method::PUT,
            &format!("/admin/users/{id}"),
            Some(&service),
            Some(json!({"user_metadata": {"m": 2}, "app_metadata": {"plan": null}, "ban_duration": "24h"})),
        )
        .await;
    assert_eq!(updated.status, 200, "{}", updated.text);
    assert_eq!(updated.body["user_metadata"], json!({"n": 1, "m": 2}));
    assert!(updated.body["app_metadata"].get("plan").is_none());
    assert!(updated.body["banned_until"].is_string());
    let banned = app.sign_in("made@example.com", "secret123").await;
    assert_eq!(banned.code(), "user_banned");
    let bad_ban = app
        .call(
            Method::PUT,
            &format!("/admin/users/{id}"),
            Some(&service),
            Some(json!({"ban_duration": "forever"})),
        )
        .await;
    assert_eq!(bad_ban.code(), "validation_failed");

    let deleted = app
        .call(
            Method::DELETE,
            &format!("/admin/users/{id}"),
            Some(&service),
            None,
        )
        .await;
    assert_eq!(deleted.status, 200);
    let gone = app
        .call(
            Method::GET,
            &format!("/admin/users/{id}"),
            Some(&service),
            None,
        )
        .await;
    assert_eq!(gone.code(), "user_not_found");
    let again = app
        .call(
            Method::DELETE,
            &format!("/admin/users/{id}"),
            Some(&service),
            None,
        )
        .await;
    assert_eq!(again.code(), "user_not_found");
}

// ------------------------------------------------------------ settings etc.

#[tokio::test]
async fn settings_health_and_jwks() {
    let app = spawn_app_with(|c| {
        c.github.enabled = true;
        c.disable_signup = true;
    })
    .await;
    let settings = app.call(Method::GET, "/settings", None, None).await;
    assert_eq!(settings.status, 200);
    assert_eq!(settings.body["external"]["github"], true);
    assert_eq!(settings.body["external"]["google"], false);
    assert_eq!(settings.body["external"]["apple"], false);
    assert_eq!(settings.body["external"]["email"], true);
    assert_eq!(settings.body["disable_signup"], true);
    assert_eq!(settings.body["mailer_autoconfirm"], false);
    let health = app.call(Method::GET, "/health", None, None).await;
    assert_eq!(health.body["name"], "GoTrue");
    let jwks = app
        .call(Method::GET, "/.well-known/jwks.json", None, None)
        .await;
    assert_eq!(jwks.body, json!({"keys": []}));
    let unknown = app.call(Method::GET, "/nope", None, None).await;
    assert_eq!(
        (unknown.status.as_u16(), unknown.code()),
        (404, "not_found")
    );
}

#[tokio::test]
async fn the_local_gateway_setting_lets_requests_through_without_an_api_key() {
    let bare = |app: &App, method: Method, path: &str| app.http.request(method, app.url(path));
    // As hosted (the default): no key, no request, /health included.
    let hosted = spawn_app().await;
    let refused = hosted.send(bare(&hosted, Method::GET, "/health")).await;
    assert_eq!(refused.status, 401, "{}", refused.text);
    assert_eq!(refused.body["message"], "No API key found in request");

    let local = spawn_app_with(|c| {
        c.require_apikey = false;
        c.mailer_autoconfirm = true;
    })
    .await;
    let health = local.send(bare(&local, Method::GET, "/health")).await;
    assert_eq!(health.status, 200, "{}", health.text);
    assert_eq!(health.body["name"], "GoTrue");
    let settings = local.send(bare(&local, Method::GET, "/settings")).await;
    assert_eq!(settings.status, 200, "{}", settings.text);
    let signup = local
        .send(
            bare(&local, Method::POST, "/signup")
                .json(&json!({"email": "local@example.com", "password": "secret123"})),
        )
        .await;
    assert_eq!(signup.status, 200, "{}", signup.text);
    let token = signup.body["access_token"].as_str().unwrap();
    let me = local
        .send(bare(&local, Method::GET, "/user").bearer_auth(token))
        .await;
    assert_eq!(me.body["email"], "local@example.com");
    // What GoTrue itself checks still holds: admin endpoints want an admin.
    let admin = local
        .send(bare(&local, Method::GET, "/admin/users").bearer_auth(token))
        .await;
    assert_eq!(admin.status, 403, "{}", admin.text);
    let nobody = local.send(bare(&local, Method::GET, "/user")).await;
    assert_eq!(nobody.status, 401, "{}", nobody.text);
}

// ------------------------------------------------------------ rate limits

#[tokio::test]
async fn rate_limits_answer_429() {
    let app = spawn_app_with(|c| {
        c.mailer_autoconfirm = true;
        c.rate_limits = RateLimits {
            sign_in_sign_ups: 3,
            per_email: 100,
            ..RateLimits::unlimited()
        };
    })
    .await;
    app.signed_up("rl@example.com", "secret123").await;
    assert_eq!(app.sign_in("rl@example.com", "secret123").await.status, 200);
    assert_eq!(app.sign_in("rl@example.com", "secret123").await.status, 200);
    let limited = app.sign_in("rl@example.com", "secret123").await;
    assert_eq!(
        (limited.status.as_u16(), limited.code()),
        (429, "over_request_rate_limit")
    );
    // Another client address has its own budget.
    let other = app
        .http
        .post(app.url("/token?grant_type=password"))
        .header("apikey", app.anon_key())
        .header("x-forwarded-for", "198.51.100.7")
        .header("x-supabase-api-version", "2024-01-01")
        .json(&json!({"email": "rl@example.com", "password": "secret123"}))
        .send()
        .await
        .unwrap();
    assert_eq!(other.status(), 200);

    let app = spawn_app_with(|c| {
        c.rate_limits = RateLimits {
            per_email: 1,
            ..RateLimits::unlimited()
        };
        c.mailer_autoconfirm = true;
    })
    .await;
    app.signed_up("mail@example.com", "secret123").await;
    assert_eq!(
        app.post("/recover", json!({"email": "mail@example.com"}))
            .await
            .status,
        200
    );
    let limited = app
        .post("/recover", json!({"email": "mail@example.com"}))
        .await;
    assert_eq!(
        (limited.status.as_u16(), limited.code()),
        (429, "over_email_send_rate_limit")
    );

    let app = spawn_app_with(|c| {
        c.rate_limits = RateLimits {
            verify: 1,
            token_refresh: 1,
            ..RateLimits::unlimited()
        };
    })
    .await;
    app.post("/verify", json!({"type": "signup", "token_hash": "x"}))
        .await;
    let limited = app
        .post("/verify", json!({"type": "signup", "token_hash": "x"}))
        .await;
    assert_eq!(limited.code(), "over_request_rate_limit");
    app.refresh("x").await;
    assert_eq!(app.refresh("x").await.code(), "over_request_rate_limit");
}

// ------------------------------------------------------------ OAuth

/// A fake OAuth provider speaking GitHub's and Google's token and user JSON.
#[derive(Clone, Default)]
struct Fake {
    /// code -> (PKCE challenge, client id)
    codes: Arc<Mutex<HashMap<String, String>>>,
    email: Arc<Mutex<(String, bool)>>,
}

async fn fake_authorize(State(fake): State<Fake>, RawQuery(q): RawQuery) -> Response {
    let q = params_of(&q.unwrap_or_default());
    assert_eq!(q["response_type"], "code");
    assert_eq!(q["code_challenge_method"], "S256");
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
    if form["client_id"] != "client-id"
        || form["client_secret"] != "client-secret"
        || challenge != Some(computed)
    {
        return (
            StatusCode::BAD_REQUEST,
            axum::Json(json!({"error": "bad_verification_code"})),
        )
            .into_response();
    }
    axum::Json(json!({"access_token": "provider-access", "token_type": "bearer", "scope": "user:email", "refresh_token": "provider-refresh"}))
        .into_response()
}

fn authorized(headers: &HeaderMap) -> bool {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        == Some("Bearer provider-access")
}

async fn fake_github_user(headers: HeaderMap) -> Response {
    if !authorized(&headers) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    axum::Json(json!({"login": "octocat", "id": 583231, "name": "The Octocat", "email": null, "avatar_url": "https://avatars.example/octo"}))
        .into_response()
}

async fn fake_github_emails(State(fake): State<Fake>, headers: HeaderMap) -> Response {
    if !authorized(&headers) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    let (email, verified) = fake.email.lock().unwrap().clone();
    axum::Json(json!([
        {"email": "old-noreply@example.com", "primary": false, "verified": false, "visibility": null},
        {"email": email, "primary": true, "verified": verified, "visibility": "public"},
    ]))
    .into_response()
}

async fn fake_google_user(State(fake): State<Fake>, headers: HeaderMap) -> Response {
    if !authorized(&headers) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    let (email, verified) = fake.email.lock().unwrap().clone();
    axum::Json(json!({"id": "10987654321", "email": email, "verified_email": verified, "name": "Gee User", "picture": "https://pics.example/g"}))
        .into_response()
}

/// Starts the fake provider; returns its base URL and handle.
async fn spawn_provider(email: &str) -> (String, Fake) {
    let fake = Fake::default();
    *fake.email.lock().unwrap() = (email.to_owned(), true);
    let router = Router::new()
        .route("/authorize", get(fake_authorize))
        .route("/token", post(fake_token))
        .route("/user", get(fake_github_user))
        .route("/user/emails", get(fake_github_emails))
        .route("/userinfo", get(fake_google_user))
        .with_state(fake.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        axum::serve(listener, router).await.unwrap();
    });
    (base, fake)
}

fn point_at(config: &mut plinth_auth::ProviderConfig, provider: &str) {
    config.enabled = true;
    config.client_id = "client-id".into();
    config.secret = "client-secret".into();
    config.authorize_url = format!("{provider}/authorize");
    config.token_url = format!("{provider}/token");
    config.userinfo_url = format!("{provider}/user");
    config.emails_url = format!("{provider}/user/emails");
}

/// Runs the browser's part: /authorize -> provider -> /callback; returns
/// where the app is finally sent.
async fn browser_sign_in(app: &App, authorize_query: &str) -> String {
    let start = app
        .get_raw(&app.url(&format!("/authorize?{authorize_query}")))
        .await;
    assert_eq!(start.status, 302, "{}", start.text);
    let at_provider = app.get_raw(&start.location()).await;
    assert_eq!(at_provider.status, 302);
    let callback = at_provider.location();
    assert!(callback.starts_with(&app.url("/callback?")), "{callback}");
    let back = app.get_raw(&callback).await;
    assert_eq!(back.status, 302, "{}", back.text);
    back.location()
}

#[tokio::test]
async fn github_implicit_flow_links_an_existing_account_by_verified_email() {
    let (provider, _fake) = spawn_provider("octo@example.com").await;
    let app = spawn_app_with(|c| {
        c.mailer_autoconfirm = true;
        point_at(&mut c.github, &provider);
    })
    .await;
    let existing = app.signed_up("octo@example.com", "secret123").await;

    let start = app
        .get_raw(&app.url("/authorize?provider=github&redirect_to=http%3A%2F%2Fapp.test%2Fdone"))
        .await;
    let to_provider = query(&start.location());
    assert_eq!(to_provider["client_id"], "client-id");
    assert_eq!(to_provider["redirect_uri"], app.url("/callback"));
    assert!(to_provider["scope"].contains("user:email"));

    let location = browser_sign_in(
        &app,
        "provider=github&redirect_to=http%3A%2F%2Fapp.test%2Fdone",
    )
    .await;
    assert!(location.starts_with("http://app.test/done#"), "{location}");
    let params = fragment(&location);
    assert_eq!(params["provider_token"], "provider-access");
    assert_eq!(params["provider_refresh_token"], "provider-refresh");
    assert_eq!(params["token_type"], "bearer");
    assert!(params.contains_key("expires_in") && params.contains_key("refresh_token"));
    let claims = claims_of(&params["access_token"]);
    assert_eq!(claims["amr"][0]["method"], "oauth");

    let me = app.get_user(&params["access_token"]).await;
    assert_eq!(me.body["id"], existing["user"]["id"]);
    assert_eq!(
        me.body["app_metadata"]["providers"],
        json!(["email", "github"])
    );
    let identities = me.body["identities"].as_array().unwrap();
    let github = identities
        .iter()
        .find(|i| i["provider"] == "github")
        .unwrap();
    assert_eq!(github["id"], "583231");
    assert_eq!(github["identity_data"]["user_name"], "octocat");

    // Signing in again finds the identity: no second one.
    let location = browser_sign_in(&app, "provider=github").await;
    assert!(location.starts_with(SITE), "{location}");
    let count: i64 = app
        .sql_scalar("select count(*) from auth.identities where provider = 'github'")
        .await;
    assert_eq!(count, 1);
}

#[tokio::test]
async fn google_pkce_flow_creates_a_user_and_exchanges_the_code() {
    let (provider, _fake) = spawn_provider("gee@example.com").await;
    let app = spawn_app_with(|c| {
        point_at(&mut c.google, &provider);
        c.google.userinfo_url = format!("{provider}/userinfo");
    })
    .await;
    let (verifier, challenge) = pkce_pair();
    let location = browser_sign_in(
        &app,
        &format!("provider=google&redirect_to=http%3A%2F%2Fapp.test%2Fcb&code_challenge={challenge}&code_challenge_method=s256"),
    )
    .await;
    assert!(
        location.starts_with("http://app.test/cb?code="),
        "{location}"
    );
    let code = query(&location)["code"].clone();
    let session = app
        .post(
            "/token?grant_type=pkce",
            json!({"auth_code": code, "code_verifier": verifier}),
        )
        .await;
    assert_eq!(session.status, 200, "{}", session.text);
    assert_eq!(session.body["provider_token"], "provider-access");
    let user = &session.body["user"];
    assert_eq!(user["email"], "gee@example.com");
    assert!(user["email_confirmed_at"].is_string());
    assert_eq!(
        user["app_metadata"],
        json!({"provider": "google", "providers": ["google"]})
    );
    assert_eq!(user["user_metadata"]["full_name"], "Gee User");
    assert_eq!(user["identities"][0]["provider"], "google");
}

#[tokio::test]
async fn oauth_errors() {
    let (provider, fake) = spawn_provider("unverified@example.com").await;
    *fake.email.lock().unwrap() = ("unverified@example.com".into(), false);
    let app = spawn_app_with(|c| point_at(&mut c.github, &provider)).await;

    let disabled = app.get_raw(&app.url("/authorize?provider=google")).await;
    assert_eq!(disabled.status, 400);
    assert_eq!(disabled.body["error_code"], "provider_disabled");
    assert_eq!(
        disabled.body["msg"],
        "Unsupported provider: provider is not enabled"
    );
    let unknown = app.get_raw(&app.url("/authorize?provider=myspace")).await;
    assert_eq!(unknown.body["error_code"], "validation_failed");
    let bad_state = app
        .get_raw(&app.url(&format!("/callback?code=x&state={}", uuid::Uuid::new_v4())))
        .await;
    assert_eq!(
        (
            bad_state.status.as_u16(),
            bad_state.body["error_code"].as_str()
        ),
        (400, Some("bad_oauth_state"))
    );

    // The provider's e-mail is unverified: no account, an error redirect.
    let location = browser_sign_in(&app, "provider=github").await;
    let params = fragment(&location);
    assert_eq!(
        params["error_code"], "provider_email_needs_verification",
        "{location}"
    );
    let users: i64 = app.sql_scalar("select count(*) from auth.users").await;
    assert_eq!(users, 0);

    // The user refused at the provider.
    let start = app.get_raw(&app.url("/authorize?provider=github")).await;
    let state = query(&start.location())["state"].clone();
    let denied = app
        .get_raw(&app.url(&format!(
            "/callback?error=access_denied&error_description=nope&state={state}"
        )))
        .await;
    assert_eq!(fragment(&denied.location())["error"], "access_denied");

    // A callback long after the start is refused.
    let start = app.get_raw(&app.url("/authorize?provider=github")).await;
    let state = query(&start.location())["state"].clone();
    app.clock.advance(Duration::from_secs(301));
    let late = app
        .get_raw(&app.url(&format!("/callback?code=x&state={state}")))
        .await;
    assert_eq!(
        fragment(&late.location())["error_code"],
        "flow_state_expired"
    );
}

/// Issue 15, item 3: a failed social sign-in sends the browser back to an
/// allowed `redirect_to` with the platform's error parameters, never to a
/// URL outside the allow-list.
#[tokio::test]
async fn oauth_failures_go_back_to_an_allowed_redirect_with_the_error() {
    let (provider, _fake) = spawn_provider("octo@example.com").await;
    let app = spawn_app_with(|c| point_at(&mut c.github, &provider)).await;
    let back_to = "redirect_to=http%3A%2F%2Fapp.test%2Fauth%3Fmode%3Dsign-in";

    // A provider that is not enabled, implicit flow: the fragment.
    let disabled = app
        .get_raw(&app.url(&format!("/authorize?provider=google&{back_to}")))
        .await;
    assert_eq!(disabled.status, 302, "{}", disabled.text);
    let location = disabled.location();
    assert!(
        location.starts_with("http://app.test/auth?mode=sign-in#"),
        "{location}"
    );
    let params = fragment(&location);
    assert_eq!(params["error"], "invalid_request");
    assert_eq!(params["error_code"], "provider_disabled");
    assert_eq!(
        params["error_description"],
        "Unsupported provider: provider is not enabled"
    );
    assert!(!query(&location).contains_key("error"), "{location}");

    // PKCE: in the query too; an unknown provider; the site URL is allowed.
    let (_, challenge) = pkce_pair();
    let unknown = app
        .get_raw(&app.url(&format!(
            "/authorize?provider=myspace&redirect_to=http%3A%2F%2Flocalhost%3A3000%2Fauth&code_challenge={challenge}&code_challenge_method=s256"
        )))
        .await;
    assert_eq!(unknown.status, 302, "{}", unknown.text);
    let location = unknown.location();
    assert!(
        location.starts_with("http://localhost:3000/auth?"),
        "{location}"
    );
    assert_eq!(query(&location)["error_code"], "validation_failed");
    assert_eq!(fragment(&location)["error_code"], "validation_failed");
    let count: i64 = app.sql_scalar("select count(*) from auth.flow_state").await;
    assert_eq!(count, 0, "a refused start leaves no flow behind");

    // A redirect_to outside the allow-list is not followed: GoTrue's JSON.
    for evil in [
        "https%3A%2F%2Fevil.example%2Fauth",
        "https%3A%2F%2Fevil.example%2F%3Fhttp%3A%2F%2Fapp.test%2F",
        "javascript%3Aalert(1)",
        "%2F%2Fevil.example",
    ] {
        let refused = app
            .get_raw(&app.url(&format!("/authorize?provider=google&redirect_to={evil}")))
            .await;
        assert_eq!(refused.status, 400, "{evil}: {}", refused.text);
        assert!(refused.headers.get(header::LOCATION.as_str()).is_none());
        assert_eq!(refused.body["error_code"], "provider_disabled");
    }

    // The person cancels at the provider (GitHub's answer): back with its text.
    let start = app
        .get_raw(&app.url(&format!("/authorize?provider=github&{back_to}")))
        .await;
    let state = query(&start.location())["state"].clone();
    let denied = app
        .get_raw(&app.url(&format!(
            "/callback?error=access_denied&error_description=The+user+has+denied+your+application+access.&error_uri=https%3A%2F%2Fdocs.github.com&state={state}"
        )))
        .await;
    assert_eq!(denied.status, 302, "{}", denied.text);
    let location = denied.location();
    assert!(
        location.starts_with("http://app.test/auth?mode=sign-in#"),
        "{location}"
    );
    let params = fragment(&location);
    assert_eq!(params["error"], "access_denied");
    assert_eq!(
        params["error_description"],
        "The user has denied your application access."
    );

    // The provider refuses the code: back with the exchange's error.
    let start = app
        .get_raw(&app.url(&format!("/authorize?provider=github&{back_to}")))
        .await;
    let state = query(&start.location())["state"].clone();
    let refused = app
        .get_raw(&app.url(&format!("/callback?code=not-a-code&state={state}")))
        .await;
    assert_eq!(refused.status, 302, "{}", refused.text);
    let location = refused.location();
    assert!(location.starts_with("http://app.test/auth"), "{location}");
    assert_eq!(fragment(&location)["error"], "server_error");
    assert_eq!(
        fragment(&location)["error_description"],
        "Unable to exchange external code"
    );
}

// ------------------------------------------------------------ SMTP

/// A minimal SMTP server: accepts one session at a time and hands each
/// message's DATA to the test.
async fn spawn_smtp() -> (u16, tokio::sync::mpsc::UnboundedReceiver<String>) {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let tx = tx.clone();
            tokio::spawn(async move {
                let (read, mut write) = stream.into_split();
                let mut lines = BufReader::new(read).lines();
                write.write_all(b"220 fake ESMTP\r\n").await.unwrap();
                let mut data: Option<String> = None;
                while let Ok(Some(line)) = lines.next_line().await {
                    if let Some(body) = data.as_mut() {
                        if line == "." {
                            let _ = tx.send(data.take().unwrap());
                            write.write_all(b"250 queued\r\n").await.unwrap();
                        } else {
                            body.push_str(&line);
                            body.push('\n');
                        }
                        continue;
                    }
                    let verb = line.split(' ').next().unwrap_or("").to_ascii_uppercase();
                    let reply: &[u8] = match verb.as_str() {
                        "EHLO" | "HELO" => b"250 fake\r\n",
                        "DATA" => {
                            data = Some(String::new());
                            b"354 go ahead\r\n"
                        }
                        "QUIT" => {
                            write.write_all(b"221 bye\r\n").await.unwrap();
                            break;
                        }
                        _ => b"250 ok\r\n",
                    };
                    write.write_all(reply).await.unwrap();
                }
            });
        }
    });
    (port, rx)
}

#[tokio::test]
async fn mail_goes_to_smtp_when_configured_and_the_mailbox_is_off() {
    let (port, mut received) = spawn_smtp().await;
    let app = spawn_app_with(|c| {
        c.smtp = Some(plinth_auth::SmtpConfig {
            host: "127.0.0.1".into(),
            port,
            user: None,
            pass: None,
            sender_email: "noreply@plinth.test".into(),
            sender_name: Some("Plinth".into()),
        });
    })
    .await;
    let reply = app
        .post(
            "/signup",
            json!({"email": "smtp@example.com", "password": "secret123"}),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    let message = tokio::time::timeout(Duration::from_secs(10), received.recv())
        .await
        .unwrap()
        .unwrap();
    assert!(message.contains("To: smtp@example.com"), "{message}");
    assert!(
        message.contains("Subject: Confirm your signup"),
        "{message}"
    );
    assert!(message.contains("/auth/v1/verify?token="), "{message}");
    let stored: i64 = app
        .sql_scalar("select count(*) from auth.mail_messages")
        .await;
    assert_eq!(stored, 0);
    let page = app.get_raw(&format!("{}/_/mailbox", app.base)).await;
    assert_eq!(page.status, 404);
}
