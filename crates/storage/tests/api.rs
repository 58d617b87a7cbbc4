//! The storage API over HTTP against a real PostgreSQL (a fresh database per
//! test) and a file-system byte store in a temporary folder.

#![allow(clippy::unwrap_used)]

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use opendal::OperationContext;
use opendal::raw::{
    Layer, OpCopy, OpCreateDir, OpList, OpPresign, OpRead, OpRename, OpStat, OpWrite, RpCreateDir,
    RpPresign, RpRename, RpStat, Service, ServiceInfo, Servicer, oio,
};
use plinth_db::JwtSecret;
use plinth_db::testing::TestDb;
use plinth_storage::{Backend, StorageConfig, StorageState};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use uuid::Uuid;

#[path = "api/list_v2.rs"]
mod list_v2;
#[path = "api/moto.rs"]
mod moto;
#[path = "api/numbers.rs"]
mod numbers;
#[path = "api/platform.rs"]
mod platform;
#[path = "api/render.rs"]
mod render;
#[path = "api/tus.rs"]
mod tus;

const SECRET: &str = "storage-tests-secret-of-at-least-32-chars";
const GLOBAL_LIMIT: u64 = 256 * 1024;

// ------------------------------------------------------------ fault injection

/// Switches that make the byte store fail on purpose.
#[derive(Debug, Default)]
struct Faults {
    /// Opening a writer for an object key fails.
    writes: AtomicBool,
    /// Closing a writer for an object key (which makes its bytes durable)
    /// fails.
    closes: AtomicBool,
}

/// A writer whose bytes never become durable: its close fails.
struct FailingClose(oio::Writer);

impl oio::Write for FailingClose {
    async fn write(&mut self, bs: opendal::Buffer) -> opendal::Result<()> {
        self.0.write(bs).await
    }

    async fn close(&mut self) -> opendal::Result<opendal::Metadata> {
        let _ = self.0.abort().await;
        Err(injected("close"))
    }

    async fn abort(&mut self) -> opendal::Result<()> {
        self.0.abort().await
    }
}

#[derive(Debug, Clone)]
struct FaultLayer(Arc<Faults>);

impl Layer for FaultLayer {
    fn apply_service(&self, srv: Servicer) -> Servicer {
        Arc::new(FaultService {
            inner: srv,
            faults: self.0.clone(),
        })
    }
}

#[derive(Debug)]
struct FaultService {
    inner: Servicer,
    faults: Arc<Faults>,
}

fn injected(what: &str) -> opendal::Error {
    opendal::Error::new(
        opendal::ErrorKind::Unexpected,
        format!("injected {what} fault"),
    )
}

impl Service for FaultService {
    type Reader = oio::Reader;
    type Writer = oio::Writer;
    type Lister = oio::Lister;
    type Deleter = oio::Deleter;
    type Copier = oio::Copier;
    type Composer = oio::Composer;

    fn info(&self) -> ServiceInfo {
        self.inner.info_dyn()
    }

    fn capability(&self) -> opendal::Capability {
        self.inner.capability_dyn()
    }

    async fn create_dir(
        &self,
        ctx: &OperationContext,
        path: &str,
        args: OpCreateDir,
    ) -> opendal::Result<RpCreateDir> {
        self.inner.create_dir_dyn(ctx, path, args).await
    }

    async fn stat(
        &self,
        ctx: &OperationContext,
        path: &str,
        args: OpStat,
    ) -> opendal::Result<RpStat> {
        self.inner.stat_dyn(ctx, path, args).await
    }

    fn read(
        &self,
        ctx: &OperationContext,
        path: &str,
        args: OpRead,
    ) -> opendal::Result<oio::Reader> {
        self.inner.read_dyn(ctx, path, args)
    }

    fn write(
        &self,
        ctx: &OperationContext,
        path: &str,
        args: OpWrite,
    ) -> opendal::Result<oio::Writer> {
        if self.faults.writes.load(Ordering::SeqCst) && path.starts_with("objects/") {
            return Err(injected("write"));
        }
        let writer = self.inner.write_dyn(ctx, path, args)?;
        if self.faults.closes.load(Ordering::SeqCst) && path.starts_with("objects/") {
            return Ok(Box::new(FailingClose(writer)));
        }
        Ok(writer)
    }

    fn delete(&self, ctx: &OperationContext) -> opendal::Result<oio::Deleter> {
        self.inner.delete_dyn(ctx)
    }

    fn list(
        &self,
        ctx: &OperationContext,
        path: &str,
        args: OpList,
    ) -> opendal::Result<oio::Lister> {
        self.inner.list_dyn(ctx, path, args)
    }

    fn copy(
        &self,
        ctx: &OperationContext,
        from: &str,
        to: &str,
        args: OpCopy,
    ) -> opendal::Result<oio::Copier> {
        self.inner.copy_dyn(ctx, from, to, args)
    }

    async fn rename(
        &self,
        ctx: &OperationContext,
        from: &str,
        to: &str,
        args: OpRename,
    ) -> opendal::Result<RpRename> {
        self.inner.rename_dyn(ctx, from, to, args).await
    }

    async fn presign(
        &self,
        ctx: &OperationContext,
        path: &str,
        args: OpPresign,
    ) -> opendal::Result<RpPresign> {
        self.inner.presign_dyn(ctx, path, args).await
    }
}

// ------------------------------------------------------------ the app

struct App {
    addr: SocketAddr,
    client: reqwest::Client,
    jwt: JwtSecret,
    anon: String,
    service: String,
    test_db: TestDb,
    root: tempfile::TempDir,
    faults: Arc<Faults>,
    /// The byte store under test: `root` on the file system, or a bucket
    /// of its own in moto (`PLINTH_STORAGE_TEST_BACKEND=s3`).
    backend: Backend,
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

fn config(root: &Path, grace: Duration) -> StorageConfig {
    StorageConfig {
        backend: Backend::FileSystem {
            root: root.to_owned(),
        },
        file_size_limit: GLOBAL_LIMIT,
        orphan_grace: grace,
        ..StorageConfig::default()
    }
}

/// Buckets and policies of the tests (the marketplace's own are tested with
/// its policies in `every_project_sql_file_applies`).
const FIXTURE: &str = r#"
insert into storage.buckets (id, name, public) values ('public-bucket', 'public-bucket', true);
insert into storage.buckets (id, name, public) values ('private', 'private', false);
insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
  values ('images', 'images', true, 1024, '{image/*}');

create policy "public bucket is readable" on storage.objects for select
  to anon, authenticated using (bucket_id = 'public-bucket');
create policy "own folder: read" on storage.objects for select to authenticated
  using ((storage.foldername(name))[1] = auth.uid()::text);
create policy "own folder: insert" on storage.objects for insert to authenticated
  with check ((storage.foldername(name))[1] = auth.uid()::text);
create policy "own folder: update" on storage.objects for update to authenticated
  using ((storage.foldername(name))[1] = auth.uid()::text)
  with check ((storage.foldername(name))[1] = auth.uid()::text);
create policy "own folder: delete" on storage.objects for delete to authenticated
  using ((storage.foldername(name))[1] = auth.uid()::text);
"#;

/// Serves the storage API of `state` on a free loopback port.
async fn serve(state: StorageState) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, plinth_storage::router(state))
            .await
            .unwrap();
    });
    addr
}

async fn spawn_app() -> App {
    let test_db = TestDb::new(&[
        plinth_db::platform_migrations(),
        plinth_storage::migrations(),
    ])
    .await;
    sqlx::raw_sql(FIXTURE)
        .execute(&test_db.db.owner)
        .await
        .unwrap();
    let jwt = JwtSecret::new(SECRET).unwrap();
    let root = tempfile::tempdir().unwrap();
    let faults = Arc::new(Faults::default());
    let backend = if moto::s3_selected() {
        Backend::S3(moto::fresh_bucket())
    } else {
        Backend::FileSystem {
            root: root.path().to_owned(),
        }
    };
    let operator = plinth_storage::build_operator(&backend)
        .unwrap()
        .layer(FaultLayer(faults.clone()));
    let state = StorageState::with_operator(
        test_db.db.clone(),
        jwt.clone(),
        StorageConfig {
            backend: backend.clone(),
            ..config(root.path(), Duration::from_secs(3600))
        },
        operator,
    )
    .await
    .unwrap();
    App {
        addr: serve(state).await,
        client: reqwest::Client::new(),
        anon: jwt.api_key("anon", now(), now() + 3600),
        service: jwt.api_key("service_role", now(), now() + 3600),
        jwt,
        test_db,
        root,
        faults,
        backend,
    }
}

impl App {
    /// The configuration of this app's byte store, with `grace`.
    fn config(&self, grace: Duration) -> StorageConfig {
        StorageConfig {
            backend: self.backend.clone(),
            ..config(self.root.path(), grace)
        }
    }

