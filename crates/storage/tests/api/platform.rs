//! Wire details as the platform storage server has them: the exact field
//! sets of `info` and of buckets, its size strings and its words for a
//! missing token.

use super::*;

fn keys(value: &Value) -> Vec<String> {
    let mut keys: Vec<String> = value.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    keys
}

#[tokio::test]
async fn info_has_exactly_the_platform_fields_and_empty_metadata() {
    let app = spawn_app().await;
    let r = app
        .upload(
            &app.service,
            "public-bucket",
            "plain.txt",
            b"hi",
            "text/plain",
        )
        .await;
    assert_eq!(r.status(), 200);
    let info: Value = app
        .get("/object/info/public-bucket/plain.txt", &app.service)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        keys(&info),
        [
            "bucket_id",
            "cache_control",
            "content_type",
            "created_at",
            "etag",
            "id",
            "last_modified",
            "metadata",
            "name",
            "size",
            "version"
        ]
    );
    assert_eq!(info["metadata"], json!({}));
    assert_eq!(info["size"], 2);
}

#[tokio::test]
async fn bucket_json_and_sizes_are_the_platforms() {
    let app = spawn_app().await;
    let r = app
        .post_json(
            "/bucket",
            &app.service,
            json!({ "id": "sized", "name": "sized", "file_size_limit": "200KB" }),
        )
        .await;
    assert_eq!(r.status(), 200, "{:?}", r.text().await);
    let bucket: Value = app
        .get("/bucket/sized", &app.service)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(bucket["file_size_limit"], 200_000);
    // what the platform's get selects: no owner_id, no type
    assert_eq!(
        keys(&bucket),
        [
            "allowed_mime_types",
            "created_at",
            "file_size_limit",
            "id",
            "name",
            "owner",
            "public",
            "updated_at"
        ]
    );
    // 200,001 bytes is over a "200KB" limit
    let r = app
        .upload(
            &app.service,
            "sized",
            "big.bin",
            &vec![0u8; 200_001],
            "application/octet-stream",
        )
        .await;
    assert_error(r, StatusCode::BAD_REQUEST, "413", "EntityTooLarge").await;
    for bad in ["1 GB", "5m", "lots", "1.5", "-1"] {
        let r = app
            .post_json(
                "/bucket",
                &app.service,
                json!({ "id": "bad", "name": "bad", "file_size_limit": bad }),
            )
            .await;
        let body = assert_error(r, StatusCode::BAD_REQUEST, "400", "InvalidRequest").await;
        assert_eq!(
            body["message"], "Invalid file size format, hint: use 20GB / 20MB / 30KB / 3B",
            "{bad}"
        );
    }
}

#[tokio::test]
async fn a_missing_token_is_refused_in_the_platforms_words() {
    let app = spawn_app().await;
    for path in [
        "/bucket",
        "/object/info/private/a.png",
        "/render/image/authenticated/private/a.png",
    ] {
        let r = app.client.get(app.url(path)).send().await.unwrap();
        let body = assert_error(r, StatusCode::BAD_REQUEST, "403", "AccessDenied").await;
        assert_eq!(body["message"], "Invalid Compact JWS", "{path}");
        assert_eq!(body["error"], "Unauthorized");
    }
}

