//! Resumable uploads (TUS 1.0.0) at `/upload/resumable`, on the same
//! harness (and so on both byte stores) as the rest of the API suite.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};

use super::*;

fn b64(value: &str) -> String {
    STANDARD.encode(value)
}

fn metadata(bucket: &str, name: &str, content_type: &str) -> String {
    format!(
        "bucketName {},objectName {},contentType {},cacheControl {}",
        b64(bucket),
        b64(name),
        b64(content_type),
        b64("60")
    )
}

impl App {
    fn tus(&self, method: reqwest::Method, url: &str, token: &str) -> reqwest::RequestBuilder {
        let url = if url.starts_with("http") {
            url.to_owned()
        } else {
            self.url(url)
        };
        self.client
            .request(method, url)
            .header("apikey", &self.anon)
            .header("tus-resumable", "1.0.0")
            .bearer_auth(token)
    }

    /// Creates an upload; returns the response.
    async fn tus_create(
        &self,
        token: &str,
        length: u64,
        metadata: &str,
        upsert: bool,
    ) -> reqwest::Response {
        let mut request = self
            .tus(reqwest::Method::POST, "/upload/resumable", token)
            .header("upload-length", length.to_string())
            .header("upload-metadata", metadata);
        if upsert {
            request = request.header("x-upsert", "true");
        }
        request.send().await.unwrap()
    }

    async fn tus_created(&self, token: &str, length: u64, metadata: &str) -> String {
        let response = self.tus_create(token, length, metadata, false).await;
        assert_eq!(response.status(), 201, "{:?}", response.text().await);
        response.headers()["location"].to_str().unwrap().to_owned()
    }

    async fn tus_patch(
        &self,
        token: &str,
        location: &str,
        offset: u64,
        body: &[u8],
    ) -> reqwest::Response {
        self.tus(reqwest::Method::PATCH, location, token)
            .header("upload-offset", offset.to_string())
            .header("content-type", "application/offset+octet-stream")
            .body(body.to_vec())
            .send()
            .await
            .unwrap()
    }

    async fn tus_offset(&self, token: &str, location: &str) -> (u16, Option<u64>) {
        let response = self
            .tus(reqwest::Method::HEAD, location, token)
            .send()
            .await
            .unwrap();
        let offset = response
            .headers()
            .get("upload-offset")
            .map(|v| v.to_str().unwrap().parse().unwrap());
        (response.status().as_u16(), offset)
    }

    /// Keys under the resumable uploads' staging area.
    fn staged_files(&self) -> Vec<String> {
        self.stored_files()
            .into_iter()
            .filter(|f| f.starts_with("tus/") && f.contains("/parts/"))
            .collect()
    }
}