    /// Another storage server on this app's database and byte store.
    async fn serve_with(&self, config: StorageConfig) -> SocketAddr {
        let state = StorageState::new(self.test_db.db.clone(), self.jwt.clone(), config)
            .await
            .unwrap();
        serve(state).await
    }

    /// `POST /object/upload/sign/{bucket}/{name}` as `token`: the answer.
    async fn sign_upload(&self, token: &str, bucket: &str, name: &str) -> Value {
        self.post_json(
            &format!("/object/upload/sign/{bucket}/{name}"),
            token,
            json!({}),
        )
        .await
        .json()
        .await
        .unwrap()
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    fn user(&self, id: Uuid) -> String {
        self.jwt
            .sign(&json!({ "sub": id.to_string(), "role": "authenticated", "exp": now() + 600 }))
    }

    fn request(&self, method: reqwest::Method, path: &str, token: &str) -> reqwest::RequestBuilder {
        self.client
            .request(method, self.url(path))
            .header("apikey", &self.anon)
            .bearer_auth(token)
    }

    async fn upload(
        &self,
        token: &str,
        bucket: &str,
        name: &str,
        body: &[u8],
        content_type: &str,
    ) -> reqwest::Response {
        self.request(
            reqwest::Method::POST,
            &format!("/object/{bucket}/{name}"),
            token,
        )
        .header("content-type", content_type)
        .header("cache-control", "max-age=3600")
        .body(body.to_vec())
        .send()
        .await
        .unwrap()
    }

    async fn get(&self, path: &str, token: &str) -> reqwest::Response {
        self.request(reqwest::Method::GET, path, token)
            .send()
            .await
            .unwrap()
    }

    async fn post_json(&self, path: &str, token: &str, body: Value) -> reqwest::Response {
        self.request(reqwest::Method::POST, path, token)
            .json(&body)
            .send()
            .await
            .unwrap()
    }

    /// Every file under the byte store's root, relative to it.
    fn stored_files(&self) -> Vec<String> {
        fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, base, out);
                } else {
                    out.push(
                        path.strip_prefix(base)
                            .unwrap()
                            .to_string_lossy()
                            .into_owned(),
                    );
                }
            }
        }
        if let Backend::S3(s3) = &self.backend {
            return moto::keys(&s3.bucket);
        }
        let mut out = Vec::new();
        walk(self.root.path(), self.root.path(), &mut out);
        out.sort();
        out
    }

    /// The byte store's files once `settled` holds for them (waiting up to
    /// 5 s): the bytes an upsert replaced are removed in the background,
    /// after the response.
    async fn stored_files_once(&self, settled: impl Fn(&[String]) -> bool) -> Vec<String> {
        let mut files = self.stored_files();
        for _ in 0..250 {
            if settled(&files) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
            files = self.stored_files();
        }
        files
    }

    fn object_files(&self) -> Vec<String> {
        self.stored_files()
            .into_iter()
            .filter(|f| f.starts_with("objects/"))
            .collect()
    }

    async fn row_count(&self, bucket: &str, name: &str) -> i64 {
        sqlx::query_scalar(
            "select count(*) from storage.objects where bucket_id = $1 and name = $2",
        )
        .bind(bucket)
        .bind(name)
        .fetch_one(&self.test_db.db.owner)
        .await
        .unwrap()
    }

    /// A request with a path sent exactly as written (no URL normalisation).
    async fn raw(&self, method: &str, path: &str, token: &str, body: &[u8]) -> (u16, String) {
        let mut stream = tokio::net::TcpStream::connect(self.addr).await.unwrap();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {token}\r\n\
             Content-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.write_all(body).await.unwrap();
        let mut response = Vec::new();
        stream.read_to_end(&mut response).await.unwrap();
        let text = String::from_utf8_lossy(&response).into_owned();
        let status = text[9..12].parse().unwrap();
        let body = text
            .split_once("\r\n\r\n")
            .map(|(_, b)| b.to_owned())
            .unwrap_or_default();
        (status, body)
    }
}

/// Asserts the platform's error shape: HTTP 400 (or `http`) with the string
/// `statusCode` and the `code` given.
async fn assert_error(
    response: reqwest::Response,
    http: StatusCode,
    status_code: &str,
    code: &str,
) -> Value {
    assert_eq!(response.status(), http, "HTTP status");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["statusCode"], status_code, "{body}");
    assert_eq!(body["code"], code, "{body}");
    assert!(
        body["message"].is_string() && body["error"].is_string(),
        "{body}"
    );
    body
}

fn multipart(
    boundary: &str,
    cache_control: &str,
    metadata: Option<&str>,
    file: &[u8],
    content_type: &str,
) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"cacheControl\"\r\n\r\n{cache_control}\r\n"
        )
        .as_bytes(),
    );
    if let Some(metadata) = metadata {
        body.extend_from_slice(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"metadata\"\r\n\r\n{metadata}\r\n")
                .as_bytes(),
        );
    }
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"\"; filename=\"blob\"\r\nContent-Type: {content_type}\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(file);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    body
}

// ------------------------------------------------------------ uploads and downloads

#[tokio::test]
async fn raw_upload_then_download_records_owner_and_headers() {
    let app = spawn_app().await;
    let alice = Uuid::new_v4();
    let token = app.user(alice);
    let name = format!("{alice}/notes/hello.txt");
    let response = app
        .upload(
            &token,
            "private",
            &name,
            b"hello world",
            "text/plain;charset=UTF-8",
        )
        .await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["Key"], format!("private/{name}"));
    assert!(Uuid::parse_str(body["Id"].as_str().unwrap()).is_ok());

    let (owner, owner_id, metadata): (Option<Uuid>, Option<String>, Value) = sqlx::query_as(
        "select owner, owner_id, metadata from storage.objects where bucket_id = 'private' and name = $1",
    )
    .bind(&name)
    .fetch_one(&app.test_db.db.owner)
    .await
    .unwrap();
    assert_eq!(owner, Some(alice));
    assert_eq!(owner_id, Some(alice.to_string()));
    assert_eq!(metadata["size"], 11);
    assert_eq!(metadata["mimetype"], "text/plain;charset=UTF-8");
    assert_eq!(metadata["cacheControl"], "max-age=3600");
    assert_eq!(metadata["eTag"], "\"5eb63bbbe01eeed093cb22bb8f5acdc3\"");

    for path in [
        format!("/object/private/{name}"),
        format!("/object/authenticated/private/{name}"),
    ] {
        let response = app.get(&path, &token).await;
        assert_eq!(response.status(), 200);
        let headers = response.headers().clone();
        assert_eq!(headers["content-type"], "text/plain;charset=UTF-8");
        assert_eq!(headers["content-length"], "11");
        assert_eq!(headers["etag"], "\"5eb63bbbe01eeed093cb22bb8f5acdc3\"");
        assert_eq!(headers["cache-control"], "max-age=3600");
        assert_eq!(headers["accept-ranges"], "bytes");
        assert!(headers.contains_key("last-modified"));
        assert_eq!(response.bytes().await.unwrap().as_ref(), b"hello world");
    }

    // exists(): HEAD answers 200 for a file, 400 for a missing one
    let head = app
        .request(
            reqwest::Method::HEAD,
            &format!("/object/private/{name}"),
            &token,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(head.status(), 200);
    assert_eq!(head.headers()["content-length"], "11");
    let head = app
        .request(
            reqwest::Method::HEAD,
            &format!("/object/private/{alice}/missing.txt"),
            &token,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(head.status(), 400);

    // ?download sets an attachment name
    let response = app
        .get(
            &format!("/object/private/{name}?download=greeting.txt"),
            &token,
        )
        .await;
    assert_eq!(
        response.headers()["content-disposition"],
        "attachment; filename=greeting.txt; filename*=UTF-8''greeting.txt"
    );
    // the bytes are in the store under a generated key, not under the name
    let files = app.object_files();
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(!files[0].contains("hello"), "{files:?}");
}

#[tokio::test]
async fn multipart_upload_takes_type_cache_control_and_metadata_from_the_form() {
    let app = spawn_app().await;
    let alice = Uuid::new_v4();
    let token = app.user(alice);
    let name = format!("{alice}/pic.png");
    let body = multipart(
        "XyZ",
        "60",
        Some(r#"{"alt":"a cat"}"#),
        b"\x89PNG fake",
        "image/png",
    );
    let response = app
        .request(
            reqwest::Method::POST,
            &format!("/object/images/{name}"),
            &token,
        )
        .header("content-type", "multipart/form-data; boundary=XyZ")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "{}", response.text().await.unwrap());

    let info: Value = app
        .get(&format!("/object/info/images/{name}"), &token)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(info["name"], name);
    assert_eq!(info["bucket_id"], "images");
    assert_eq!(info["size"], 9);
    assert_eq!(info["content_type"], "image/png");
    assert_eq!(info["cache_control"], "max-age=60");
    assert_eq!(info["metadata"], json!({"alt": "a cat"}));
    // the same through the public info route (images is public)
    let public: Value = app
        .client
        .get(app.url(&format!("/object/info/public/images/{name}")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(public["id"], info["id"]);

    // a multipart body that is not an image is refused by the allow-list
    let body = multipart("XyZ", "60", None, b"text", "text/plain");
    let response = app
        .request(
            reqwest::Method::POST,
            &format!("/object/images/{alice}/x.txt"),
            &token,
        )
        .header("content-type", "multipart/form-data; boundary=XyZ")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::BAD_REQUEST, "415", "InvalidMimeType").await;
}

#[tokio::test]
async fn duplicate_upload_is_409_and_upsert_and_update_replace_the_bytes() {
    let app = spawn_app().await;
    let alice = Uuid::new_v4();
    let token = app.user(alice);
    let name = format!("{alice}/file.bin");
    assert_eq!(
        app.upload(&token, "private", &name, b"one", "application/octet-stream")
            .await
            .status(),
        200
    );

    let body = assert_error(
        app.upload(&token, "private", &name, b"two", "application/octet-stream")
            .await,
        StatusCode::BAD_REQUEST,
        "409",
        "KeyAlreadyExists",
    )
    .await;
    assert_eq!(body["error"], "Duplicate");
    assert_eq!(body["message"], "The resource already exists");

    let response = app
        .request(
            reqwest::Method::POST,
            &format!("/object/private/{name}"),
            &token,
        )
        .header("x-upsert", "true")
        .header("content-type", "application/octet-stream")
        .body("three")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        app.get(&format!("/object/private/{name}"), &token)
            .await
            .bytes()
            .await
            .unwrap()
            .as_ref(),
        b"three"
    );

    let response = app
        .request(
            reqwest::Method::PUT,
            &format!("/object/private/{name}"),
            &token,
        )
        .header("content-type", "application/octet-stream")
        .body("four!")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        app.get(&format!("/object/private/{name}"), &token)
            .await
            .bytes()
            .await
            .unwrap()
            .as_ref(),
        b"four!"
    );
    // replaced versions are gone from the byte store
    let files = app.stored_files_once(|f| f.len() == 1).await;
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(app.row_count("private", &name).await, 1);
}

