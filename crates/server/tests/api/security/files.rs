//! Security tests: files.
//!
//! Item 14: a body over a limit, and every other request the framework
//! refuses before a handler runs, is answered in the service's own JSON shape.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app};
use crate::marketplace_support::{Actor, create_user, token};

// ------------------------------------------------------------------ helpers

/// One storage answer: status, headers and the body as text.
struct Got {
    status: StatusCode,
    headers: reqwest::header::HeaderMap,
    text: String,
}

impl Got {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|_| {
            panic!(
                "expected a JSON body, got {} {:?} (content-type {:?})",
                self.status,
                self.text,
                self.header("content-type")
            )
        })
    }
}

async fn send(request: reqwest::RequestBuilder) -> Got {
    let response = request.send().await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap_or_default();
    Got {
        status,
        headers,
        text,
    }
}

fn storage(app: &TestApp, actor: Actor, method: Method, path: &str) -> reqwest::RequestBuilder {
    reqwest::Client::new()
        .request(method, format!("{}/storage/v1/{path}", app.url))
        .header("apikey", &app.keys.anon_key)
        .header("authorization", format!("Bearer {}", token(app, actor)))
}

/// A public bucket without type or size restrictions (as an operator could
/// make one).
async fn open_bucket(app: &TestApp, id: &str) {
    let got = send(
        storage(app, Actor::Service, Method::POST, "bucket")
            .json(&json!({ "id": id, "name": id, "public": true })),
    )
    .await;
    assert!(got.status.is_success(), "create bucket: {}", got.text);
}

// ------------------------------------------------------------------ item 14

/// A JSON body of about `size` bytes.
fn big_json(size: usize) -> Vec<u8> {
    let mut body = b"{\"padding\":\"".to_vec();
    body.resize(size, b'a');
    body.extend_from_slice(b"\"}");
    body
}

const OVER: usize = 3 * 1024 * 1024;

fn assert_rest_shape(got: &Got, what: &str) -> Value {
    let body = got.json();
    for key in ["code", "details", "hint", "message"] {
        assert!(body.get(key).is_some(), "{what}: no {key} in {body}");
    }
    assert!(body["code"].is_string(), "{what}: {body}");
    assert!(
        got.header("content-type")
            .is_some_and(|t| t.starts_with("application/json")),
        "{what}"
    );
    body
}

#[tokio::test]
async fn item_14_rest_answers_a_body_over_the_limit_in_postgrest_shape() {
    let app = spawn_app().await;
    let got = send(
        reqwest::Client::new()
            .post(format!("{}/rest/v1/newsletter_subscribers", app.url))
            .header("apikey", &app.keys.anon_key)
            .header("content-type", "application/json")
            .body(big_json(OVER)),
    )
    .await;
    assert_eq!(got.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", got.text);
    let body = assert_rest_shape(&got, "413");
    assert!(body["message"].as_str().unwrap().contains("too large"));
}

#[tokio::test]
async fn item_14_functions_answer_a_body_over_the_limit_in_their_shape() {
    let app = spawn_app().await;
    for path in [
        "functions/v1/track-template-view",
        "functions/v1/create-free-order",
        "api/stripe/webhook",
    ] {
        let got = send(
            reqwest::Client::new()
                .post(format!("{}/{path}", app.url))
                .header("apikey", &app.keys.anon_key)
                .header("content-type", "application/json")
                .body(big_json(OVER)),
        )
        .await;
        assert_eq!(
            got.status,
            StatusCode::PAYLOAD_TOO_LARGE,
            "{path}: {}",
            got.text
        );
        assert!(got.json()["error"].is_string(), "{path}: {}", got.text);
    }
}

#[tokio::test]
async fn item_14_storage_answers_a_body_over_the_limit_in_its_shape() {
    let app = spawn_app().await;
    open_bucket(&app, "loose").await;
    for (method, path) in [
        (Method::POST, "object/list/loose"),
        (Method::DELETE, "object/loose"),
        (Method::POST, "object/move"),
        (Method::POST, "object/copy"),
        (Method::POST, "object/sign/loose"),
        (Method::POST, "object/sign/loose/a.png"),
        (Method::POST, "bucket"),
        (Method::PUT, "bucket/loose"),
    ] {
        let got = send(
            storage(&app, Actor::Service, method.clone(), path)
                .header("content-type", "application/json")
                .body(big_json(OVER)),
        )
        .await;
        let body = got.json();
        assert_eq!(body["statusCode"], "413", "{method} {path}: {body}");
        assert_eq!(body["error"], "Payload too large", "{method} {path}");
        assert!(body["message"].is_string());
    }
}

#[tokio::test]
async fn item_14_other_refusals_of_the_framework_are_json_too() {
    let app = spawn_app().await;
    open_bucket(&app, "loose").await;
    let client = reqwest::Client::new();
    // storage: a method the route does not have, a query that does not
    // parse, a path that is not UTF-8
    for (method, path) in [
        (Method::PATCH, "object/list/loose"),
        (Method::PATCH, "bucket"),
        (
            Method::GET,
            "object/public/loose/a.png?download=a&download=b",
        ),
        (Method::GET, "object/public/loose/%FF.png"),
    ] {
        let got = send(storage(&app, Actor::Service, method.clone(), path)).await;
        let body = got.json();
        assert!(
            body["statusCode"].is_string() && body["message"].is_string(),
            "{method} {path}: {body}"
        );
    }
    // functions: a method the route does not have, a bad query
    for (method, path) in [
        (Method::GET, "api/stripe/webhook"),
        (Method::PUT, "api/stripe/connect"),
        (Method::POST, "api/simulated-payments/x"),
        (
            Method::GET,
            "api/simulated-payments/x?return_url=a&return_url=b",
        ),
    ] {
        let got = send(
            client
                .request(method.clone(), format!("{}/{path}", app.url))
                .header("apikey", &app.keys.anon_key),
        )
        .await;
        if got.status.is_success() || got.header("content-type") == Some("text/html; charset=utf-8")
        {
            continue;
        }
        assert!(
            got.json()["error"].is_string(),
            "{method} {path}: {}",
            got.text
        );
    }
    // REST: a body that is not JSON, a body of another type
    let user = create_user(&app, "rest@example.com", "Rest").await;
    for (content_type, body) in [("application/json", "{not json"), ("text/csv", "a,b\n1,2")] {
        let got = send(
            client
                .post(format!("{}/rest/v1/newsletter_subscribers", app.url))
                .header("apikey", &app.keys.anon_key)
                .header(
                    "authorization",
                    format!("Bearer {}", token(&app, Actor::User(user))),
                )
                .header("content-type", content_type)
                .body(body),
        )
        .await;
        assert_rest_shape(&got, content_type);
    }
}
