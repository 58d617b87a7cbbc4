//! Numbers and booleans of request bodies as the platform's validator
//! coerces them: `{"expiresIn": "60"}` is 60 seconds, `"true"` is true, and
//! what is no number is a 400 in storage's error shape.

use super::*;

/// The claims of a signed URL (`.../sign/...?token=<jwt>`).
fn url_claims(url: &str) -> Value {
    use base64::Engine;
    let token = url.split("token=").nth(1).unwrap();
    let payload = token.split('.').nth(1).unwrap();
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

fn lifetime(url: &str) -> i64 {
    let claims = url_claims(url);
    claims["exp"].as_i64().unwrap() - claims["iat"].as_i64().unwrap()
}

#[tokio::test]
async fn expires_in_as_a_string_is_a_number_of_seconds() {
    let app = spawn_app().await;
    for name in ["a.txt", "b.txt"] {
        let r = app
            .upload(&app.service, "private", name, b"hi", "text/plain")
            .await;
        assert_eq!(r.status(), 200);
    }
    let r = app
        .post_json(
            "/object/sign/private/a.txt",
            &app.service,
            json!({ "expiresIn": "60" }),
        )
        .await;
    assert_eq!(r.status(), 200);
    let signed: Value = r.json().await.unwrap();
    let url = signed["signedURL"].as_str().unwrap();
    assert_eq!(lifetime(url), 60);
    let r = app.client.get(app.url(url)).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.bytes().await.unwrap().as_ref(), b"hi");

    let r = app
        .post_json(
            "/object/sign/private",
            &app.service,
            json!({ "expiresIn": " 120 ", "paths": ["a.txt", "b.txt"] }),
        )
        .await;
    assert_eq!(r.status(), 200);
    let many: Value = r.json().await.unwrap();
    for entry in many.as_array().unwrap() {
        assert_eq!(lifetime(entry["signedURL"].as_str().unwrap()), 120);
    }
    // A one-element list and an exponent are numbers too.
    for given in [json!(["90"]), json!("9e1")] {
        let r = app
            .post_json(
                "/object/sign/private/a.txt",
                &app.service,
                json!({ "expiresIn": given }),
            )
            .await;
        assert_eq!(r.status(), 200, "{given}");
        let signed: Value = r.json().await.unwrap();
        assert_eq!(lifetime(signed["signedURL"].as_str().unwrap()), 90);
    }
}

#[tokio::test]
async fn what_is_no_number_is_refused_in_storages_shape() {
    let app = spawn_app().await;
    let r = app
        .upload(&app.service, "private", "a.txt", b"hi", "text/plain")
        .await;
    assert_eq!(r.status(), 200);
    for (path, body, message) in [
        (
            "/object/sign/private/a.txt",
            json!({ "expiresIn": "soon" }),
            "body/expiresIn must be integer",
        ),
        (
            "/object/sign/private/a.txt",
            json!({ "expiresIn": "60.5" }),
            "body/expiresIn must be integer",
        ),
        (
            "/object/sign/private/a.txt",
            json!({ "expiresIn": "Infinity" }),
            "body/expiresIn must pass \"finite\" keyword validation",
        ),
        (
            "/object/sign/private",
            json!({ "expiresIn": {}, "paths": ["a.txt"] }),
            "body/expiresIn must be integer",
        ),
        (
            "/object/list/private",
            json!({ "prefix": "", "limit": "ten" }),
            "body/limit must be integer",
        ),
        (
            "/object/list/private",
            json!({ "prefix": "", "offset": "1e999" }),
            "body/offset must pass \"finite\" keyword validation",
        ),
        (
            "/object/list-v2/private",
            json!({ "limit": "ten" }),
            "body/limit must be integer",
        ),
        (
            "/object/list-v2/private",
            json!({ "with_delimiter": "yes" }),
            "body/with_delimiter must be boolean",
        ),
        (
            "/object/copy",
            json!({ "bucketId": "private", "sourceKey": "a.txt",
                    "destinationKey": "c.txt", "copyMetadata": "maybe" }),
            "body/copyMetadata must be boolean",
        ),
        (
            "/bucket",
            json!({ "name": "flags", "public": "yes" }),
            "body/public must be boolean",
        ),
    ] {
        let r = app.post_json(path, &app.service, body.clone()).await;
        let error = assert_error(r, StatusCode::BAD_REQUEST, "400", "InvalidRequest").await;
        assert_eq!(error["message"], message, "{path} {body}");
    }
}

#[tokio::test]
async fn list_limits_offsets_and_flags_may_be_strings() {
    let app = spawn_app().await;
    for name in ["a.txt", "b.txt", "c.txt", "d/e.txt"] {
        let r = app
            .upload(&app.service, "private", name, b"x", "text/plain")
            .await;
        assert_eq!(r.status(), 200);
    }
    let names = |list: &Value, key: &str| -> Vec<String> {
        list[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let r = app
        .post_json(
            "/object/list/private",
            &app.service,
            json!({ "prefix": "", "limit": "2", "offset": "1",
                    "sortBy": { "column": "name", "order": "asc" } }),
        )
        .await;
    assert_eq!(r.status(), 200);
    let listed = json!({ "objects": r.json::<Value>().await.unwrap() });
    assert_eq!(names(&listed, "objects"), ["b.txt", "c.txt"]);

    let r = app
        .post_json(
            "/object/list-v2/private",
            &app.service,
            json!({ "limit": "3", "with_delimiter": "true" }),
        )
        .await;
    assert_eq!(r.status(), 200);
    let page: Value = r.json().await.unwrap();
    assert_eq!(page["hasNext"], true);
    assert_eq!(names(&page, "objects"), ["a.txt", "b.txt", "c.txt"]);
    let r = app
        .post_json(
            "/object/list-v2/private",
            &app.service,
            json!({ "with_delimiter": "true", "cursor": page["nextCursor"] }),
        )
        .await;
    let rest: Value = r.json().await.unwrap();
    assert_eq!(names(&rest, "folders"), ["d/"]);

    let r = app
        .post_json(
            "/object/copy",
            &app.service,
            json!({ "bucketId": "private", "sourceKey": "a.txt",
                    "destinationKey": "copy.txt", "copyMetadata": "true" }),
        )
        .await;
    assert_eq!(r.status(), 200, "{:?}", r.text().await);
}

#[tokio::test]
async fn bucket_flags_and_sizes_may_be_strings() {
    let app = spawn_app().await;
    let r = app
        .post_json(
            "/bucket",
            &app.service,
            json!({ "name": "strings", "public": "true", "file_size_limit": "2048" }),
        )
        .await;
    assert_eq!(r.status(), 200, "{:?}", r.text().await);
    let bucket: Value = app
        .get("/bucket/strings", &app.service)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(bucket["public"], true);
    assert_eq!(bucket["file_size_limit"], 2048);
    let r = app
        .request(reqwest::Method::PUT, "/bucket/strings", &app.service)
        .json(&json!({ "public": "false", "file_size_limit": "3e3" }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "{:?}", r.text().await);
    let bucket: Value = app
        .get("/bucket/strings", &app.service)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(bucket["public"], false);
    assert_eq!(bucket["file_size_limit"], 3000);
}
