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
