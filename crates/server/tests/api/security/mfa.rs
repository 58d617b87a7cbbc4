//! Security tests: two-factor accounts (issue 42).
//!
//! * Item 2: a password alone (an aal1 session) no longer changes the
//!   password, e-mail or phone of a user with a verified factor: 401
//!   `insufficient_aal`, as the platform answers.
//! * Item 7: wrong TOTP codes are counted per factor, from every address:
//!   past five the factor is locked for a while (429), even for the right
//!   code.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app};
use crate::security::support::{
    Reply, auth_call, client_at, now_unix, seeded_user, totp_at, unique,
};

const PASSWORD: &str = "the-owners-password";

fn s(value: &Value) -> String {
    value.as_str().unwrap().to_owned()
}

async fn password_session(app: &TestApp, email: &str, password: &str) -> String {
    let reply = auth_call(
        app,
        &client_at(0, 0, 1),
        Method::POST,
        "/token?grant_type=password",
        None,
        Some(json!({"email": email, "password": password})),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    s(&reply.body["access_token"])
}

/// A user with a verified TOTP factor: (their e-mail, factor id, secret).
async fn user_with_totp(app: &TestApp) -> (String, String, String) {
    let email = unique("two-factor");
    seeded_user(app, &email, PASSWORD, 4).await;
    let token = password_session(app, &email, PASSWORD).await;
    let client = client_at(0, 0, 1);
    let enrolled = auth_call(
        app,
        &client,
        Method::POST,
        "/factors",
        Some(&token),
        Some(json!({"factor_type": "totp", "friendly_name": "phone app"})),
    )
    .await;
    assert_eq!(enrolled.status, 200, "{}", enrolled.body);
    let factor = s(&enrolled.body["id"]);
    let secret = s(&enrolled.body["totp"]["secret"]);
    let verified =
        challenge_and_verify(app, &client, &token, &factor, &totp_at(&secret, now_unix())).await;
    assert_eq!(verified.status, 200, "{}", verified.body);
    (email, factor, secret)
}

async fn challenge(app: &TestApp, client: &reqwest::Client, token: &str, factor: &str) -> String {
    let reply = auth_call(
        app,
        client,
        Method::POST,
        &format!("/factors/{factor}/challenge"),
        Some(token),
        Some(json!({})),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    s(&reply.body["id"])
}

async fn verify(
    app: &TestApp,
    client: &reqwest::Client,
    token: &str,
    factor: &str,
    challenge: &str,
    code: &str,
) -> Reply {
    auth_call(
        app,
        client,
        Method::POST,
        &format!("/factors/{factor}/verify"),
        Some(token),
        Some(json!({"challenge_id": challenge, "code": code})),
    )
    .await
}

async fn challenge_and_verify(
    app: &TestApp,
    client: &reqwest::Client,
    token: &str,
    factor: &str,
    code: &str,
) -> Reply {
    let id = challenge(app, client, token, factor).await;
    verify(app, client, token, factor, &id, code).await
}

async fn update_user(app: &TestApp, token: &str, body: Value) -> Reply {
    auth_call(
        app,
        &client_at(0, 0, 1),
        Method::PUT,
        "/user",
        Some(token),
        Some(body),
    )
    .await
}

// ------------------------------------------------------------------ item 2

#[tokio::test]
async fn review2_item_02_a_password_alone_cannot_change_a_two_factor_accounts_secrets() {
    let app = spawn_app().await;
    let (email, factor, secret) = user_with_totp(&app).await;
    // Someone who knows the password only: a fresh aal1 session.
    let aal1 = password_session(&app, &email, PASSWORD).await;
    for body in [
        json!({"password": "a-new-password-of-theirs"}),
        json!({"email": unique("taken-over")}),
        json!({"phone": "15550009999"}),
    ] {
        let reply = update_user(&app, &aal1, body.clone()).await;
        assert_eq!(
            reply.status,
            StatusCode::UNAUTHORIZED,
            "{body}: {}",
            reply.body
        );
        assert_eq!(reply.body["code"], "insufficient_aal", "{}", reply.body);
        assert_eq!(
            reply.body["message"],
            "AAL2 session is required to update email or password when MFA is enabled."
        );
    }
    // The old password still signs in: nothing changed.
    password_session(&app, &email, PASSWORD).await;
    // What is no secret may still change, and the same e-mail is no change.
    let reply = update_user(&app, &aal1, json!({"data": {"theme": "dark"}})).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let reply = update_user(&app, &aal1, json!({"email": email.to_uppercase()})).await;
    assert_eq!(reply.status, 200, "{}", reply.body);

    // With the second factor the owner changes the password.
    let aal1 = password_session(&app, &email, PASSWORD).await;
    let client = client_at(0, 0, 1);
    // (a later step than the enrolment's: a code counts once)
    let code = totp_at(&secret, now_unix() + 30);
    let raised = challenge_and_verify(&app, &client, &aal1, &factor, &code).await;
    assert_eq!(raised.status, 200, "{}", raised.body);
    let aal2 = s(&raised.body["access_token"]);
    let reply = update_user(&app, &aal2, json!({"password": "a-new-password-of-theirs"})).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    password_session(&app, &email, "a-new-password-of-theirs").await;
}

// ------------------------------------------------------------------ item 7

#[tokio::test]
async fn review2_item_07_wrong_totp_codes_lock_the_factor_whatever_the_address() {
    let app = spawn_app().await;
    let (email, factor, secret) = user_with_totp(&app).await;
    let token = password_session(&app, &email, PASSWORD).await;
    let right = totp_at(&secret, now_unix() + 30);
    let wrong = if right == "000000" {
        "111111"
    } else {
        "000000"
    };
    // Ten addresses, three wrong codes each: what the per-address limits
    // (15 challenges and verifications a minute) let through.
    let mut refused_as_wrong = 0;
    let mut locked = 0;
    for address in 1..=10u8 {
        let client = client_at(0, 7, address);
        let challenge = challenge(&app, &client, &token, &factor).await;
        for _ in 0..3 {
            let reply = verify(&app, &client, &token, &factor, &challenge, wrong).await;
            match reply.status {
                StatusCode::UNPROCESSABLE_ENTITY => refused_as_wrong += 1,
                StatusCode::TOO_MANY_REQUESTS => {
                    assert_eq!(reply.body["code"], "over_request_rate_limit");
                    locked += 1;
                }
                other => panic!("{other}: {}", reply.body),
            }
        }
    }
    assert_eq!(refused_as_wrong, 5, "five wrong codes are tried, no more");
    assert_eq!(locked, 25);
    // Locked for a while: even the right code from a new address waits.
    let client = client_at(0, 7, 11);
    let reply = challenge_and_verify(&app, &client, &token, &factor, &right).await;
    assert_eq!(
        reply.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        reply.body
    );
}
