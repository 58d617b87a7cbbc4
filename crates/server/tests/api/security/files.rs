//! Security tests: files.
//!
//! Item 3: user files are served on the app's origin, so a stored file must
//! never run as a page of that origin (`nosniff`, a sandboxing CSP,
//! attachments for active types, declared types that cannot smuggle another
//! type), the marketplace buckets take only the types the spec needs, and the
//! app's pages carry a CSP of their own.
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
/// make one), to see how storage serves whatever is in it.
async fn open_bucket(app: &TestApp, id: &str) {
    let got = send(
        storage(app, Actor::Service, Method::POST, "bucket")
            .json(&json!({ "id": id, "name": id, "public": true })),
    )
    .await;
    assert!(got.status.is_success(), "create bucket: {}", got.text);
}

/// A raw upload (`Content-Type` from the header), as storage-js sends a
/// string or an ArrayBuffer.
async fn upload_raw(
    app: &TestApp,
    actor: Actor,
    bucket: &str,
    name: &str,
    content_type: &str,
    body: &[u8],
) -> Got {
    send(
        storage(app, actor, Method::POST, &format!("object/{bucket}/{name}"))
            .header("content-type", content_type)
            .body(body.to_vec()),
    )
    .await
}

/// A multipart upload (the type from the file part), as storage-js sends a
/// `File`.
async fn upload_form(
    app: &TestApp,
    actor: Actor,
    bucket: &str,
    name: &str,
    content_type: &str,
    body: &[u8],
) -> Got {
    let mut form = Vec::new();
    form.extend_from_slice(
        b"--B0und\r\nContent-Disposition: form-data; name=\"cacheControl\"\r\n\r\n3600\r\n",
    );
    form.extend_from_slice(
        format!(
            "--B0und\r\nContent-Disposition: form-data; name=\"\"; filename=\"f\"\r\nContent-Type: {content_type}\r\n\r\n"
        )
        .as_bytes(),
    );
    form.extend_from_slice(body);
    form.extend_from_slice(b"\r\n--B0und--\r\n");
    send(
        storage(app, actor, Method::POST, &format!("object/{bucket}/{name}"))
            .header("content-type", "multipart/form-data; boundary=B0und")
            .body(form),
    )
    .await
}

const HTML: &[u8] = b"<!doctype html><script>localStorage.setItem('pwned','1')</script>";
const SVG: &[u8] =
    b"<svg xmlns='http://www.w3.org/2000/svg'><script>document.title='pwned'</script></svg>";
/// The smallest PNG: a 1x1 transparent pixel.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
    0x42, 0x60, 0x82,
];

/// Asserts the headers every download of user bytes carries.
fn assert_contained(got: &Got, what: &str) {
    assert!(
        got.status.is_success(),
        "{what}: {} {}",
        got.status,
        got.text
    );
    assert_eq!(
        got.header("x-content-type-options"),
        Some("nosniff"),
        "{what}"
    );
    let csp = got
        .header("content-security-policy")
        .unwrap_or_else(|| panic!("{what}: no Content-Security-Policy"));
    assert!(csp.contains("default-src 'none'"), "{what}: {csp}");
    assert!(csp.contains("sandbox"), "{what}: {csp}");
}

fn assert_attachment(got: &Got, what: &str) {
    let disposition = got.header("content-disposition").unwrap_or_default();
    assert!(
        disposition.starts_with("attachment"),
        "{what}: Content-Disposition {disposition:?}"
    );
}

/// Every way a stored object can be read: public, authenticated, signed,
/// and HEAD of each.
async fn every_download(app: &TestApp, bucket: &str, name: &str) -> Vec<(String, Got)> {
    let signed = send(
        storage(
            app,
            Actor::Service,
            Method::POST,
            &format!("object/sign/{bucket}/{name}"),
        )
        .json(&json!({ "expiresIn": 60 })),
    )
    .await;
    let signed_url = signed.json()["signedURL"].as_str().unwrap().to_owned();
    let client = reqwest::Client::new();
    let mut out = Vec::new();
    for method in [Method::GET, Method::HEAD] {
        out.push((
            format!("{method} public"),
            send(client.request(
                method.clone(),
                format!("{}/storage/v1/object/public/{bucket}/{name}", app.url),
            ))
            .await,
        ));
        out.push((
            format!("{method} authenticated"),
            send(storage(
                app,
                Actor::Service,
                method.clone(),
                &format!("object/authenticated/{bucket}/{name}"),
            ))
            .await,
        ));
        out.push((
            format!("{method} object"),
            send(storage(
                app,
                Actor::Service,
                method.clone(),
                &format!("object/{bucket}/{name}"),
            ))
            .await,
        ));
        out.push((
            format!("{method} signed"),
            send(client.request(
                method.clone(),
                format!("{}/storage/v1{signed_url}", app.url),
            ))
            .await,
        ));
    }
    out
}

