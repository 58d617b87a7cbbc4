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
use crate::marketplace_support::{
    Actor, category_id, create_user, owner_pool, published_template, spawn_marketplace, token,
};

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

// ---------------------------------------------------------------- item 8

/// A paid template and the simulated payment of an anonymous order of it:
/// (payment id, client secret).
async fn simulated_payment(app: &TestApp) -> (String, String) {
    let creator = create_user(app, "creator-08@example.com", "Creator").await;
    let category = category_id(app, "productivity").await;
    let template = published_template(app, creator, "Paid Kit", category, 9.0).await;
    let intent = invoke(
        app,
        Actor::Anon,
        "create-payment-intent",
        json!({"templateId": template, "buyerEmail": "payer@example.com"}),
    )
    .await;
    assert_eq!(intent.status, StatusCode::OK, "{}", intent.body);
    let confirm = intent.body["confirmUrl"].as_str().unwrap();
    let id = reqwest::Url::parse(confirm)
        .unwrap()
        .path_segments()
        .unwrap()
        .next_back()
        .unwrap()
        .to_owned();
    (id, intent.body["clientSecret"].as_str().unwrap().to_owned())
}

/// The simulated confirmation sends the browser on only within the site
/// (`SITE_URL`, here the default `http://localhost:8000`): every trick that
/// makes a browser leave it lands on the site's home instead. The confirm
/// is posted as the page's form and as JSON.
#[tokio::test]
async fn item_08_simulated_confirm_redirects_only_within_the_site() {
    let app = spawn_marketplace().await;
    let (id, secret) = simulated_payment(&app).await;
    let site = reqwest::Url::parse("http://localhost:8000/").unwrap();
    let confirm = |return_url: String, as_form: bool| {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let request = client.post(format!("{}/api/simulated-payments/{id}/confirm", app.url));
        let request = if as_form {
            request.form(&[
                ("client_secret", secret.as_str()),
                ("return_url", &return_url),
            ])
        } else {
            request.json(&json!({"client_secret": secret, "return_url": return_url}))
        };
        async move { request.send().await.unwrap() }
    };
    let unsafe_targets = [
        "//evil.example/x",
        "/\\evil.example/x",
        "\\\\evil.example/x",
        "/\t/evil.example/x",
        "/\n/evil.example/x",
        "/\r\n/evil.example",
        "\t//evil.example",
        " //evil.example",
        "/%09/evil.example",
        "/%5Cevil.example",
        "/%2F/evil.example",
        "/%2fevil.example",
        "/%0a/evil.example",
        "https://evil.example/",
        "http://evil.example",
        "https:evil.example",
        "HTTPS://EVIL.EXAMPLE",
        "javascript:alert(document.domain)",
        "data:text/html,<script>alert(1)</script>",
        "//localhost:8000@evil.example/",
        "http://localhost:8000@evil.example/",
        "http://localhost:8000.evil.example/",
        "https://localhost:8000/",
        "http://localhost:9000/",
        "evil.example",
        "./x",
        "/x\u{0}y",
        "/x\u{7f}",
        "/x\u{2028}y",
    ];
    for target in unsafe_targets {
        for as_form in [true, false] {
            let response = confirm(target.to_owned(), as_form).await;
            assert_eq!(
                response.status(),
                StatusCode::SEE_OTHER,
                "{target:?} (form: {as_form})"
            );
            let location = response.headers()["location"].to_str().unwrap().to_owned();
            // Resolved as a browser resolves it, against the page it came from.
            let request_url =
                reqwest::Url::parse(&format!("{}/api/simulated-payments/{id}/confirm", app.url))
                    .unwrap();
            let landed = request_url.join(&location).unwrap();
            assert_eq!(
                landed.as_str(),
                site.as_str(),
                "{target:?} (form: {as_form}) sent the browser to {location:?}"
            );
        }
    }
    let safe_targets = [
        (
            "/download-secure/abc?token=t%2Fu#top",
            "http://localhost:8000/download-secure/abc?token=t%2Fu#top",
        ),
        ("/", "http://localhost:8000/"),
        (
            "http://localhost:8000/library?x=1",
            "http://localhost:8000/library?x=1",
        ),
        ("/a/../b", "http://localhost:8000/b"),
    ];
    for (target, expected) in safe_targets {
        let response = confirm(target.to_owned(), true).await;
        assert_eq!(response.status(), StatusCode::SEE_OTHER, "{target:?}");
        assert_eq!(response.headers()["location"], expected, "{target:?}");
    }
    // Without a return_url the confirmation answers JSON.
    let response = reqwest::Client::new()
        .post(format!("{}/api/simulated-payments/{id}/confirm", app.url))
        .json(&json!({"client_secret": secret}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response.json::<Value>().await.unwrap()["status"],
        "succeeded"
    );
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