// ------------------------------------------------------------ row-level security

#[tokio::test]
async fn row_level_security_decides_for_owner_other_user_anon_and_service_role() {
    let app = spawn_app().await;
    let (alice, bob) = (Uuid::new_v4(), Uuid::new_v4());
    let (alice_token, bob_token) = (app.user(alice), app.user(bob));
    let name = format!("{alice}/secret.txt");
    assert_eq!(
        app.upload(&alice_token, "private", &name, b"alice's", "text/plain")
            .await
            .status(),
        200
    );
    let path = format!("/object/private/{name}");

    // bob cannot read, overwrite, upsert into, move or delete alice's object
    assert_error(
        app.get(&path, &bob_token).await,
        StatusCode::BAD_REQUEST,
        "404",
        "NoSuchKey",
    )
    .await;
    let body = assert_error(
        app.upload(&bob_token, "private", &name, b"bob's", "text/plain")
            .await,
        StatusCode::BAD_REQUEST,
        "403",
        "AccessDenied",
    )
    .await;
    assert_eq!(
        body["message"],
        "new row violates row-level security policy"
    );
    let response = app
        .request(reqwest::Method::POST, &path, &bob_token)
        .header("x-upsert", "true")
        .header("content-type", "text/plain")
        .body("bob's")
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::BAD_REQUEST, "403", "AccessDenied").await;
    let removed: Value = app
        .request(reqwest::Method::DELETE, "/object/private", &bob_token)
        .json(&json!({ "prefixes": [name] }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(removed, json!([]));
    // bob cannot write into his own folder in alice's name either way round
    assert_error(
        app.upload(
            &bob_token,
            "private",
            &format!("{alice}/planted.txt"),
            b"x",
            "text/plain",
        )
        .await,
        StatusCode::BAD_REQUEST,
        "403",
        "AccessDenied",
    )
    .await;
    assert_eq!(
        app.upload(
            &bob_token,
            "private",
            &format!("{bob}/mine.txt"),
            b"x",
            "text/plain"
        )
        .await
        .status(),
        200
    );

    // anon (the anon key as bearer) sees nothing of the private bucket
    assert_error(
        app.get(&path, &app.anon).await,
        StatusCode::BAD_REQUEST,
        "404",
        "NoSuchKey",
    )
    .await;
    assert_error(
        app.upload(
            &app.anon,
            "private",
            &format!("{alice}/anon.txt"),
            b"x",
            "text/plain",
        )
        .await,
        StatusCode::BAD_REQUEST,
        "403",
        "AccessDenied",
    )
    .await;
    let listed: Value = app
        .post_json("/object/list/private", &app.anon, json!({ "prefix": "" }))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(listed, json!([]));

    // the service role bypasses row-level security
    let response = app.get(&path, &app.service).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.bytes().await.unwrap().as_ref(), b"alice's");
    assert_eq!(
        app.upload(
            &app.service,
            "private",
            "system/report.txt",
            b"x",
            "text/plain"
        )
        .await
        .status(),
        200
    );

    // the owner still has her bytes
    assert_eq!(
        app.get(&path, &alice_token)
            .await
            .bytes()
            .await
            .unwrap()
            .as_ref(),
        b"alice's"
    );
}

#[tokio::test]
async fn missing_bad_and_expired_tokens_are_access_denied() {
    let app = spawn_app().await;
    let response = app
        .client
        .get(app.url("/object/private/a.txt"))
        .send()
        .await
        .unwrap();
    let body = assert_error(response, StatusCode::BAD_REQUEST, "403", "AccessDenied").await;
    assert_eq!(body["error"], "Unauthorized");

    let foreign = JwtSecret::new("another-secret-of-at-least-32-characters").unwrap();
    let forged =
        foreign.sign(&json!({ "sub": Uuid::new_v4(), "role": "service_role", "exp": now() + 60 }));
    let body = assert_error(
        app.get("/object/private/a.txt", &forged).await,
        StatusCode::BAD_REQUEST,
        "403",
        "AccessDenied",
    )
    .await;
    assert_eq!(body["message"], "invalid signature");

    let expired = app
        .jwt
        .sign(&json!({ "sub": Uuid::new_v4(), "role": "authenticated", "exp": now() - 10 }));
    let body = assert_error(
        app.get("/object/private/a.txt", &expired).await,
        StatusCode::BAD_REQUEST,
        "403",
        "AccessDenied",
    )
    .await;
    assert_eq!(body["message"], "jwt expired");
}

// ------------------------------------------------------------ public downloads

#[tokio::test]
async fn public_bucket_serves_caching_headers_ranges_and_304() {
    let app = spawn_app().await;
    let data: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
    assert_eq!(
        app.upload(
            &app.service,
            "public-bucket",
            "dir/data.bin",
            &data,
            "application/octet-stream"
        )
        .await
        .status(),
        200
    );
    let url = app.url("/object/public/public-bucket/dir/data.bin");

    let response = app.client.get(&url).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let etag = response.headers()["etag"].to_str().unwrap().to_owned();
    assert_eq!(response.headers()["cache-control"], "max-age=3600");
    assert!(response.headers().contains_key("last-modified"));
    assert_eq!(response.bytes().await.unwrap().as_ref(), data.as_slice());

    let response = app
        .client
        .get(&url)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(response.headers()["etag"], etag.as_str());
    assert!(response.bytes().await.unwrap().is_empty());
    let response = app
        .client
        .get(&url)
        .header("if-none-match", "\"other\"")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);

    let response = app
        .client
        .get(&url)
        .header("range", "bytes=10-19")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::PARTIAL_CONTENT);
    assert_eq!(response.headers()["content-range"], "bytes 10-19/1000");
    assert_eq!(response.headers()["content-length"], "10");
    assert_eq!(response.bytes().await.unwrap().as_ref(), &data[10..20]);
    let response = app
        .client
        .get(&url)
        .header("range", "bytes=-5")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::PARTIAL_CONTENT);
    assert_eq!(response.bytes().await.unwrap().as_ref(), &data[995..]);
    let response = app
        .client
        .get(&url)
        .header("range", "bytes=5000-")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::RANGE_NOT_SATISFIABLE);
    assert_eq!(response.headers()["content-range"], "bytes */1000");

    let response = app
        .client
        .get(format!("{url}?download"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["content-disposition"], "attachment;");

    // private or missing buckets, and missing objects
    assert_eq!(
        app.upload(&app.service, "private", "hidden.txt", b"x", "text/plain")
            .await
            .status(),
        200
    );
    let response = app
        .client
        .get(app.url("/object/public/private/hidden.txt"))
        .send()
        .await
        .unwrap();
    let body = assert_error(response, StatusCode::BAD_REQUEST, "404", "NoSuchBucket").await;
    assert_eq!(body["message"], "Bucket not found");
    let response = app
        .client
        .get(app.url("/object/public/nope/hidden.txt"))
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::BAD_REQUEST, "404", "NoSuchBucket").await;
    let response = app
        .client
        .get(app.url("/object/public/public-bucket/missing.bin"))
        .send()
        .await
        .unwrap();
    let body = assert_error(response, StatusCode::BAD_REQUEST, "404", "NoSuchKey").await;
    assert_eq!(body["message"], "Object not found");
}