// ------------------------------------------------------------------ item 3

#[tokio::test]
async fn item_03_active_files_are_served_as_sandboxed_attachments() {
    let app = spawn_app().await;
    open_bucket(&app, "loose").await;
    let active: &[(&str, &str, &[u8])] = &[
        ("page.html", "text/html", HTML),
        ("shouty.html", "Text/HTML; charset=utf-8", HTML),
        ("drawing.svg", "image/svg+xml", SVG),
        ("page.xhtml", "application/xhtml+xml", HTML),
        ("feed.xml", "text/xml", SVG),
        ("app.js", "application/javascript", b"alert(1)"),
        ("anything.bin", "application/x-unknown-thing", HTML),
    ];
    for (name, content_type, body) in active {
        let got = upload_raw(&app, Actor::Service, "loose", name, content_type, body).await;
        assert!(got.status.is_success(), "upload {name}: {}", got.text);
        for (how, got) in every_download(&app, "loose", name).await {
            let what = format!("{how} {name} ({content_type})");
            assert_contained(&got, &what);
            assert_attachment(&got, &what);
        }
    }
}

#[tokio::test]
async fn item_03_inert_files_stay_inline_but_contained() {
    let app = spawn_app().await;
    open_bucket(&app, "loose").await;
    let got = upload_raw(&app, Actor::Service, "loose", "dot.png", "image/png", PNG).await;
    assert!(got.status.is_success(), "{}", got.text);
    for (how, got) in every_download(&app, "loose", "dot.png").await {
        assert_contained(&got, &how);
        assert_eq!(got.header("content-disposition"), None, "{how}");
        assert_eq!(got.header("content-type"), Some("image/png"), "{how}");
    }
    // `?download` still asks for an attachment, under the given name.
    let got = send(reqwest::Client::new().get(format!(
        "{}/storage/v1/object/public/loose/dot.png?download=me.png",
        app.url
    )))
    .await;
    assert_contained(&got, "download");
    assert_eq!(
        got.header("content-disposition"),
        Some("attachment; filename=me.png; filename*=UTF-8''me.png")
    );
}

#[tokio::test]
async fn item_03_a_declared_type_cannot_smuggle_another_type() {
    let app = spawn_app().await;
    let user = create_user(&app, "smuggler@example.com", "Smuggler").await;
    // Browsers read the last type of a list (`a, b`), also after parameters.
    let smuggled = [
        "image/png, text/html",
        "image/png,text/html",
        "image/png; x=y, text/html",
        "image/png; x=\"a,b\"",
        "image/png\ttext/html",
    ];
    for (i, content_type) in smuggled.iter().enumerate() {
        for form in [false, true] {
            let name = format!("{user}/{i}-{form}.png");
            let got = if form {
                upload_form(
                    &app,
                    Actor::User(user),
                    "avatars",
                    &name,
                    content_type,
                    HTML,
                )
                .await
            } else {
                upload_raw(
                    &app,
                    Actor::User(user),
                    "avatars",
                    &name,
                    content_type,
                    HTML,
                )
                .await
            };
            let body = got.json();
            assert_eq!(
                body["statusCode"], "415",
                "{content_type:?} (form: {form}) was accepted: {}",
                got.text
            );
            assert_eq!(body["code"], "InvalidMimeType");
        }
    }
    // A type with parameters is kept as the client declared it, but served
    // only as one clean type.
    let got = upload_raw(
        &app,
        Actor::User(user),
        "avatars",
        &format!("{user}/ok.png"),
        "image/png; charset=binary",
        PNG,
    )
    .await;
    assert!(got.status.is_success(), "{}", got.text);
}

