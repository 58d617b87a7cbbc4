use serde_json::Value;

use crate::helpers::spawn_app;

#[tokio::test]
async fn health_answers_when_the_database_does() {
    let app = spawn_app().await;
    let response = reqwest::get(format!("{}/health", app.url)).await.unwrap();
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["status"], "ok");
    assert_eq!(body["database"], "ok");
}

#[tokio::test]
async fn health_is_503_when_the_database_is_gone() {
    let app = spawn_app().await;
    app.test_db.db.api.close().await;
    let response = reqwest::get(format!("{}/health", app.url)).await.unwrap();
    assert_eq!(response.status(), 503);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["status"], "unavailable");
}

#[tokio::test]
async fn without_a_built_app_the_root_page_says_so() {
    let app = spawn_app().await;
    let response = reqwest::get(&app.url).await.unwrap();
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    assert!(text.contains("Plinth is running"), "{text}");
    // The generated keys verify with the node's secret.
    let claims = app.keys.secret.verify(&app.keys.anon_key).unwrap();
    assert_eq!(claims["role"], "anon");
}

#[tokio::test]
async fn browsers_get_cors_answers() {
    let app = spawn_app().await;
    let client = reqwest::Client::new();
    let preflight = client
        .request(reqwest::Method::OPTIONS, format!("{}/health", app.url))
        .header("origin", "http://localhost:5173")
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "apikey, authorization, x-client-info, prefer, x-tenant",
        )
        .send()
        .await
        .unwrap();
    assert!(preflight.status().is_success(), "{}", preflight.status());
    let headers = preflight.headers();
    assert_eq!(
        headers["access-control-allow-origin"],
        "http://localhost:5173"
    );
    let allowed = headers["access-control-allow-headers"]
        .to_str()
        .unwrap()
        .to_lowercase();
    // An app's own header (supabase-js `global.headers`) passes too, as
    // through the platform's gateway.
    for name in [
        "apikey",
        "authorization",
        "x-client-info",
        "prefer",
        "x-tenant",
    ] {
        assert!(allowed.contains(name), "{name} not in {allowed}");
    }
    // Caches keep one preflight answer per set of asked-for headers.
    let vary = headers["vary"].to_str().unwrap().to_lowercase();
    assert!(vary.contains("access-control-request-headers"), "{vary}");
    let response = client
        .get(format!("{}/health", app.url))
        .header("origin", "http://localhost:5173")
        .send()
        .await
        .unwrap();
    let exposed = response.headers()["access-control-expose-headers"]
        .to_str()
        .unwrap()
        .to_lowercase();
    assert!(exposed.contains("content-range"), "{exposed}");
}

#[tokio::test]
async fn the_app_learns_the_anon_key_from_its_server() {
    let app = spawn_app().await;
    let body: Value = reqwest::get(format!("{}/_/app-config.json", app.url))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(body["anonKey"], app.keys.anon_key);
    assert_eq!(
        body["stripePublishableKey"],
        crate::helpers::TEST_STRIPE_PUBLISHABLE_KEY
    );
    assert!(body.get("serviceRoleKey").is_none());
    assert!(!body.to_string().contains(&app.keys.service_role_key));
}

/// Every service answers a database it cannot reach with a 503 in its own
/// shape and a `Retry-After`, never a 500: clients retry (supabase-js keeps
/// the session on a 503 from auth), and nothing about the fault leaks.
#[tokio::test]
async fn with_the_database_gone_each_service_answers_503_in_its_own_shape() {
    let app = spawn_app().await;
    app.test_db.db.api.close().await;
    // Closed at once for new requests; the wait for connections held
    // elsewhere (realtime's listener) is cut short.
    let _ = tokio::time::timeout(
        std::time::Duration::from_millis(500),
        app.test_db.db.owner.close(),
    )
    .await;
    let client = reqwest::Client::new();
    let service = &app.keys.service_role_key;
    let anon = &app.keys.anon_key;

    let check = |response: reqwest::Response| async move {
        assert_eq!(response.status(), 503);
        assert_eq!(
            response.headers()["retry-after"],
            plinth_db::RETRY_AFTER_SECS.to_string().as_str()
        );
        let body: Value = response.json().await.unwrap();
        let text = body.to_string();
        assert!(!text.contains("pool"), "the cause leaked: {text}");
        body
    };

    // Auth, in both of its shapes.
    let sign_in = || {
        client
            .post(format!("{}/auth/v1/token?grant_type=password", app.url))
            .header("apikey", anon)
            .json(&serde_json::json!({"email": "someone@example.com", "password": "a-password"}))
    };
    let body = check(sign_in().send().await.unwrap()).await;
    assert_eq!(body["code"], 503);
    assert_eq!(body["error_code"], "service_unavailable");
    let body = check(
        sign_in()
            .header("x-supabase-api-version", "2024-01-01")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(body["code"], "service_unavailable");
    assert!(body["message"].as_str().unwrap().contains("unavailable"));

    // Storage.
    let body = check(
        client
            .get(format!("{}/storage/v1/bucket", app.url))
            .header("apikey", service)
            .bearer_auth(service)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(body["statusCode"], "503");
    assert_eq!(body["code"], "DatabaseError");

    // Functions.
    let body = check(
        client
            .post(format!("{}/functions/v1/track-template-view", app.url))
            .header("apikey", anon)
            .bearer_auth(anon)
            .json(&serde_json::json!({"template_id": "00000000-0000-4000-8000-000000000001"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert!(
        body["error"].as_str().unwrap().contains("unavailable"),
        "{body}"
    );
}