// ------------------------------------------------------------ list, remove, move, copy

#[tokio::test]
async fn list_shows_files_and_folders_with_search_sort_and_paging() {
    let app = spawn_app().await;
    let alice = Uuid::new_v4();
    let token = app.user(alice);
    for name in [
        "b.txt",
        "a.txt",
        "sub/c.txt",
        "sub/deeper/d.txt",
        "Beta.txt",
    ] {
        assert_eq!(
            app.upload(
                &token,
                "private",
                &format!("{alice}/{name}"),
                b"x",
                "text/plain"
            )
            .await
            .status(),
            200
        );
    }
    let names = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|e| e["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let listed: Value = app
        .post_json(
            "/object/list/private",
            &token,
            json!({
                "prefix": alice.to_string(), "limit": 100, "offset": 0,
                "sortBy": { "column": "name", "order": "asc" }, "search": ""
            }),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(names(&listed), ["Beta.txt", "a.txt", "b.txt", "sub"]);
    let folder = &listed[3];
    assert_eq!(folder["id"], Value::Null);
    assert_eq!(folder["metadata"], Value::Null);
    let file = &listed[1];
    assert!(file["id"].is_string());
    assert_eq!(file["metadata"]["size"], 1);
    assert_eq!(file["metadata"]["mimetype"], "text/plain");

    let listed: Value = app
        .post_json(
            "/object/list/private",
            &token,
            json!({ "prefix": alice.to_string(), "search": "b" }),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(names(&listed), ["Beta.txt", "b.txt"]);
    let listed: Value = app.post_json("/object/list/private", &token, json!({
        "prefix": alice.to_string(), "limit": 2, "offset": 1, "sortBy": { "column": "name", "order": "desc" }
    })).await.json().await.unwrap();
    assert_eq!(names(&listed), ["b.txt", "a.txt"]);
    let listed: Value = app
        .post_json(
            "/object/list/private",
            &token,
            json!({ "prefix": format!("{alice}/sub/") }),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(names(&listed), ["c.txt", "deeper"]);
    let listed: Value = app
        .post_json("/object/list/private", &token, json!({ "prefix": "" }))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(names(&listed), [alice.to_string()]);
    // another user sees none of it
    let listed: Value = app
        .post_json(
            "/object/list/private",
            &app.user(Uuid::new_v4()),
            json!({ "prefix": alice.to_string() }),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(listed, json!([]));
    // sort columns come from a fixed list
    let response = app
        .post_json(
            "/object/list/private",
            &token,
            json!({ "prefix": "", "sortBy": { "column": "name; drop table storage.objects" } }),
        )
        .await;
    assert_error(response, StatusCode::BAD_REQUEST, "400", "InvalidRequest").await;
}

#[tokio::test]
async fn an_upload_to_a_missing_bucket_is_told_so_whoever_asks() {
    let app = spawn_app().await;
    let alice = Uuid::new_v4();
    // anon and a user outside their folder would also be refused by the
    // insert policies; the missing bucket is what they hear
    for (token, name) in [
        (app.anon.clone(), "a.txt".to_owned()),
        (app.user(alice), format!("{}/a.txt", Uuid::new_v4())),
        (app.user(alice), format!("{alice}/a.txt")),
        (app.service.clone(), "a.txt".to_owned()),
    ] {
        let response = app.upload(&token, "nope", &name, b"x", "text/plain").await;
        let body = assert_error(response, StatusCode::BAD_REQUEST, "404", "NoSuchBucket").await;
        assert_eq!(body["message"], "Bucket not found");
    }
    // and nothing was written
    assert!(app.object_files().is_empty(), "{:?}", app.object_files());
}

#[tokio::test]
async fn a_refused_upload_writes_nothing_whether_the_name_exists_or_not() {
    // The bucket and the insert policy are asked while the body arrives
    // (held in memory meanwhile): a refusal, with upsert or without, leaves
    // no bytes and the existing object as it was.
    let app = spawn_app().await;
    let (alice, bob) = (Uuid::new_v4(), Uuid::new_v4());
    let name = format!("{alice}/big.bin");
    let original = vec![7u8; 200_000];
    let response = app
        .upload(
            &app.user(alice),
            "private",
            &name,
            &original,
            "application/octet-stream",
        )
        .await;
    assert_eq!(response.status(), 200);
    let big = vec![9u8; 200_000];
    for target in [name.clone(), format!("{alice}/new.bin")] {
        for upsert in ["true", "false"] {
            let response = app
                .request(
                    reqwest::Method::POST,
                    &format!("/object/private/{target}"),
                    &app.user(bob),
                )
                .header("x-upsert", upsert)
                .header("content-type", "application/octet-stream")
                .body(big.clone())
                .send()
                .await
                .unwrap();
            assert_error(response, StatusCode::BAD_REQUEST, "403", "AccessDenied").await;
        }
    }
    let response = app
        .upload(&app.anon, "nope", "a.bin", &big, "application/octet-stream")
        .await;
    assert_error(response, StatusCode::BAD_REQUEST, "404", "NoSuchBucket").await;
    assert_eq!(app.object_files().len(), 1, "{:?}", app.object_files());
    let kept = app
        .get(&format!("/object/private/{name}"), &app.user(alice))
        .await;
    assert_eq!(kept.bytes().await.unwrap().as_ref(), original.as_slice());
    assert_eq!(
        app.row_count("private", &format!("{alice}/new.bin")).await,
        0
    );
}

#[tokio::test]
async fn remove_returns_the_deleted_rows_and_removes_the_bytes() {
    let app = spawn_app().await;
    let alice = Uuid::new_v4();
    let token = app.user(alice);
    for name in ["a.txt", "b.txt", "c.txt"] {
        assert_eq!(
            app.upload(
                &token,
                "private",
                &format!("{alice}/{name}"),
                b"x",
                "text/plain"
            )
            .await
            .status(),
            200
        );
    }
    assert_eq!(app.object_files().len(), 3);
    let removed: Value = app
        .request(reqwest::Method::DELETE, "/object/private", &token)
        .json(&json!({ "prefixes": [format!("{alice}/a.txt"), format!("{alice}/b.txt"), format!("{alice}/missing.txt")] }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let removed = removed.as_array().unwrap();
    assert_eq!(removed.len(), 2);
    assert_eq!(removed[0]["bucket_id"], "private");
    assert!(removed[0]["metadata"]["size"].is_number());
    assert_eq!(app.object_files().len(), 1);
    assert_eq!(app.row_count("private", &format!("{alice}/a.txt")).await, 0);

    // single delete route
    let response = app
        .request(
            reqwest::Method::DELETE,
            &format!("/object/private/{alice}/c.txt"),
            &token,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(app.object_files().is_empty());

    // direct SQL deletes are refused: the bytes would be left behind
    let err = sqlx::query("delete from storage.objects")
        .execute(&app.test_db.db.owner)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("Direct deletion"), "{err}");
}

#[tokio::test]
async fn move_renames_the_row_and_keeps_the_bytes() {
    let app = spawn_app().await;
    let (alice, bob) = (Uuid::new_v4(), Uuid::new_v4());
    let token = app.user(alice);
    assert_eq!(
        app.upload(
            &token,
            "private",
            &format!("{alice}/old.txt"),
            b"moving",
            "text/plain"
        )
        .await
        .status(),
        200
    );
    let files_before = app.object_files();

    let response = app.post_json("/object/move", &token, json!({
        "bucketId": "private", "sourceKey": format!("{alice}/old.txt"), "destinationKey": format!("{alice}/new/name.txt")
    })).await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.json::<Value>().await.unwrap(),
        json!({ "message": "Successfully moved" })
    );
    assert_error(
        app.get(&format!("/object/private/{alice}/old.txt"), &token)
            .await,
        StatusCode::BAD_REQUEST,
        "404",
        "NoSuchKey",
    )
    .await;
    assert_eq!(
        app.get(&format!("/object/private/{alice}/new/name.txt"), &token)
            .await
            .bytes()
            .await
            .unwrap()
            .as_ref(),
        b"moving"
    );
    assert_eq!(app.object_files(), files_before);

    // into someone else's folder: row-level security refuses the new row
    let response = app.post_json("/object/move", &token, json!({
        "bucketId": "private", "sourceKey": format!("{alice}/new/name.txt"), "destinationKey": format!("{bob}/stolen.txt")
    })).await;
    assert_error(response, StatusCode::BAD_REQUEST, "403", "AccessDenied").await;
    // across buckets, into one whose allow-list refuses the type
    let response = app
        .post_json(
            "/object/move",
            &token,
            json!({
                "bucketId": "private", "sourceKey": format!("{alice}/new/name.txt"),
                "destinationKey": format!("{alice}/x.txt"), "destinationBucket": "images"
            }),
        )
        .await;
    assert_error(response, StatusCode::BAD_REQUEST, "415", "InvalidMimeType").await;
    let response = app.post_json("/object/move", &token, json!({
        "bucketId": "private", "sourceKey": format!("{alice}/missing.txt"), "destinationKey": format!("{alice}/y.txt")
    })).await;
    assert_error(response, StatusCode::BAD_REQUEST, "404", "NoSuchKey").await;
    // onto an existing name
    assert_eq!(
        app.upload(
            &token,
            "private",
            &format!("{alice}/taken.txt"),
            b"t",
            "text/plain"
        )
        .await
        .status(),
        200
    );
    let response = app.post_json("/object/move", &token, json!({
        "bucketId": "private", "sourceKey": format!("{alice}/new/name.txt"), "destinationKey": format!("{alice}/taken.txt")
    })).await;
    assert_error(response, StatusCode::BAD_REQUEST, "409", "KeyAlreadyExists").await;
}

#[tokio::test]
async fn copy_duplicates_row_and_bytes() {
    let app = spawn_app().await;
    let alice = Uuid::new_v4();
    let token = app.user(alice);
    assert_eq!(
        app.upload(
            &token,
            "private",
            &format!("{alice}/src.txt"),
            b"copy me",
            "text/plain"
        )
        .await
        .status(),
        200
    );
    let response = app.post_json("/object/copy", &token, json!({
        "bucketId": "private", "sourceKey": format!("{alice}/src.txt"), "destinationKey": format!("{alice}/dst.txt")
    })).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["Key"], format!("private/{alice}/dst.txt"));
    for name in ["src.txt", "dst.txt"] {
        let response = app
            .get(&format!("/object/private/{alice}/{name}"), &token)
            .await;
        assert_eq!(response.headers()["content-type"], "text/plain");
        assert_eq!(response.bytes().await.unwrap().as_ref(), b"copy me");
    }
    assert_eq!(app.object_files().len(), 2);
    // copying onto an existing object without upsert
    let response = app.post_json("/object/copy", &token, json!({
        "bucketId": "private", "sourceKey": format!("{alice}/src.txt"), "destinationKey": format!("{alice}/dst.txt")
    })).await;
    assert_error(response, StatusCode::BAD_REQUEST, "409", "KeyAlreadyExists").await;
    // another user can neither read the source nor write the copy
    let response = app.post_json("/object/copy", &app.user(Uuid::new_v4()), json!({
        "bucketId": "private", "sourceKey": format!("{alice}/src.txt"), "destinationKey": format!("{alice}/x.txt")
    })).await;
    assert_error(response, StatusCode::BAD_REQUEST, "404", "NoSuchKey").await;
    assert_eq!(app.object_files().len(), 2);
}

// ------------------------------------------------------------ signed URLs

#[tokio::test]
async fn signed_urls_grant_expiring_access_to_one_object() {
    let app = spawn_app().await;
    let alice = Uuid::new_v4();
    let token = app.user(alice);
    let name = format!("{alice}/doc.pdf");
    assert_eq!(
        app.upload(&token, "private", &name, b"%PDF", "application/pdf")
            .await
            .status(),
        200
    );

    let signed: Value = app
        .post_json(
            &format!("/object/sign/private/{name}"),
            &token,
            json!({ "expiresIn": 60 }),
        )
        .await
        .json()
        .await
        .unwrap();
    let url = signed["signedURL"].as_str().unwrap();
    assert!(
        url.starts_with(&format!("/object/sign/private/{name}?token=")),
        "{url}"
    );
    let response = app.client.get(app.url(url)).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/pdf");
    assert_eq!(response.bytes().await.unwrap().as_ref(), b"%PDF");
    let response = app
        .client
        .get(format!("{}&download=", app.url(url)))
        .send()
        .await
        .unwrap();
    assert!(
        response.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .starts_with("attachment")
    );

    // the token names one object only
    let token_value = url.split_once("token=").unwrap().1;
    assert_eq!(
        app.upload(
            &token,
            "private",
            &format!("{alice}/other.pdf"),
            b"x",
            "application/pdf"
        )
        .await
        .status(),
        200
    );
    let response = app
        .client
        .get(app.url(&format!(
            "/object/sign/private/{alice}/other.pdf?token={token_value}"
        )))
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::BAD_REQUEST, "400", "InvalidRequest").await;
    // expired, forged, missing
    let expired = app.jwt.sign(&json!({ "url": format!("private/{name}"), "scope": "download", "iat": now() - 100, "exp": now() - 10 }));
    let response = app
        .client
        .get(app.url(&format!("/object/sign/private/{name}?token={expired}")))
        .send()
        .await
        .unwrap();
    let body = assert_error(response, StatusCode::BAD_REQUEST, "403", "AccessDenied").await;
    assert_eq!(body["message"], "jwt expired");
    let response = app
        .client
        .get(app.url(&format!("/object/sign/private/{name}")))
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::BAD_REQUEST, "400", "InvalidRequest").await;
    // an access token is not a signed URL token
    let response = app
        .client
        .get(app.url(&format!("/object/sign/private/{name}?token={token}")))
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::BAD_REQUEST, "400", "InvalidRequest").await;

    // signing needs read access
    let response = app
        .post_json(
            &format!("/object/sign/private/{name}"),
            &app.user(Uuid::new_v4()),
            json!({ "expiresIn": 60 }),
        )
        .await;
    assert_error(response, StatusCode::BAD_REQUEST, "404", "NoSuchKey").await;
    let response = app
        .post_json(
            &format!("/object/sign/private/{name}"),
            &token,
            json!({ "expiresIn": 0 }),
        )
        .await;
    assert_error(response, StatusCode::BAD_REQUEST, "400", "InvalidRequest").await;

    // several at once
    let many: Value = app
        .post_json(
            "/object/sign/private",
            &token,
            json!({
                "expiresIn": 60, "paths": [name, format!("{alice}/missing.pdf")]
            }),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(many[0]["error"], Value::Null);
    assert_eq!(many[0]["path"], name);
    assert!(many[0]["signedURL"].as_str().unwrap().contains("token="));
    assert_eq!(
        many[1]["error"],
        "Either the object does not exist or you do not have access to it"
    );
    assert_eq!(many[1]["signedURL"], Value::Null);
}

#[tokio::test]
async fn signed_upload_urls_upload_without_a_session_and_record_the_signer() {
    let app = spawn_app().await;
    let alice = Uuid::new_v4();
    let token = app.user(alice);
    let name = format!("{alice}/via-signed.txt");
    let signed = app.sign_upload(&token, "private", &name).await;
    let url = signed["url"].as_str().unwrap();
    assert!(
        url.starts_with(&format!("/object/upload/sign/private/{name}?token=")),
        "{url}"
    );
    assert_eq!(
        url.split_once("token=").unwrap().1,
        signed["token"].as_str().unwrap()
    );

    let response = app
        .client
        .put(app.url(url))
        .header("content-type", "text/plain")
        .body("signed bytes")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.json::<Value>().await.unwrap()["Key"],
        format!("private/{name}")
    );
    assert_eq!(
        app.get(&format!("/object/private/{name}"), &token)
            .await
            .bytes()
            .await
            .unwrap()
            .as_ref(),
        b"signed bytes"
    );
    let owner: Option<Uuid> =
        sqlx::query_scalar("select owner from storage.objects where name = $1")
            .bind(&name)
            .fetch_one(&app.test_db.db.owner)
            .await
            .unwrap();
    assert_eq!(owner, Some(alice));
    // without upsert, the same token cannot overwrite
    let response = app
        .client
        .put(app.url(url))
        .header("content-type", "text/plain")
        .body("again")
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::BAD_REQUEST, "409", "KeyAlreadyExists").await;
    // a token for one path does not upload to another
    let response = app
        .client
        .put(app.url(&format!(
            "/object/upload/sign/private/{alice}/elsewhere.txt?token={}",
            signed["token"].as_str().unwrap()
        )))
        .body("x")
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::BAD_REQUEST, "400", "InvalidRequest").await;
    // a download token is not an upload token
    let download: Value = app
        .post_json(
            &format!("/object/sign/private/{name}"),
            &token,
            json!({ "expiresIn": 60 }),
        )
        .await
        .json()
        .await
        .unwrap();
    let download_token = download["signedURL"]
        .as_str()
        .unwrap()
        .split_once("token=")
        .unwrap()
        .1
        .to_owned();
    let response = app
        .client
        .put(app.url(&format!(
            "/object/upload/sign/private/{name}?token={download_token}"
        )))
        .body("x")
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::BAD_REQUEST, "400", "InvalidRequest").await;
    // signing an upload into someone else's folder is refused up front
    let response = app
        .post_json(
            &format!("/object/upload/sign/private/{alice}/b.txt"),
            &app.user(Uuid::new_v4()),
            json!({}),
        )
        .await;
    assert_error(response, StatusCode::BAD_REQUEST, "403", "AccessDenied").await;
}

