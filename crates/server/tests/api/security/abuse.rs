//! Security tests: abuse. Anonymous callers of the marketplace's functions
//! inflating counters and sending mail (item 7), the simulated payment's
//! redirect (item 8) and the newsletter telling who subscribed (item 12).
//! Every request comes from 127.0.0.1 through the real router (proxy
//! headers dropped, as `plinth serve` does without
//! `PLINTH_TRUST_PROXY_HEADERS`), with the default limits.

use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde_json::{Value, json};

use crate::helpers::TestApp;
use crate::marketplace_support::{Actor, owner_pool, spawn_marketplace, token};

/// One answer of a function or `/api` route.
struct Reply {
    status: StatusCode,
    headers: HeaderMap,
    body: Value,
}

/// `POST {path}` as supabase-js sends it (`apikey` + bearer), plus `headers`;
/// redirects are not followed.
async fn post(
    app: &TestApp,
    actor: Actor,
    path: &str,
    body: Value,
    headers: &[(&str, &str)],
) -> Reply {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let mut request = client
        .post(format!("{}{path}", app.url))
        .header("apikey", &app.keys.anon_key)
        .header("authorization", format!("Bearer {}", token(app, actor)))
        .json(&body);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap();
    Reply {
        status,
        headers,
        body: serde_json::from_str(&text).unwrap_or(Value::String(text)),
    }
}

async fn invoke(app: &TestApp, actor: Actor, function: &str, body: Value) -> Reply {
    post(app, actor, &format!("/functions/v1/{function}"), body, &[]).await
}

// --------------------------------------------------------------- item 12

/// The newsletter answers a new address and one already subscribed (in any
/// letter case, or added by someone else long ago) the same way.
#[tokio::test]
async fn item_12_newsletter_answers_alike_for_new_and_existing_subscribers() {
    let app = spawn_marketplace().await;
    sqlx::query(
        "insert into public.newsletter_subscribers (email, name) values ('known@example.com', 'K')",
    )
    .execute(owner_pool(&app))
    .await
    .unwrap();
    let subscribe = |email: &'static str| {
        let app = &app;
        async move {
            let reply = invoke(
                app,
                Actor::Anon,
                "subscribe-to-newsletter",
                json!({"email": email, "name": "Reader"}),
            )
            .await;
            (reply.status, reply.body)
        }
    };
    let fresh = subscribe("fresh@example.com").await;
    assert_eq!(fresh.0, StatusCode::OK, "{}", fresh.1);
    for email in [
        "known@example.com",
        "KNOWN@example.com",
        "fresh@example.com",
    ] {
        assert_eq!(subscribe(email).await, fresh, "{email}");
    }
    let rows: Vec<(String, String)> =
        sqlx::query_as("select email, name from public.newsletter_subscribers order by email")
            .fetch_all(owner_pool(&app))
            .await
            .unwrap();
    assert_eq!(
        rows,
        [
            ("fresh@example.com".to_owned(), "Reader".to_owned()),
            ("known@example.com".to_owned(), "K".to_owned())
        ],
        "one row per address; a known subscriber's name is not overwritten"
    );
}