/// `STORAGE_FILE_ETAG_ALGORITHM`: the MD5 of the bytes by default, also for
/// uploads large enough to be hashed beside their writes; with `mtime` on
/// the file system store, upload time and size in hex as the platform's
/// file backend makes them (S3 always hashes).
#[tokio::test]
async fn etags_are_the_md5_or_with_mtime_the_time_and_size() {
    use md5::{Digest, Md5};
    let app = spawn_app().await;
    let body = pattern(7, 3 * 1024 * 1024 + 11);
    let md5: String = Md5::digest(&body)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let server = |etag| {
        let mut config = app.config(Duration::from_secs(3600));
        config.file_size_limit = 8 * 1024 * 1024;
        config.file_etag = etag;
        app.serve_with(config)
    };
    let upload = |addr: SocketAddr, name: &'static str| {
        app.client
            .post(format!("http://{addr}/object/public-bucket/{name}"))
            .bearer_auth(&app.service)
            .header("content-type", "application/octet-stream")
            .body(body.clone())
            .send()
    };
    let (app, body) = (&app, &body);
    let download = |name: &'static str| async move {
        let r = app
            .get(&format!("/object/public/public-bucket/{name}"), &app.anon)
            .await;
        let etag = r.headers()["etag"].to_str().unwrap().to_owned();
        assert_eq!(r.bytes().await.unwrap().as_ref(), &body[..]);
        etag
    };

    let hashing = server(plinth_storage::FileEtag::Md5).await;
    assert_eq!(upload(hashing, "large.bin").await.unwrap().status(), 200);
    assert_eq!(download("large.bin").await, format!("\"{md5}\""));

    let timed = server(plinth_storage::FileEtag::Mtime).await;
    let before = chrono::Utc::now().timestamp_millis();
    assert_eq!(upload(timed, "timed.bin").await.unwrap().status(), 200);
    let after = chrono::Utc::now().timestamp_millis();
    let etag = download("timed.bin").await;
    if matches!(app.backend, Backend::S3(_)) {
        assert_eq!(etag, format!("\"{md5}\""));
    } else {
        let inner = etag.trim_matches('"');
        let (ms, size) = inner.split_once('-').unwrap();
        assert_eq!(u64::from_str_radix(size, 16).unwrap(), body.len() as u64);
        let ms = i64::from_str_radix(ms, 16).unwrap();
        assert!(before <= ms && ms <= after, "{before} <= {ms} <= {after}");
    }
}

/// `?download=name` names the attachment as the platform writes it (the
/// name through `encodeURIComponent`, in `filename` and `filename*`), on
/// every download route; `?download=` alone is `attachment;`. No name can
/// end the header or add a parameter: what would is percent-encoded.
#[tokio::test]
async fn downloads_are_named_as_the_platform_names_them_and_nothing_more() {
    let app = spawn_app().await;
    let r = app
        .upload(
            &app.service,
            "public-bucket",
            "notes.txt",
            b"hi",
            "text/plain",
        )
        .await;
    assert_eq!(r.status(), 200);
    let r = app
        .upload(
            &app.service,
            "public-bucket",
            "dot.png",
            &render::png(4, 4),
            "image/png",
        )
        .await;
    assert_eq!(r.status(), 200);
    let signed: Value = app
        .post_json(
            "/object/sign/public-bucket/notes.txt",
            &app.service,
            json!({ "expiresIn": 60 }),
        )
        .await
        .json()
        .await
        .unwrap();
    let signed = signed["signedURL"].as_str().unwrap().to_owned();
    let routes = [
        "/object/public-bucket/notes.txt".to_owned(),
        "/object/authenticated/public-bucket/notes.txt".to_owned(),
        "/object/public/public-bucket/notes.txt".to_owned(),
        signed,
        "/render/image/public/public-bucket/dot.png?width=2".to_owned(),
        "/render/image/authenticated/public-bucket/dot.png?width=2".to_owned(),
    ];
    let cases = [
        // name as sent (percent-encoded in the query) -> header
        (
            "report.txt",
            "attachment; filename=report.txt; filename*=UTF-8''report.txt",
        ),
        (
            "My%20Notes%20%28v2%29.txt",
            "attachment; filename=My%20Notes%20(v2).txt; filename*=UTF-8''My%20Notes%20(v2).txt",
        ),
        (
            "%22quoted%22%20it's.txt",
            "attachment; filename=%22quoted%22%20it's.txt; filename*=UTF-8''%22quoted%22%20it's.txt",
        ),
        (
            "r%C3%A9sum%C3%A9%20%E2%9C%93.txt",
            "attachment; filename=r%C3%A9sum%C3%A9%20%E2%9C%93.txt; \
             filename*=UTF-8''r%C3%A9sum%C3%A9%20%E2%9C%93.txt",
        ),
        ("", "attachment;"),
        // the attacks: a header of its own, a parameter of its own
        (
            "a.txt%0D%0ASet-Cookie:%20stolen=1",
            "attachment; filename=a.txt%0D%0ASet-Cookie%3A%20stolen%3D1; \
             filename*=UTF-8''a.txt%0D%0ASet-Cookie%3A%20stolen%3D1",
        ),
        (
            "x%22;%20filename=%22evil.html",
            "attachment; filename=x%22%3B%20filename%3D%22evil.html; \
             filename*=UTF-8''x%22%3B%20filename%3D%22evil.html",
        ),
    ];
    for route in &routes {
        for (name, expected) in cases {
            let sep = if route.contains('?') { '&' } else { '?' };
            let r = app
                .get(&format!("{route}{sep}download={name}"), &app.service)
                .await;
            assert_eq!(r.status(), 200, "{route} {name}");
            let dispositions: Vec<_> = r.headers().get_all("content-disposition").iter().collect();
            assert_eq!(dispositions, [expected], "{route} {name}");
            assert!(r.headers().get("set-cookie").is_none(), "{route} {name}");
            // one attachment, one filename and one filename*, whatever the name
            let parameters: Vec<&str> = expected.split(';').map(str::trim).collect();
            assert!(parameters.len() <= 3, "{expected}");
        }
    }
}