// ------------------------------------------------------------ buckets

#[tokio::test]
async fn bucket_endpoints_need_the_service_role() {
    let app = spawn_app().await;
    let service = app.service.clone();
    let response = app.post_json("/bucket", &service, json!({
        "id": "docs", "name": "docs", "public": false, "file_size_limit": "100kb", "allowed_mime_types": ["application/pdf"]
    })).await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.json::<Value>().await.unwrap(),
        json!({ "name": "docs" })
    );
    let response = app
        .post_json("/bucket", &service, json!({ "id": "docs", "name": "docs" }))
        .await;
    let body = assert_error(
        response,
        StatusCode::BAD_REQUEST,
        "409",
        "BucketAlreadyExists",
    )
    .await;
    assert_eq!(body["error"], "Duplicate");

    let bucket: Value = app
        .get("/bucket/docs", &service)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(bucket["id"], "docs");
    assert_eq!(bucket["public"], false);
    // decimal, as the platform parses "100kb"
    assert_eq!(bucket["file_size_limit"], 100_000);
    assert_eq!(bucket["allowed_mime_types"], json!(["application/pdf"]));
    assert_eq!(bucket["owner"], "");
    let all: Value = app
        .get("/bucket?sortColumn=name&sortOrder=asc", &service)
        .await
        .json()
        .await
        .unwrap();
    let ids: Vec<&str> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["docs", "images", "private", "public-bucket"]);
    let searched: Value = app
        .get("/bucket?search=priv", &service)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(searched.as_array().unwrap().len(), 1);

    let response = app
        .request(reqwest::Method::PUT, "/bucket/docs", &service)
        .json(&json!({ "id": "docs", "name": "docs", "public": true, "file_size_limit": null }))
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.json::<Value>().await.unwrap(),
        json!({ "message": "Successfully updated" })
    );
    let bucket: Value = app
        .get("/bucket/docs", &service)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(bucket["public"], true);
    assert_eq!(bucket["file_size_limit"], Value::Null);
    assert_eq!(bucket["allowed_mime_types"], json!(["application/pdf"]));

    // not empty -> 409; empty it; then delete
    assert_eq!(
        app.upload(&service, "docs", "a.pdf", b"%PDF", "application/pdf")
            .await
            .status(),
        200
    );
    let response = app
        .request(reqwest::Method::DELETE, "/bucket/docs", &service)
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::BAD_REQUEST, "409", "InvalidRequest").await;
    let response = app
        .post_json("/bucket/docs/empty", &service, json!({}))
        .await;
    assert_eq!(
        response.json::<Value>().await.unwrap(),
        json!({ "message": "Empty bucket has been queued. Completion may take up to an hour." })
    );
    assert!(app.object_files().is_empty());
    let response = app
        .request(reqwest::Method::DELETE, "/bucket/docs", &service)
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.json::<Value>().await.unwrap(),
        json!({ "message": "Successfully deleted" })
    );
    assert_error(
        app.get("/bucket/docs", &service).await,
        StatusCode::BAD_REQUEST,
        "404",
        "NoSuchBucket",
    )
    .await;

    // users and anon: no policies on storage.buckets, so nothing
    let user = app.user(Uuid::new_v4());
    let response = app
        .post_json("/bucket", &user, json!({ "id": "mine", "name": "mine" }))
        .await;
    assert_error(response, StatusCode::BAD_REQUEST, "403", "AccessDenied").await;
    assert_eq!(
        app.get("/bucket", &user)
            .await
            .json::<Value>()
            .await
            .unwrap(),
        json!([])
    );
    assert_error(
        app.get("/bucket/private", &app.anon).await,
        StatusCode::BAD_REQUEST,
        "404",
        "NoSuchBucket",
    )
    .await;
    let response = app
        .request(reqwest::Method::DELETE, "/bucket/private", &user)
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::BAD_REQUEST, "404", "NoSuchBucket").await;
    let response = app
        .post_json("/bucket/private/empty", &user, json!({}))
        .await;
    assert_error(response, StatusCode::BAD_REQUEST, "404", "NoSuchBucket").await;

    // bad input
    let response = app
        .post_json(
            "/bucket",
            &service,
            json!({ "id": "../etc", "name": "../etc" }),
        )
        .await;
    assert_error(
        response,
        StatusCode::BAD_REQUEST,
        "400",
        "InvalidBucketName",
    )
    .await;
    let response = app
        .post_json(
            "/bucket",
            &service,
            json!({ "id": "huge", "file_size_limit": "1GB" }),
        )
        .await;
    assert_error(response, StatusCode::BAD_REQUEST, "400", "InvalidRequest").await;
    let response = app
        .post_json(
            "/bucket",
            &service,
            json!({ "id": "odd", "allowed_mime_types": ["not a type"] }),
        )
        .await;
    assert_error(response, StatusCode::BAD_REQUEST, "415", "InvalidMimeType").await;
}

