//! `/metrics` and `X-Request-Id` on a real node.

use crate::helpers::{TEST_METRICS_TOKEN, spawn_app};

async fn scrape(url: &str, bearer: Option<&str>) -> reqwest::Response {
    let mut request = reqwest::Client::new().get(format!("{url}/metrics"));
    if let Some(token) = bearer {
        request = request.bearer_auth(token);
    }
    request.send().await.unwrap()
}

#[tokio::test]
async fn metrics_are_read_only_with_the_service_key_or_the_metrics_token() {
    let app = spawn_app().await;
    for bearer in [
        None,
        Some(app.keys.anon_key.as_str()),
        Some("test-metrics-tokeN"),
        Some("not a token"),
    ] {
        let res = scrape(&app.url, bearer).await;
        assert_eq!(res.status(), 401, "{bearer:?}");
        assert_eq!(res.headers()["www-authenticate"], "Bearer");
        let body: serde_json::Value = res.json().await.unwrap();
        assert_eq!(body["code"], 401);
    }
    // The anon key in the apikey header is no way in either.
    let res = reqwest::Client::new()
        .get(format!("{}/metrics", app.url))
        .header("apikey", &app.keys.service_role_key)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);
    for bearer in [app.keys.service_role_key.as_str(), TEST_METRICS_TOKEN] {
        let res = scrape(&app.url, Some(bearer)).await;
        assert_eq!(res.status(), 200);
        assert!(
            res.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("application/openmetrics-text")
        );
        assert!(res.text().await.unwrap().ends_with("# EOF\n"));
    }
}

/// The value of the sample whose line starts with `series` (name and labels).
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

#[tokio::test]
async fn requests_are_counted_by_route_template_never_by_the_path_written() {
    let app = spawn_app().await;
    let client = reqwest::Client::new();
    let anon = &app.keys.anon_key;
    for _ in 0..3 {
        let res = client
            .get(format!("{}/rest/v1/categories?select=id", app.url))
            .header("apikey", anon)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
    }
    // Paths a client makes up: no label may carry them.
    let res = client
        .get(format!("{}/rest/v1/made_up_table_7f3a", app.url))
        .header("apikey", anon)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
    let res = client
        .get(format!("{}/auth/v1/made-up-route-9c2e", app.url))
        .header("apikey", anon)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
    // A failed sign-in is an auth event.
    let res = client
        .post(format!("{}/auth/v1/token?grant_type=password", app.url))
        .header("apikey", anon)
        .json(&serde_json::json!({"email": "nobody@example.com", "password": "wrong-password"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);

    let text = scrape(&app.url, Some(TEST_METRICS_TOKEN))
        .await
        .text()
        .await
        .unwrap();
    assert!(!text.contains("made_up_table_7f3a"), "{text}");
    assert!(!text.contains("made-up-route-9c2e"), "{text}");
    assert_eq!(
        sample(
            &text,
            r#"plinth_http_requests_total{service="rest",route="/rest/v1/{*path}",method="GET",status="200"}"#
        ),
        Some(3.0),
        "{text}"
    );
    assert_eq!(
        sample(
            &text,
            r#"plinth_http_requests_total{service="auth",route="unmatched",method="GET",status="404"}"#
        ),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        sample(
            &text,
            r#"plinth_http_request_duration_seconds_count{service="rest",route="/rest/v1/{*path}"}"#
        ),
        Some(4.0),
        "{text}"
    );
    assert_eq!(
        sample(
            &text,
            r#"plinth_auth_events_total{event="signed_in_password",outcome="failed"}"#
        ),
        Some(1.0),
        "{text}"
    );
    // Read at scrape time.
    assert_eq!(sample(&text, "plinth_database_up"), Some(1.0), "{text}");
    assert_eq!(
        sample(&text, "plinth_realtime_sockets"),
        Some(0.0),
        "{text}"
    );
    assert!(
        sample(&text, r#"plinth_db_pool_max_connections{pool="api"}"#).is_some_and(|n| n > 0.0),
        "{text}"
    );
    assert!(
        sample(&text, "plinth_process_resident_memory_bytes").is_some_and(|n| n > 1e6),
        "{text}"
    );
    assert!(sample(&text, "plinth_storage_bytes").is_some(), "{text}");
}

#[tokio::test]
async fn every_response_carries_a_request_id_and_a_plain_one_is_kept() {
    let app = spawn_app().await;
    let client = reqwest::Client::new();
    let get = |id: Option<&'static str>| {
        let mut request = client.get(format!("{}/health", app.url));
        if let Some(id) = id {
            request = request.header("x-request-id", id);
        }
        request.send()
    };
    let fresh = get(None).await.unwrap();
    let id = fresh.headers()["x-request-id"].to_str().unwrap().to_owned();
    assert!(uuid::Uuid::parse_str(&id).is_ok(), "{id}");
    let again = get(None).await.unwrap();
    assert_ne!(again.headers()["x-request-id"].to_str().unwrap(), id);

    let kept = get(Some("trace-42.a:b_c")).await.unwrap();
    assert_eq!(kept.headers()["x-request-id"], "trace-42.a:b_c");
    let replaced = get(Some("two words")).await.unwrap();
    let replaced = replaced.headers()["x-request-id"].to_str().unwrap();
    assert!(uuid::Uuid::parse_str(replaced).is_ok(), "{replaced}");

    // Errors of every service carry one too.
    let res = client
        .get(format!("{}/storage/v1/bucket", app.url))
        .send()
        .await
        .unwrap();
    assert!(res.status().is_client_error());
    assert!(res.headers().contains_key("x-request-id"));
}