#[tokio::test]
async fn tus_options_advertise_the_protocol_and_limits() {
    let app = spawn_app().await;
    let response = app
        .client
        .request(reqwest::Method::OPTIONS, app.url("/upload/resumable"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
    let h = response.headers();
    assert_eq!(h["tus-resumable"], "1.0.0");
    assert_eq!(h["tus-version"], "1.0.0");
    let extensions = h["tus-extension"].to_str().unwrap();
    assert!(extensions.contains("creation") && extensions.contains("termination"));
    assert!(extensions.split(',').any(|e| e == "creation-defer-length"));
    assert_eq!(h["tus-max-size"], GLOBAL_LIMIT.to_string().as_str());
}

#[tokio::test]
async fn tus_upload_in_chunks_commits_the_object_with_its_metadata() {
    let app = spawn_app().await;
    let alice = Uuid::new_v4();
    let token = app.user(alice);
    let name = format!("{alice}/big file.bin");
    let data = pattern(7, 100_000);
    let location = app
        .tus_created(
            &token,
            data.len() as u64,
            &format!(
                "{},metadata {}",
                metadata("private", &name, "application/pdf"),
                b64(r#"{"album":"x"}"#)
            ),
        )
        .await;
    // the platform's URL form: the route, then base64url("bucket/name/uuid")
    let prefix = app.url("/upload/resumable/");
    assert!(location.starts_with(&prefix), "{location}");
    let decoded =
        String::from_utf8(URL_SAFE_NO_PAD.decode(&location[prefix.len()..]).unwrap()).unwrap();
    assert!(
        decoded.starts_with(&format!("private/{name}/")),
        "{decoded}"
    );

    assert_eq!(app.tus_offset(&token, &location).await, (200, Some(0)));
    let mut offset = 0u64;
    for chunk in data.chunks(30_000) {
        assert_eq!(
            app.row_count("private", &name).await,
            0,
            "no row before the end"
        );
        let response = app.tus_patch(&token, &location, offset, chunk).await;
        assert_eq!(response.status(), 204);
        offset += chunk.len() as u64;
        assert_eq!(
            response.headers()["upload-offset"],
            offset.to_string().as_str()
        );
        assert_eq!(response.headers()["tus-resumable"], "1.0.0");
    }
    assert_eq!(app.row_count("private", &name).await, 1);
    let download = app.get(&format!("/object/private/{name}"), &token).await;
    assert_eq!(download.status(), 200);
    assert_eq!(download.headers()["content-type"], "application/pdf");
    assert_eq!(download.headers()["cache-control"], "max-age=60");
    assert_eq!(download.bytes().await.unwrap().as_ref(), &data[..]);
    let owner: Option<String> = sqlx::query_scalar(
        "select owner_id from storage.objects where bucket_id = 'private' and name = $1",
    )
    .bind(&name)
    .fetch_one(&app.test_db.db.owner)
    .await
    .unwrap();
    assert_eq!(owner, Some(alice.to_string()));
    let info: Value = app
        .get(&format!("/object/info/private/{name}"), &token)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(info["metadata"], json!({"album": "x"}));
    assert_eq!(info["size"], data.len());
    // the staged parts are gone; HEAD still says it is complete
    assert!(app.staged_files().is_empty(), "{:?}", app.staged_files());
    assert_eq!(
        app.tus_offset(&token, &location).await,
        (200, Some(data.len() as u64))
    );
    // a finished upload cannot be terminated
    let response = app
        .tus(reqwest::Method::DELETE, &location, &token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
}

#[tokio::test]
async fn tus_creation_with_upload_and_empty_files_finish_at_once() {
    let app = spawn_app().await;
    let response = app
        .tus(reqwest::Method::POST, "/upload/resumable", &app.service)
        .header("upload-length", "5")
        .header(
            "upload-metadata",
            metadata("private", "one-go.txt", "text/plain"),
        )
        .header("content-type", "application/offset+octet-stream")
        .body("hello")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    assert_eq!(response.headers()["upload-offset"], "5");
    assert_eq!(response.headers()["tus-complete"], "1");
    assert_eq!(
        app.get("/object/private/one-go.txt", &app.service)
            .await
            .bytes()
            .await
            .unwrap()
            .as_ref(),
        b"hello"
    );
    let response = app
        .tus_create(
            &app.service,
            0,
            &metadata("private", "empty.txt", "text/plain"),
            false,
        )
        .await;
    assert_eq!(response.status(), 201);
    assert_eq!(app.row_count("private", "empty.txt").await, 1);
}

#[tokio::test]
async fn tus_resumes_after_a_dropped_connection_and_refuses_offset_games() {
    let app = spawn_app().await;
    let bob = Uuid::new_v4();
    let token = app.user(bob);
    let name = format!("{bob}/resumed.bin");
    let data = pattern(3, 64_000);
    let location = app
        .tus_created(
            &token,
            data.len() as u64,
            &metadata("private", &name, "text/plain"),
        )
        .await;

    // a PATCH that promises 64000 bytes and drops after 20000
    let url = reqwest::Url::parse(&location).unwrap();
    let mut stream = tokio::net::TcpStream::connect(app.addr).await.unwrap();
    let head = format!(
        "PATCH {} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {token}\r\n\
         Tus-Resumable: 1.0.0\r\nUpload-Offset: 0\r\n\
         Content-Type: application/offset+octet-stream\r\nContent-Length: {}\r\n\r\n",
        url.path(),
        data.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&data[..20_000]).await.unwrap();
    stream.flush().await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    drop(stream);

    // the bytes that arrived are kept
    let mut kept = None;
    for _ in 0..50 {
        let (status, offset) = app.tus_offset(&token, &location).await;
        assert_eq!(status, 200);
        if offset == Some(20_000) {
            kept = offset;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        kept,
        Some(20_000),
        "bytes received before the drop are kept"
    );
    assert_eq!(app.row_count("private", &name).await, 0);

    // offset games: behind, ahead, missing, not a number
    for claimed in [0u64, 10_000, 20_001, 64_000] {
        let response = app.tus_patch(&token, &location, claimed, b"x").await;
        assert_eq!(response.status(), 409, "offset {claimed}");
        assert!(
            response
                .text()
                .await
                .unwrap()
                .contains("Upload-Offset conflict")
        );
    }
    let response = app
        .tus(reqwest::Method::PATCH, &location, &token)
        .header("content-type", "application/offset+octet-stream")
        .body("x")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
    let response = app
        .tus(reqwest::Method::PATCH, &location, &token)
        .header("upload-offset", "-1")
        .header("content-type", "application/offset+octet-stream")
        .body("x")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
    // more bytes than the upload's length
    let mut too_much = data[20_000..].to_vec();
    too_much.extend_from_slice(b"overflow");
    let response = app.tus_patch(&token, &location, 20_000, &too_much).await;
    assert_eq!(response.status(), 413);
    assert_eq!(app.row_count("private", &name).await, 0);
    assert_eq!(app.tus_offset(&token, &location).await.1, Some(20_000));
    // a wrong content type
    let response = app
        .tus(reqwest::Method::PATCH, &location, &token)
        .header("upload-offset", "20000")
        .header("content-type", "text/plain")
        .body("x")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 415);
    // without the protocol header
    let response = app
        .request(reqwest::Method::HEAD, url.path(), &token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 412);

    // the rest completes the object with exactly the bytes sent
    let response = app
        .tus_patch(&token, &location, 20_000, &data[20_000..])
        .await;
    assert_eq!(response.status(), 204);
    assert_eq!(response.headers()["tus-complete"], "1");
    assert_eq!(
        app.get(&format!("/object/private/{name}"), &token)
            .await
            .bytes()
            .await
            .unwrap()
            .as_ref(),
        &data[..]
    );
}

#[tokio::test]
async fn tus_a_stalled_patch_is_taken_over_by_the_next_request() {
    let app = spawn_app().await;
    let data = pattern(5, 50_000);
    let location = app
        .tus_created(
            &app.service,
            data.len() as u64,
            &metadata("private", "stalled.bin", "text/plain"),
        )
        .await;
    // a client that sends part of its body and then goes silent, connection open
    let url = reqwest::Url::parse(&location).unwrap();
    let mut stream = tokio::net::TcpStream::connect(app.addr).await.unwrap();
    let head = format!(
        "PATCH {} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {}\r\n\
         Tus-Resumable: 1.0.0\r\nUpload-Offset: 0\r\n\
         Content-Type: application/offset+octet-stream\r\nContent-Length: {}\r\n\r\n",
        url.path(),
        app.service,
        data.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&data[..12_345]).await.unwrap();
    stream.flush().await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    // the next request does not wait for it: the stalled one lets go, keeping its bytes
    let started = std::time::Instant::now();
    assert_eq!(
        app.tus_offset(&app.service, &location).await,
        (200, Some(12_345))
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    let response = app
        .tus_patch(&app.service, &location, 12_345, &data[12_345..])
        .await;
    assert_eq!(response.status(), 204);
    assert_eq!(response.headers()["tus-complete"], "1");
    drop(stream);
    assert_eq!(
        app.get("/object/private/stalled.bin", &app.service)
            .await
            .bytes()
            .await
            .unwrap()
            .as_ref(),
        &data[..]
    );
}

#[tokio::test]
async fn tus_creation_checks_limits_permissions_and_names() {
    let app = spawn_app().await;
    let alice = Uuid::new_v4();
    let token = app.user(alice);
    let mine = |file: &str| format!("{alice}/{file}");

    // no token: the storage error shape, as every other route
    let response = app
        .client
        .post(app.url("/upload/resumable"))
        .header("tus-resumable", "1.0.0")
        .header("upload-length", "1")
        .header(
            "upload-metadata",
            metadata("private", &mine("a"), "text/plain"),
        )
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::BAD_REQUEST, "403", "AccessDenied").await;

    // overflowing Upload-Length: over the global limit, over the bucket's, not a number
    let response = app
        .tus_create(
            &token,
            GLOBAL_LIMIT + 1,
            &metadata("private", &mine("a"), "text/plain"),
            false,
        )
        .await;
    assert_eq!(response.status(), 413);
    let response = app
        .tus_create(
            &app.service,
            1025,
            &metadata("images", "big.png", "image/png"),
            false,
        )
        .await;
    assert_eq!(response.status(), 413);
    for bad in ["-1", "1e3", "18446744073709551616", ""] {
        let response = app
            .tus(reqwest::Method::POST, "/upload/resumable", &token)
            .header("upload-length", bad)
            .header(
                "upload-metadata",
                metadata("private", &mine("a"), "text/plain"),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 400, "Upload-Length {bad:?}");
    }
    // the bucket's types
    let response = app
        .tus_create(
            &app.service,
            10,
            &metadata("images", "x.html", "text/html"),
            false,
        )
        .await;
    assert_eq!(response.status(), 415);
    // a missing bucket
    let response = app
        .tus_create(
            &token,
            10,
            &metadata("nope", &mine("a"), "text/plain"),
            false,
        )
        .await;
    assert_eq!(response.status(), 404);
    assert_eq!(response.text().await.unwrap(), "Bucket not found");
    // row-level security, as the caller: someone else's folder, anon
    let other = Uuid::new_v4();
    let response = app
        .tus_create(
            &token,
            10,
            &metadata("private", &format!("{other}/a"), "text/plain"),
            false,
        )
        .await;
    assert_eq!(response.status(), 403);
    let response = app
        .tus_create(
            &app.anon,
            10,
            &metadata("private", &mine("a"), "text/plain"),
            false,
        )
        .await;
    assert_eq!(response.status(), 403);
    // path traversal and malformed names or metadata
    for name in ["../../etc/passwd", "a/../b", "/abs", "a//b", ""] {
        let response = app
            .tus_create(&token, 10, &metadata("private", name, "text/plain"), false)
            .await;
        assert_eq!(response.status(), 400, "{name:?}");
    }
    for header in [
        "bucketName !!!",
        "bucketName",
        "a b c",
        "bucketName cHJpdmF0ZQ==,bucketName cHJpdmF0ZQ==",
    ] {
        let response = app.tus_create(&token, 10, header, false).await;
        assert_eq!(response.status(), 400, "{header:?}");
    }
    let response = app
        .tus(reqwest::Method::POST, "/upload/resumable", &token)
        .header("upload-length", "1")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    assert_eq!(
        response.text().await.unwrap(),
        "Metadata header is required"
    );
    assert!(app.stored_files().is_empty(), "{:?}", app.stored_files());

    // an existing object: 409 without upsert; upsert needs the update permission
    assert_eq!(
        app.upload(&token, "private", &mine("taken.txt"), b"old", "text/plain")
            .await
            .status(),
        200
    );
    let response = app
        .tus_create(
            &token,
            3,
            &metadata("private", &mine("taken.txt"), "text/plain"),
            false,
        )
        .await;
    assert_eq!(response.status(), 409);
    let response = app
        .tus_create(
            &token,
            3,
            &metadata("private", &mine("taken.txt"), "text/plain"),
            true,
        )
        .await;
    assert_eq!(response.status(), 201);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    assert_eq!(
        app.tus_patch(&token, &location, 0, b"new").await.status(),
        204
    );
    assert_eq!(
        app.get(&format!("/object/private/{}", mine("taken.txt")), &token)
            .await
            .bytes()
            .await
            .unwrap()
            .as_ref(),
        b"new"
    );
    let files = app
        .stored_files_once(|f| f.iter().filter(|f| f.starts_with("objects/")).count() == 1)
        .await;
    assert_eq!(
        files.iter().filter(|f| f.starts_with("objects/")).count(),
        1,
        "the replaced bytes are removed"
    );
}

#[tokio::test]
async fn tus_uploads_belong_to_their_creator() {
    let app = spawn_app().await;
    let alice = Uuid::new_v4();
    let mallory = Uuid::new_v4();
    let alice_token = app.user(alice);
    let mallory_token = app.user(mallory);
    let name = format!("{alice}/secret.txt");
    let location = app
        .tus_created(&alice_token, 10, &metadata("private", &name, "text/plain"))
        .await;
    // someone else's upload id: not found for every method
    assert_eq!(app.tus_offset(&mallory_token, &location).await.0, 404);
    let response = app
        .tus_patch(&mallory_token, &location, 0, b"0123456789")
        .await;
    assert_eq!(response.status(), 404);
    let response = app
        .tus(reqwest::Method::DELETE, &location, &mallory_token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    // an id naming another object with the same upload: not found
    let prefix = app.url("/upload/resumable/");
    let decoded =
        String::from_utf8(URL_SAFE_NO_PAD.decode(&location[prefix.len()..]).unwrap()).unwrap();
    let upload = decoded.rsplit('/').next().unwrap();
    let forged = URL_SAFE_NO_PAD.encode(format!("private/{mallory}/x.txt/{upload}"));
    let response = app
        .tus_patch(
            &mallory_token,
            &format!("/upload/resumable/{forged}"),
            0,
            b"0123456789",
        )
        .await;
    assert_eq!(response.status(), 404);
    for junk in [
        "not-base64!",
        "Li4vLi4vZXRjL3Bhc3N3ZA",
        "..%2F..%2Fetc%2Fpasswd",
    ] {
        let (status, _) = app
            .tus_offset(&alice_token, &format!("/upload/resumable/{junk}"))
            .await;
        assert_eq!(status, 404, "{junk}");
    }
    assert_eq!(
        app.tus_offset(&alice_token, &location).await,
        (200, Some(0))
    );
    assert_eq!(app.row_count("private", &name).await, 0);

    // the creator may terminate it; the staged bytes go
    assert_eq!(
        app.tus_patch(&alice_token, &location, 0, b"01234")
            .await
            .status(),
        204
    );
    assert_eq!(app.staged_files().len(), 1);
    let response = app
        .tus(reqwest::Method::DELETE, &location, &alice_token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
    assert_eq!(app.tus_offset(&alice_token, &location).await.0, 404);
    assert!(app.stored_files().is_empty(), "{:?}", app.stored_files());
}

#[tokio::test]
async fn tus_expired_uploads_are_gone_and_swept() {
    let app = spawn_app().await;
    let location = app
        .tus_created(
            &app.service,
            10,
            &metadata("private", "late.txt", "text/plain"),
        )
        .await;
    assert_eq!(
        app.tus_patch(&app.service, &location, 0, b"01234")
            .await
            .status(),
        204
    );
    // a second server whose uploads expire at once
    let mut config = app.config(Duration::from_secs(3600));
    config.tus_url_expiry = Duration::ZERO;
    let expiring = app.serve_with(config).await;
    let response = app
        .client
        .post(format!("http://{expiring}/upload/resumable"))
        .header("tus-resumable", "1.0.0")
        .bearer_auth(&app.service)
        .header("upload-length", "10")
        .header(
            "upload-metadata",
            metadata("private", "never.txt", "text/plain"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    let stale = response.headers()["location"].to_str().unwrap().to_owned();
    let response = app
        .client
        .head(&stale)
        .header("tus-resumable", "1.0.0")
        .bearer_auth(&app.service)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 410);
    // a restart sweeps what expired and keeps what did not
    let upload_of = |location: &str| {
        let id = location.rsplit('/').next().unwrap();
        let decoded = String::from_utf8(URL_SAFE_NO_PAD.decode(id).unwrap()).unwrap();
        decoded.rsplit('/').next().unwrap().to_owned()
    };
    let stale_info = format!("tus/{}/info.json", upload_of(&stale));
    let live_info = format!("tus/{}/info.json", upload_of(&location));
    assert!(app.stored_files().contains(&stale_info));
    let staged = app.staged_files();
    assert_eq!(staged.len(), 1);
    StorageState::new(
        app.test_db.db.clone(),
        app.jwt.clone(),
        app.config(Duration::from_secs(3600)),
    )
    .await
    .unwrap();
    let files = app.stored_files();
    assert!(!files.contains(&stale_info), "{files:?}");
    assert!(files.contains(&live_info), "{files:?}");
    assert_eq!(app.staged_files(), staged);
    assert_eq!(
        app.tus_offset(&app.service, &location).await,
        (200, Some(5))
    );
}

#[tokio::test]
async fn large_files_go_up_whole_and_resumable_on_either_store() {
    // 12 MB: more than one multipart part on S3 (parts of 8 MiB)
    let app = spawn_app().await;
    let mut config = app.config(Duration::from_secs(3600));
    config.file_size_limit = 20_000_000;
    let addr = app.serve_with(config).await;
    let data = pattern(11, 12_000_000);
    let response = app
        .client
        .post(format!("http://{addr}/object/private/large.bin"))
        .bearer_auth(&app.service)
        .header("content-type", "application/octet-stream")
        .body(data.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let range = app
        .client
        .get(format!("http://{addr}/object/private/large.bin"))
        .bearer_auth(&app.service)
        .header("range", "bytes=8388600-8388615")
        .send()
        .await
        .unwrap();
    assert_eq!(range.status(), 206);
    assert_eq!(
        range.bytes().await.unwrap().as_ref(),
        &data[8_388_600..8_388_616]
    );

    let response = app
        .client
        .post(format!("http://{addr}/upload/resumable"))
        .header("tus-resumable", "1.0.0")
        .bearer_auth(&app.service)
        .header("upload-length", data.len().to_string())
        .header(
            "upload-metadata",
            metadata("private", "large-tus.bin", "application/octet-stream"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    assert!(location.starts_with(&format!("http://{addr}/upload/resumable/")));
    for (offset, chunk) in [(0, &data[..6_000_000]), (6_000_000, &data[6_000_000..])] {
        let response = app.tus_patch(&app.service, &location, offset, chunk).await;
        assert_eq!(response.status(), 204);
    }
    for name in ["large.bin", "large-tus.bin"] {
        let body = app
            .client
            .get(format!("http://{addr}/object/private/{name}"))
            .bearer_auth(&app.service)
            .send()
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        assert!(body.as_ref() == &data[..], "{name} differs");
    }
    assert_eq!(app.object_files().len(), 2, "{:?}", app.stored_files());
    assert!(app.staged_files().is_empty());
}

/// `/upload/resumable/sign`: the token of a signed upload URL, sent as
/// `x-signature` on every request, stands in for the JWT, as on the
/// platform. It writes only the object it names, as its owner, replaces
/// only when signed with `x-upsert`, and stops working when it expires.
#[tokio::test]
async fn signed_resumable_uploads_write_only_the_signed_object_until_expiry() {
    let app = spawn_app().await;
    let alice = Uuid::new_v4();
    let alice_token = app.user(alice);
    let name = format!("{alice}/signed.bin");
    let sign = |name: String| {
        let (app, token) = (&app, alice_token.clone());
        async move {
            let signed = app.sign_upload(&token, "private", &name).await;
            signed["token"].as_str().unwrap().to_owned()
        }
    };
    let signature = sign(name.clone()).await;
    // a second token for the same object, signed before it exists
    let again = sign(name.clone()).await;
    let signed_request = |method: reqwest::Method, url: &str, signature: Option<&str>| {
        let url = if url.starts_with("http") {
            url.to_owned()
        } else {
            app.url(url)
        };
        let request = app
            .client
            .request(method, url)
            .header("apikey", &app.anon)
            .header("tus-resumable", "1.0.0");
        match signature {
            Some(s) => request.header("x-signature", s),
            None => request,
        }
    };
    let create = |signature: Option<&str>, object: &str| {
        signed_request(reqwest::Method::POST, "/upload/resumable/sign", signature)
            .header("upload-length", "10")
            .header(
                "upload-metadata",
                metadata("private", object, "application/octet-stream"),
            )
            .send()
    };

    // refused: no signature, a token for another object, a tampered one,
    // the token on the JWT route
    let r = create(None, &name).await.unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(r.text().await.unwrap(), "Missing x-signature header");
    let r = create(Some(&signature), &format!("{alice}/other.bin"))
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(r.text().await.unwrap(), "Invalid signature for this object");
    let mut tampered = signature.clone();
    tampered.pop();
    tampered.push(if signature.ends_with('A') { 'B' } else { 'A' });
    let r = create(Some(&tampered), &name).await.unwrap();
    assert_eq!(r.status(), 403);
    let r = signed_request(reqwest::Method::POST, "/upload/resumable", Some(&signature))
        .header("upload-length", "10")
        .header(
            "upload-metadata",
            metadata("private", &name, "application/octet-stream"),
        )
        .send()
        .await
        .unwrap();
    assert!(r.status().is_client_error(), "{}", r.status());
    assert!(app.staged_files().is_empty() && app.object_files().is_empty());

    // the upload, in two parts, resumed after asking the offset
    let r = create(Some(&signature), &name).await.unwrap();
    assert_eq!(r.status(), 201, "{:?}", r.text().await);
    let location = r.headers()["location"].to_str().unwrap().to_owned();
    assert!(location.contains("/upload/resumable/sign/"), "{location}");
    let patch = |signature: Option<&str>, offset: u64, body: &'static [u8]| {
        signed_request(reqwest::Method::PATCH, &location, signature)
            .header("upload-offset", offset.to_string())
            .header("content-type", "application/offset+octet-stream")
            .body(body)
            .send()
    };
    assert_eq!(
        patch(Some(&signature), 0, b"01234").await.unwrap().status(),
        204
    );
    // without the signature nothing is told or written
    assert_eq!(patch(None, 5, b"56789").await.unwrap().status(), 400);
    let r = signed_request(reqwest::Method::HEAD, &location, None)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let r = signed_request(reqwest::Method::HEAD, &location, Some(&signature))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["upload-offset"], "5");
    let r = patch(Some(&signature), 5, b"56789").await.unwrap();
    assert_eq!(r.status(), 204);
    assert_eq!(r.headers()["tus-complete"], "1");
    let r = app
        .get(&format!("/object/private/{name}"), &alice_token)
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.bytes().await.unwrap().as_ref(), b"0123456789");
    let (owner,): (Option<Uuid>,) = sqlx::query_as(
        "select owner from storage.objects where bucket_id = 'private' and name = $1",
    )
    .bind(&name)
    .fetch_one(&app.test_db.db.owner)
    .await
    .unwrap();
    assert_eq!(owner, Some(alice));

    // signed without x-upsert: the object now exists, so the second token
    // uploads nothing
    let r = create(Some(&again), &name).await.unwrap();
    assert_eq!(r.status(), 201);
    let second = r.headers()["location"].to_str().unwrap().to_owned();
    let r = signed_request(reqwest::Method::PATCH, &second, Some(&again))
        .header("upload-offset", "0")
        .header("content-type", "application/offset+octet-stream")
        .body(&b"abcdefghij"[..])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 409, "{:?}", r.text().await);
    let r = app
        .get(&format!("/object/private/{name}"), &alice_token)
        .await;
    assert_eq!(r.bytes().await.unwrap().as_ref(), b"0123456789");

    // an expired token opens nothing
    let now = chrono::Utc::now().timestamp();
    let expired = app.jwt.sign(&json!({
        "url": format!("private/{alice}/late.bin"),
        "scope": "upload",
        "owner": alice.to_string(),
        "upsert": false,
        "iat": now - 120,
        "exp": now - 60,
    }));
    let r = create(Some(&expired), &format!("{alice}/late.bin"))
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    assert_eq!(r.text().await.unwrap(), "jwt expired");
}

/// `creation-defer-length`: an upload created without its size grows up to
/// the bucket's limit; a PATCH tells `Upload-Length` once (not below what
/// arrived, not above the limit), and the upload completes at that length.
#[tokio::test]
async fn deferred_length_is_told_by_a_patch_within_the_limit() {
    let app = spawn_app().await;
    let alice = Uuid::new_v4();
    let token = app.user(alice);
    let name = format!("{alice}/deferred.bin");
    let create = |defer: &str| {
        app.tus(reqwest::Method::POST, "/upload/resumable", &token)
            .header("upload-defer-length", defer)
            .header(
                "upload-metadata",
                metadata("private", &name, "application/octet-stream"),
            )
            .send()
    };
    assert_eq!(create("2").await.unwrap().status(), 400);
    let r = create("1").await.unwrap();
    assert_eq!(r.status(), 201, "{:?}", r.text().await);
    let location = r.headers()["location"].to_str().unwrap().to_owned();
    let head = app
        .tus(reqwest::Method::HEAD, &location, &token)
        .send()
        .await
        .unwrap();
    assert_eq!(head.headers()["upload-defer-length"], "1");
    assert!(head.headers().get("upload-length").is_none());

    // bytes before the length is known; the upload stays open
    let r = app.tus_patch(&token, &location, 0, b"hello ").await;
    assert_eq!(r.status(), 204);
    assert!(r.headers().get("tus-complete").is_none());
    assert_eq!(app.row_count("private", &name).await, 0);
    let patch_telling = |offset: u64, length: u64, body: &'static [u8]| {
        app.tus(reqwest::Method::PATCH, &location, &token)
            .header("upload-offset", offset.to_string())
            .header("upload-length", length.to_string())
            .header("content-type", "application/offset+octet-stream")
            .body(body)
            .send()
    };
    // above the limit, below what arrived: refused, nothing changes
    let r = patch_telling(6, GLOBAL_LIMIT + 1, b"world").await.unwrap();
    assert_eq!(r.status(), 413);
    let r = patch_telling(6, 3, b"world").await.unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(app.tus_offset(&token, &location).await, (200, Some(6)));
    // told with the last bytes: complete
    let r = patch_telling(6, 11, b"world").await.unwrap();
    assert_eq!(r.status(), 204, "{:?}", r.text().await);
    assert_eq!(r.headers()["tus-complete"], "1");
    let r = app.get(&format!("/object/private/{name}"), &token).await;
    assert_eq!(r.bytes().await.unwrap().as_ref(), b"hello world");
    // a length given at creation cannot be changed
    let fixed = app
        .tus_created(
            &token,
            5,
            &metadata("private", &format!("{alice}/fixed.bin"), "text/plain"),
        )
        .await;
    let r = app
        .tus(reqwest::Method::PATCH, &fixed, &token)
        .header("upload-offset", "0")
        .header("upload-length", "6")
        .header("content-type", "application/offset+octet-stream")
        .body(&b"12345"[..])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(app.tus_offset(&token, &fixed).await, (200, Some(0)));
}