/// Get, list and create answer with the platform's fields: a get has no
/// `owner_id` and no `type`, a list has `type` (but for the Python clients
/// that predate it), a create echoes the name given; times are JavaScript's
/// (milliseconds, `Z`) and a missing owner is `""`.
#[tokio::test]
async fn bucket_answers_have_exactly_the_platforms_fields() {
    let app = spawn_app().await;
    let r = app
        .post_json(
            "/bucket",
            &app.service,
            json!({ "id": "wire-id", "name": "wire-name", "public": true,
                    "allowed_mime_types": ["text/plain"] }),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.json::<Value>().await.unwrap(),
        json!({ "name": "wire-name" })
    );

    let got: Value = app
        .get("/bucket/wire-id", &app.service)
        .await
        .json()
        .await
        .unwrap();
    let expected_get = [
        "allowed_mime_types",
        "created_at",
        "file_size_limit",
        "id",
        "name",
        "owner",
        "public",
        "updated_at",
    ];
    assert_eq!(keys(&got), expected_get);
    assert_eq!(got["id"], "wire-id");
    assert_eq!(got["name"], "wire-name");
    assert_eq!(got["owner"], "");
    assert_eq!(got["public"], true);
    assert_eq!(got["file_size_limit"], Value::Null);
    assert_eq!(got["allowed_mime_types"], json!(["text/plain"]));
    let created = got["created_at"].as_str().unwrap();
    assert_eq!(created.len(), "2021-02-17T04:43:32.770Z".len(), "{created}");
    assert!(created.ends_with('Z'), "{created}");

    let list = |header: Option<(&'static str, &'static str)>| {
        let mut request = app.request(reqwest::Method::GET, "/bucket", &app.service);
        if let Some((name, value)) = header {
            request = request.header(name, value);
        }
        async move {
            let all: Value = request.send().await.unwrap().json().await.unwrap();
            all.as_array()
                .unwrap()
                .iter()
                .find(|b| b["id"] == "wire-id")
                .unwrap()
                .clone()
        }
    };
    let listed = list(None).await;
    let mut expected_list: Vec<&str> = expected_get.to_vec();
    expected_list.push("type");
    expected_list.sort();
    assert_eq!(keys(&listed), expected_list);
    assert_eq!(listed["type"], "STANDARD");
    assert_eq!(listed["created_at"], got["created_at"]);
    // what a current Python client sends keeps `type`; older ones lose it
    let current = list(Some(("x-client-info", "supabase-py/2.18.0"))).await;
    assert_eq!(keys(&current), expected_list);
    for old in [
        ("x-client-info", "supabase-py/2.17.0"),
        ("user-agent", "supabase-py/storage3 v0.12.0"),
    ] {
        assert_eq!(keys(&list(Some(old)).await), expected_get, "{old:?}");
    }
}