#[tokio::test]
async fn item_03_marketplace_buckets_take_only_the_types_the_spec_needs() {
    let app = spawn_app().await;
    let user = create_user(&app, "creator@example.com", "Creator").await;
    let me = Actor::User(user);
    let refused: &[(&str, &str, &str)] = &[
        ("avatars", "me.svg", "image/svg+xml"),
        ("avatars", "me.html", "text/html"),
        ("avatars", "me.xml", "application/xml"),
        ("templates", "previews/p.svg", "image/svg+xml"),
        ("templates", "files/t.html", "text/html"),
        ("templates", "files/t.xhtml", "application/xhtml+xml"),
        ("templates", "files/t.js", "text/javascript"),
        ("template-files", "files/t.html", "Text/HTML; charset=utf-8"),
        ("template-files", "files/t.svg", "image/svg+xml"),
    ];
    for (bucket, name, content_type) in refused {
        let path = format!("{user}/{name}");
        for form in [false, true] {
            let got = if form {
                upload_form(&app, me, bucket, &path, content_type, SVG).await
            } else {
                upload_raw(&app, me, bucket, &path, content_type, SVG).await
            };
            assert_eq!(
                got.json()["statusCode"],
                "415",
                "{bucket}/{name} as {content_type} (form: {form}): {}",
                got.text
            );
        }
    }
    // ... also through a signed upload URL (its token was minted before the
    // type was known).
    let signed = send(
        storage(
            &app,
            me,
            Method::POST,
            &format!("object/upload/sign/templates/{user}/files/signed.html"),
        )
        .json(&json!({})),
    )
    .await;
    let url = signed.json()["url"].as_str().unwrap().to_owned();
    let got = send(
        reqwest::Client::new()
            .put(format!("{}/storage/v1{url}", app.url))
            .header("content-type", "text/html")
            .body(HTML.to_vec()),
    )
    .await;
    assert_eq!(got.json()["statusCode"], "415", "{}", got.text);

    let accepted: &[(&str, &str, &str)] = &[
        ("avatars", "me.png", "image/png"),
        ("avatars", "me.jpg", "image/jpeg"),
        ("avatars", "me.webp", "image/webp"),
        ("templates", "previews/p.png", "image/png"),
        ("templates", "previews/p.gif", "image/gif"),
        ("templates", "files/t.zip", "application/zip"),
        ("templates", "files/t.pdf", "application/pdf"),
        ("templates", "files/t.md", "text/markdown"),
        ("templates", "files/t.bin", "application/octet-stream"),
        ("template-files", "files/t.zip", "application/zip"),
        ("template-files", "files/t.csv", "text/csv"),
    ];
    for (bucket, name, content_type) in accepted {
        let got = upload_form(
            &app,
            me,
            bucket,
            &format!("{user}/{name}"),
            content_type,
            PNG,
        )
        .await;
        assert!(
            got.status.is_success(),
            "{bucket}/{name} as {content_type}: {}",
            got.text
        );
    }
    // The avatars' 5 MB limit holds for a body that does not say its length.
    let big = vec![0u8; 5 * 1024 * 1024 + 1];
    let got = upload_form(
        &app,
        me,
        "avatars",
        &format!("{user}/big.png"),
        "image/png",
        &big,
    )
    .await;
    assert_eq!(got.json()["statusCode"], "413", "{}", got.text);
}

#[tokio::test]
async fn item_03_the_app_pages_carry_a_content_security_policy() {
    let app = spawn_app().await;
    let got = send(reqwest::Client::new().get(format!("{}/", app.url))).await;
    assert!(got.status.is_success());
    assert_eq!(got.header("x-content-type-options"), Some("nosniff"));
    let csp = got
        .header("content-security-policy")
        .expect("the app page has a CSP");
    for directive in [
        "default-src 'self'",
        "script-src 'self' https://js.stripe.com",
        "object-src 'none'",
        "base-uri 'self'",
        "frame-ancestors 'none'",
    ] {
        assert!(csp.contains(directive), "{directive} in {csp}");
    }
    // The API answers carry nosniff too.
    let got = send(reqwest::Client::new().get(format!("{}/health", app.url))).await;
    assert_eq!(got.header("x-content-type-options"), Some("nosniff"));
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

/// POSTs a JSON body over every limit to `path`: a 413 whose body is the
/// `{"error": …}` shape of functions and realtime.
async fn assert_too_large_as_error(app: &TestApp, path: &str) {
    let got = send(
        reqwest::Client::new()
            .post(format!("{}/{path}", app.url))
            .header("apikey", &app.keys.anon_key)
            .bearer_auth(&app.keys.anon_key)
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
        assert_too_large_as_error(&app, path).await;
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

#[tokio::test]
async fn item_14_auth_answers_a_body_over_the_limit_in_its_shape() {
    let app = spawn_app().await;
    for path in ["signup", "token?grant_type=password", "recover", "otp"] {
        let got = send(
            reqwest::Client::new()
                .post(format!("{}/auth/v1/{path}", app.url))
                .header("apikey", &app.keys.anon_key)
                .header("x-supabase-api-version", "2024-01-01")
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
        let body = got.json();
        assert!(
            body["code"].is_string() && body["message"].is_string(),
            "{path}: {body}"
        );
    }
}

#[tokio::test]
async fn item_14_realtime_broadcast_answers_a_body_over_the_limit_in_its_shape() {
    let app = spawn_app().await;
    for path in [
        "realtime/v1/api/broadcast",
        "realtime/v1/api/broadcast/room/events/hello",
    ] {
        assert_too_large_as_error(&app, path).await;
    }
    let got = send(
        reqwest::Client::new()
            .put(format!("{}/realtime/v1/api/broadcast", app.url))
            .header("apikey", &app.keys.anon_key),
    )
    .await;
    assert_eq!(got.status, StatusCode::METHOD_NOT_ALLOWED);
    assert!(got.json()["error"].is_string(), "{}", got.text);
}