// ------------------------------------------------------------ limits and names

#[tokio::test]
async fn size_and_type_limits_are_enforced_before_anything_is_stored() {
    let app = spawn_app().await;
    let alice = Uuid::new_v4();
    let token = app.user(alice);
    // bucket limit (1024 bytes in `images`)
    let body = assert_error(
        app.upload(
            &token,
            "images",
            &format!("{alice}/big.png"),
            &vec![0u8; 2000],
            "image/png",
        )
        .await,
        StatusCode::BAD_REQUEST,
        "413",
        "EntityTooLarge",
    )
    .await;
    assert_eq!(body["error"], "Payload too large");
    assert_eq!(
        body["message"],
        "The object exceeded the maximum allowed size"
    );
    assert_eq!(
        app.upload(
            &token,
            "images",
            &format!("{alice}/ok.png"),
            &vec![0u8; 1024],
            "image/png"
        )
        .await
        .status(),
        200
    );
    // the allow-list
    assert_error(
        app.upload(
            &token,
            "images",
            &format!("{alice}/x.txt"),
            b"x",
            "text/plain",
        )
        .await,
        StatusCode::BAD_REQUEST,
        "415",
        "InvalidMimeType",
    )
    .await;
    // the global limit, with a body of unknown length (chunked)
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        (0..40).map(|_| Ok(vec![1u8; 8192])).collect();
    let response = app
        .request(
            reqwest::Method::POST,
            &format!("/object/private/{alice}/huge.bin"),
            &token,
        )
        .header("content-type", "application/octet-stream")
        .body(reqwest::Body::wrap_stream(futures_util::stream::iter(
            chunks,
        )))
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::BAD_REQUEST, "413", "EntityTooLarge").await;
    assert_eq!(
        app.row_count("private", &format!("{alice}/huge.bin")).await,
        0
    );
    assert_eq!(
        app.row_count("images", &format!("{alice}/big.png")).await,
        0
    );
    assert_eq!(app.stored_files().len(), 1, "{:?}", app.stored_files());
}

