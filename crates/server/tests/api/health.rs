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
            "apikey, authorization, x-client-info, prefer",
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
    for name in ["apikey", "authorization", "x-client-info", "prefer"] {
        assert!(allowed.contains(name), "{name} not in {allowed}");
    }
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
