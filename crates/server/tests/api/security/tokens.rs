//! Security tests: tokens.
//!
//! Issue 42 item 10: PostgREST and GoTrue check `exp` (and `nbf`) only when
//! a token carries it, and the official clients' own test suites sign admin
//! tokens without one. Plinth does the same by default: a service_role or a
//! user's token without `exp`, signed with the project's secret, works on
//! REST, auth (its admin API too) and storage, while an expired one is still
//! refused; `PLINTH_JWT_REQUIRE_EXP` refuses tokens without `exp` in every
//! service.

use reqwest::StatusCode;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::helpers::{TestApp, spawn_app, spawn_app_requiring_exp};
use crate::marketplace_support::create_user;

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// `GET path` with `apikey` and the bearer `token`, as supabase-js sends
/// them: status and JSON body.
async fn get(app: &TestApp, path: &str, apikey: &str, token: &str) -> (StatusCode, Value) {
    let response = reqwest::Client::new()
        .get(format!("{}{path}", app.url))
        .header("apikey", apikey)
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// A service_role token of `app`'s secret, expiring at `exp` (never: `None`).
fn service_token(app: &TestApp, exp: Option<i64>) -> String {
    let mut claims = json!({"role": "service_role", "iss": "supabase-demo", "iat": now()});
    if let Some(exp) = exp {
        claims["exp"] = json!(exp);
    }
    app.keys.secret.sign(&claims)
}

/// A user's session token of `app`'s secret, expiring at `exp` (never: `None`).
fn user_token(app: &TestApp, user: Uuid, exp: Option<i64>) -> String {
    let mut claims = json!({
        "sub": user.to_string(), "role": "authenticated", "aud": "authenticated",
        "email": format!("{user}@test.plinth.dev"), "iat": now(),
    });
    if let Some(exp) = exp {
        claims["exp"] = json!(exp);
    }
    app.keys.secret.sign(&claims)
}

const REST: &str = "/rest/v1/categories?select=id";
const ADMIN_USERS: &str = "/auth/v1/admin/users";
const USER: &str = "/auth/v1/user";
const BUCKETS: &str = "/storage/v1/bucket";

#[tokio::test]
async fn review2_item_10_tokens_without_exp_are_accepted_as_the_platform_does() {
    let app = spawn_app().await;
    let anon = app.keys.anon_key.clone();
    let user = create_user(
        &app,
        &format!("{}@test.plinth.dev", Uuid::new_v4()),
        "No Exp",
    )
    .await;

    // A service key without exp, as the clients' suites sign one.
    let service = service_token(&app, None);
    for path in [REST, ADMIN_USERS, BUCKETS] {
        let (status, body) = get(&app, path, &service, &service).await;
        assert_eq!(status, 200, "{path}: {body}");
    }
    let (_, listed) = get(&app, ADMIN_USERS, &service, &service).await;
    assert!(
        listed["users"]
            .as_array()
            .unwrap()
            .iter()
            .any(|u| u["id"] == user.to_string()),
        "{listed}"
    );
    // A user's token without exp.
    let session = user_token(&app, user, None);
    for path in [REST, USER, BUCKETS] {
        let (status, body) = get(&app, path, &anon, &session).await;
        assert_eq!(status, 200, "{path}: {body}");
    }
    assert_eq!(
        get(&app, USER, &anon, &session).await.1["id"],
        user.to_string()
    );

    // An exp present is still checked: expired tokens are refused.
    let expired = service_token(&app, Some(now() - 60));
    let (status, body) = get(&app, REST, &expired, &expired).await;
    assert_eq!(
        (status.as_u16(), body["code"].as_str()),
        (401, Some("PGRST303")),
        "{body}"
    );
    let (status, body) = get(&app, ADMIN_USERS, &expired, &expired).await;
    assert_eq!(status, 401, "{body}");
    let (status, body) = get(&app, BUCKETS, &expired, &expired).await;
    assert_eq!(body["message"], "jwt expired", "{status} {body}");
    let expired = user_token(&app, user, Some(now() - 60));
    let (status, body) = get(&app, REST, &anon, &expired).await;
    assert_eq!(status, 401, "{body}");
    let (status, body) = get(&app, USER, &anon, &expired).await;
    assert_eq!(
        (status.as_u16(), body["error_code"].as_str()),
        (403, Some("bad_jwt")),
        "{body}"
    );
    let (status, body) = get(&app, BUCKETS, &anon, &expired).await;
    assert_eq!(body["message"], "jwt expired", "{status} {body}");

    // PLINTH_JWT_REQUIRE_EXP: the same tokens without exp are refused.
    let strict = spawn_app_requiring_exp().await;
    let anon = strict.keys.anon_key.clone();
    let user = create_user(
        &strict,
        &format!("{}@test.plinth.dev", Uuid::new_v4()),
        "Strict",
    )
    .await;
    let service = service_token(&strict, None);
    let (status, body) = get(&strict, REST, &service, &service).await;
    assert_eq!(
        (status.as_u16(), body["code"].as_str()),
        (401, Some("PGRST301")),
        "{body}"
    );
    let (status, body) = get(&strict, ADMIN_USERS, &service, &service).await;
    assert_eq!(status, 401, "{body}");
    let (status, body) = get(&strict, BUCKETS, &service, &service).await;
    assert_ne!(status, 200, "{body}");
    let session = user_token(&strict, user, None);
    let (status, body) = get(&strict, REST, &anon, &session).await;
    assert_eq!(status, 401, "{body}");
    let (status, body) = get(&strict, USER, &anon, &session).await;
    assert_eq!(status, 403, "{body}");
    assert!(
        body["msg"].as_str().unwrap_or_default().contains("exp"),
        "{body}"
    );
    let (status, body) = get(&strict, BUCKETS, &anon, &session).await;
    assert_ne!(status, 200, "{body}");
    // Tokens with exp still work there.
    let service = service_token(&strict, Some(now() + 600));
    for path in [REST, ADMIN_USERS, BUCKETS] {
        let (status, body) = get(&strict, path, &service, &service).await;
        assert_eq!(status, 200, "{path}: {body}");
    }
    let session = user_token(&strict, user, Some(now() + 600));
    assert_eq!(get(&strict, USER, &anon, &session).await.0, 200);
}