#[tokio::test]
async fn traversal_and_malformed_names_are_refused() {
    let app = spawn_app().await;
    let token = app.service.clone();
    let cases = [
        "/object/private/../../etc/passwd",
        "/object/private/a/../../b.txt",
        "/object/private/%2e%2e/%2e%2e/x.txt",
        "/object/private/a/%2E%2E/b.txt",
        "/object/private/./a.txt",
        "/object/private//abs.txt",
        "/object/private/a%00b.txt",
        "/object/private/line%0Abreak.txt",
        "/object/private/a%2F..%2Fb.txt",
    ];
    for path in cases {
        let (status, body) = app.raw("POST", path, &token, b"evil").await;
        assert_eq!(status, 400, "{path}: {body}");
        let body: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
        assert!(
            body["code"] == "InvalidKey" || body["code"] == "InvalidRequest",
            "{path}: {body}"
        );
    }
    let long = format!("/object/private/{}", "x".repeat(1025));
    let (status, body) = app.raw("POST", &long, &token, b"evil").await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("InvalidKey"), "{body}");
    // a bucket name cannot climb out either
    let (status, _) = app
        .raw("GET", "/object/public/..%2F..%2Fetc/passwd", &token, b"")
        .await;
    assert_eq!(status, 400);
    // nothing reached the store or the table
    assert!(app.stored_files().is_empty(), "{:?}", app.stored_files());
    let rows: i64 = sqlx::query_scalar("select count(*) from storage.objects")
        .fetch_one(&app.test_db.db.owner)
        .await
        .unwrap();
    assert_eq!(rows, 0);
    // a legitimate name with dots still works
    let (status, body) = app
        .raw("POST", "/object/private/a..b/.hidden.txt", &token, b"ok")
        .await;
    assert_eq!(status, 200, "{body}");
}

// ------------------------------------------------------------ concurrency and consistency

fn pattern(seed: u8, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

#[tokio::test]
async fn concurrent_uploads_to_one_name_have_one_winner_and_intact_bytes() {
    let app = Arc::new(spawn_app().await);
    let alice = Uuid::new_v4();
    let token = app.user(alice);
    let name = format!("{alice}/race.bin");
    let mut tasks = Vec::new();
    for seed in 0..6u8 {
        let (app, token, name) = (app.clone(), token.clone(), name.clone());
        tasks.push(tokio::spawn(async move {
            let body = pattern(seed, 64 * 1024);
            let status = app
                .upload(&token, "private", &name, &body, "application/octet-stream")
                .await
                .status();
            (seed, status)
        }));
    }
    let mut winners = Vec::new();
    for task in tasks {
        let (seed, status) = task.await.unwrap();
        if status == 200 {
            winners.push(seed);
        } else {
            assert_eq!(status, 400);
        }
    }
    assert_eq!(winners.len(), 1, "exactly one upload wins");
    let stored = app
        .get(&format!("/object/private/{name}"), &token)
        .await
        .bytes()
        .await
        .unwrap();
    assert_eq!(stored.as_ref(), pattern(winners[0], 64 * 1024).as_slice());
    assert_eq!(app.stored_files().len(), 1, "{:?}", app.stored_files());

    // concurrent upserts: all succeed, the last commit wins whole, old bytes go
    let mut tasks = Vec::new();
    for seed in 10..16u8 {
        let (app, token, name) = (app.clone(), token.clone(), name.clone());
        tasks.push(tokio::spawn(async move {
            app.request(
                reqwest::Method::POST,
                &format!("/object/private/{name}"),
                &token,
            )
            .header("x-upsert", "true")
            .header("content-type", "application/octet-stream")
            .body(pattern(seed, 64 * 1024))
            .send()
            .await
            .unwrap()
            .status()
        }));
    }
    for task in tasks {
        assert_eq!(task.await.unwrap(), 200);
    }
    let stored = app
        .get(&format!("/object/private/{name}"), &token)
        .await
        .bytes()
        .await
        .unwrap();
    assert!(
        (10..16u8).any(|seed| stored.as_ref() == pattern(seed, 64 * 1024).as_slice()),
        "bytes are one upload, whole"
    );
    assert_eq!(app.row_count("private", &name).await, 1);
    let files = app.stored_files_once(|f| f.len() == 1).await;
    assert_eq!(files.len(), 1, "{files:?}");
}

#[tokio::test]
async fn bytes_that_cannot_be_made_durable_leave_no_row() {
    // An upload's row commits only after its bytes are durable: when they
    // cannot be, there is no row and the bytes are removed, for a new name
    // and for an upsert, whose old object stays. (Through the store's
    // writer, which S3 uploads use; the file system store's fsync cannot
    // be made to fail from here: a row written beside a failing fsync is
    // tested in `objects.rs`.)
    let app = spawn_app().await;
    let alice = Uuid::new_v4();
    let token = app.user(alice);
    let kept = format!("{alice}/kept.txt");
    let response = app
        .upload(&token, "private", &kept, b"original", "text/plain")
        .await;
    assert_eq!(response.status(), 200);
    let before = app.stored_files();
    app.faults.closes.store(true, Ordering::SeqCst);
    let fresh = app
        .upload(
            &token,
            "private",
            &format!("{alice}/new.txt"),
            b"lost",
            "text/plain",
        )
        .await;
    let upsert = app
        .request(
            reqwest::Method::POST,
            &format!("/object/private/{kept}"),
            &token,
        )
        .header("x-upsert", "true")
        .header("content-type", "text/plain")
        .body("replacement")
        .send()
        .await
        .unwrap();
    app.faults.closes.store(false, Ordering::SeqCst);
    if matches!(app.backend, Backend::FileSystem { .. }) {
        assert_eq!(
            (fresh.status(), upsert.status()),
            (StatusCode::OK, StatusCode::OK)
        );
        return;
    }
    for response in [fresh, upsert] {
        assert_eq!(response.status(), 500);
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["message"], "Internal Server Error");
    }
    assert_eq!(
        app.row_count("private", &format!("{alice}/new.txt")).await,
        0
    );
    let response = app.get(&format!("/object/private/{kept}"), &token).await;
    assert_eq!(response.bytes().await.unwrap().as_ref(), b"original");
    assert_eq!(app.stored_files(), before);
}

#[tokio::test]
async fn a_failed_byte_write_leaves_no_row_and_no_bytes() {
    let app = spawn_app().await;
    let alice = Uuid::new_v4();
    let token = app.user(alice);
    // S3: the operator's writer fails. The file system store writes an
    // upload's file itself: a file stands where its folders would be.
    app.faults.writes.store(true, Ordering::SeqCst);
    let blocker = matches!(app.backend, Backend::FileSystem { .. }).then(|| {
        let objects = app.root.path().join("objects");
        let _ = std::fs::remove_dir_all(&objects);
        std::fs::write(&objects, b"").unwrap();
        objects
    });
    let response = app
        .upload(
            &token,
            "private",
            &format!("{alice}/a.txt"),
            b"doomed",
            "text/plain",
        )
        .await;
    if let Some(blocker) = blocker {
        std::fs::remove_file(blocker).unwrap();
    }
    assert_eq!(response.status(), 500);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["statusCode"], "500");
    assert_eq!(body["message"], "Internal Server Error");
    assert!(
        !body.to_string().contains("injected"),
        "internals leak: {body}"
    );
    assert_eq!(app.row_count("private", &format!("{alice}/a.txt")).await, 0);
    assert!(app.stored_files().is_empty(), "{:?}", app.stored_files());

    // an upsert whose body breaks off keeps the old row and the old bytes
    app.faults.writes.store(false, Ordering::SeqCst);
    let name = format!("{alice}/c.txt");
    assert_eq!(
        app.upload(&token, "private", &name, b"original", "text/plain")
            .await
            .status(),
        200
    );
    let broken = futures_util::stream::iter(vec![
        Ok::<_, std::io::Error>(bytes::Bytes::from(vec![b'x'; 64 * 1024])),
        Err(std::io::Error::other("the client went away")),
    ]);
    let sent = app
        .request(
            reqwest::Method::POST,
            &format!("/object/private/{name}"),
            &token,
        )
        .header("x-upsert", "true")
        .header("content-type", "text/plain")
        .body(reqwest::Body::wrap_stream(broken))
        .send()
        .await;
    assert!(
        sent.is_err() || !sent.unwrap().status().is_success(),
        "a broken body is not stored"
    );
    assert_eq!(
        app.get(&format!("/object/private/{name}"), &token)
            .await
            .bytes()
            .await
            .unwrap()
            .as_ref(),
        b"original"
    );
    assert_eq!(app.row_count("private", &name).await, 1);
    // the broken upload's bytes are removed (the server notices the broken
    // body after the client has given up)
    let left = app.stored_files_once(|f| f.len() == 1).await;
    assert_eq!(left.len(), 1, "{left:?}");
}

#[tokio::test]
async fn a_failed_row_insert_removes_the_bytes() {
    let app = spawn_app().await;
    // The final insert (the one with a version) fails for names containing
    // "boom", after every byte was received.
    sqlx::raw_sql(
        "create function storage.test_boom() returns trigger language plpgsql as $$ \
         begin if new.version is not null and new.name like '%boom%' then \
           raise exception 'disk full (simulated)'; end if; return new; end $$; \
         create trigger test_boom before insert on storage.objects \
           for each row execute function storage.test_boom();",
    )
    .execute(&app.test_db.db.owner)
    .await
    .unwrap();
    let alice = Uuid::new_v4();
    let token = app.user(alice);
    let response = app
        .upload(
            &token,
            "private",
            &format!("{alice}/boom.txt"),
            b"bytes",
            "text/plain",
        )
        .await;
    assert_eq!(response.status(), 500);
    let body = response.text().await.unwrap();
    assert!(!body.contains("disk full"), "internals leak: {body}");
    assert_eq!(
        app.row_count("private", &format!("{alice}/boom.txt")).await,
        0
    );
    assert!(app.stored_files().is_empty(), "{:?}", app.stored_files());
    // a copy whose row fails also leaves nothing behind
    assert_eq!(
        app.upload(
            &token,
            "private",
            &format!("{alice}/fine.txt"),
            b"bytes",
            "text/plain"
        )
        .await
        .status(),
        200
    );
    let response = app.post_json("/object/copy", &token, json!({
        "bucketId": "private", "sourceKey": format!("{alice}/fine.txt"), "destinationKey": format!("{alice}/boom-copy.txt")
    })).await;
    assert_eq!(response.status(), 500);
    assert_eq!(app.stored_files().len(), 1, "{:?}", app.stored_files());
}

#[tokio::test]
async fn start_up_sweep_removes_temporary_files_left_by_a_crash() {
    let app = spawn_app().await;
    let left = "tmp/0123456789abcdef".to_owned();
    plinth_storage::build_operator(&app.backend)
        .unwrap()
        .write(&left, b"half an upload".to_vec())
        .await
        .unwrap();
    assert_eq!(
        app.upload(&app.service, "private", "kept.txt", b"kept", "text/plain")
            .await
            .status(),
        200
    );

    // a restart with a grace period keeps young temporary files
    let jwt = JwtSecret::new(SECRET).unwrap();
    StorageState::new(
        app.test_db.db.clone(),
        jwt.clone(),
        app.config(Duration::from_secs(3600)),
    )
    .await
    .unwrap();
    assert!(app.stored_files().contains(&left));
    // once they are older than the grace period, they go; objects stay
    StorageState::new(app.test_db.db.clone(), jwt, app.config(Duration::ZERO))
        .await
        .unwrap();
    assert!(!app.stored_files().contains(&left));
    assert_eq!(app.object_files().len(), 1);
    assert_eq!(
        app.get("/object/private/kept.txt", &app.service)
            .await
            .bytes()
            .await
            .unwrap()
            .as_ref(),
        b"kept"
    );
}

#[tokio::test]
async fn the_orphan_sweep_removes_every_byte_no_row_names_and_nothing_else() {
    let app = spawn_app().await;
    assert_eq!(
        app.upload(&app.service, "private", "kept.txt", b"kept", "text/plain")
            .await
            .status(),
        200
    );
    let live = app.object_files();
    assert_eq!(live.len(), 1);
    // What a crash leaves: bytes of a version no row has, anywhere in the
    // store, and renditions of such a version.
    let orphans = [
        "objects/0f/0f5e2c1a-orphan-version".to_owned(),
        "objects/9a/9a000000-another-orphan".to_owned(),
        "renditions/0f/0f5e2c1a-orphan-version/w100-h100.webp".to_owned(),
    ];
    let op = plinth_storage::build_operator(&app.backend).unwrap();
    for key in &orphans {
        op.write(key, b"left by a crash".to_vec()).await.unwrap();
    }

    // Within the grace period they may be a running upload's: kept.
    let jwt = JwtSecret::new(SECRET).unwrap();
    let patient = StorageState::new(
        app.test_db.db.clone(),
        jwt.clone(),
        app.config(Duration::from_secs(3600)),
    )
    .await
    .unwrap();
    assert_eq!(patient.sweep_orphans().await.unwrap(), 0);
    for key in &orphans {
        assert!(app.stored_files().contains(key), "{key} went too early");
    }

    // Past it they go (the start-up sweep runs in the background; the call
    // sweeps whatever it left), and the live object stays readable.
    let eager = StorageState::new(app.test_db.db.clone(), jwt, app.config(Duration::ZERO))
        .await
        .unwrap();
    eager.sweep_orphans().await.unwrap();
    let stored = app.stored_files();
    for key in &orphans {
        assert!(!stored.contains(key), "{key} was not swept: {stored:?}");
    }
    assert_eq!(app.object_files(), live);
    assert_eq!(
        app.get("/object/private/kept.txt", &app.service)
            .await
            .bytes()
            .await
            .unwrap()
            .as_ref(),
        b"kept"
    );
}

// ------------------------------------------------------------ the marketplace's SQL

#[tokio::test]
async fn marketplace_buckets_and_policies_apply_and_confine_users_to_their_folder() {
    let test_db = TestDb::new(&[
        plinth_db::platform_migrations(),
        plinth_storage::migrations(),
    ])
    .await;
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for file in [
        "migrations/20261122000100_storage_buckets.sql",
        "policies/0100_storage_objects.sql",
    ] {
        let sql = std::fs::read_to_string(repo.join(file)).unwrap();
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
            .execute(&test_db.db.owner)
            .await
            .unwrap_or_else(|e| panic!("{file}: {e}"));
    }
    let jwt = JwtSecret::new(SECRET).unwrap();
    let root = tempfile::tempdir().unwrap();
    let state = StorageState::new(
        test_db.db.clone(),
        jwt.clone(),
        config(root.path(), Duration::from_secs(60)),
    )
    .await
    .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, plinth_storage::router(state))
            .await
            .unwrap()
    });
    let client = reqwest::Client::new();
    let url = |p: &str| format!("http://{addr}{p}");
    let (alice, bob) = (Uuid::new_v4(), Uuid::new_v4());
    let user =
        |id: Uuid| jwt.sign(&json!({ "sub": id, "role": "authenticated", "exp": now() + 600 }));
    let upload =
        |bucket: &str, name: String, token: String, content_type: &'static str, body: Vec<u8>| {
            client
                .post(url(&format!("/object/{bucket}/{name}")))
                .bearer_auth(token)
                .header("content-type", content_type)
                .body(body)
                .send()
        };
    // avatars: own folder, images only, 5 MB
    let response = upload(
        "avatars",
        format!("{alice}/1-a.png"),
        user(alice),
        "image/png",
        b"png".to_vec(),
    )
    .await
    .unwrap();
    assert_eq!(response.status(), 200);
    let response = upload(
        "avatars",
        format!("{bob}/1-a.png"),
        user(alice),
        "image/png",
        b"png".to_vec(),
    )
    .await
    .unwrap();
    assert_eq!(response.json::<Value>().await.unwrap()["statusCode"], "403");
    let response = upload(
        "avatars",
        format!("{alice}/x.txt"),
        user(alice),
        "text/plain",
        b"x".to_vec(),
    )
    .await
    .unwrap();
    assert_eq!(response.json::<Value>().await.unwrap()["statusCode"], "415");
    let response = upload(
        "avatars",
        format!("{alice}/big.png"),
        user(alice),
        "image/png",
        vec![0; 5 * 1024 * 1024 + 1],
    )
    .await
    .unwrap();
    assert_eq!(response.json::<Value>().await.unwrap()["statusCode"], "413");
    // templates: own folder, anyone reads
    let response = upload(
        "templates",
        format!("{alice}/files/1-t.zip"),
        user(alice),
        "application/zip",
        b"zip".to_vec(),
    )
    .await
    .unwrap();
    assert_eq!(response.status(), 200);
    let response = upload(
        "templates",
        format!("{alice}/files/2-t.zip"),
        jwt.api_key("anon", now(), now() + 60),
        "application/zip",
        b"zip".to_vec(),
    )
    .await
    .unwrap();
    assert_eq!(response.json::<Value>().await.unwrap()["statusCode"], "403");
    let response = client
        .get(url(&format!(
            "/object/public/templates/{alice}/files/1-t.zip"
        )))
        .send()
        .await
        .unwrap();
    assert_eq!(response.bytes().await.unwrap().as_ref(), b"zip");
    let response = client
        .get(url(&format!("/object/templates/{alice}/files/1-t.zip")))
        .bearer_auth(jwt.api_key("anon", now(), now() + 60))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "anyone reads");
    // only the owner deletes
    let removed: Value = client
        .delete(url("/object/templates"))
        .bearer_auth(user(bob))
        .json(&json!({ "prefixes": [format!("{alice}/files/1-t.zip")] }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(removed, json!([]));
    let removed: Value = client
        .delete(url("/object/templates"))
        .bearer_auth(user(alice))
        .json(&json!({ "prefixes": [format!("{alice}/files/1-t.zip")] }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(removed.as_array().unwrap().len(), 1);
}
