//! Resumable uploads: TUS 1.0.0 at `/upload/resumable`, as the platform's
//! storage server speaks it (`creation`, `creation-with-upload`,
//! `termination`, `expiration`).
//!
//! * `POST /upload/resumable` creates an upload from `Upload-Length` and
//!   `Upload-Metadata` (`bucketName`, `objectName`, `contentType`,
//!   `cacheControl`, `metadata`; base64 values) after checking, as the
//!   caller, what a normal upload checks: the bucket, its size limit and
//!   types, and the insert permission under row-level security (`x-upsert:
//!   true` also needs update). The answer's `Location` is
//!   `…/upload/resumable/<base64url("bucket/name/uuid")>`.
//! * `PATCH` appends bytes at `Upload-Offset` (409 on any other offset),
//!   `HEAD` tells the offset, `DELETE` drops an unfinished upload.
//! * `creation-defer-length`: created with `Upload-Defer-Length: 1`, an
//!   upload may grow up to the bucket's limit until a `PATCH` tells its
//!   `Upload-Length` (once; at least what arrived, at most the limit).
//! * `/upload/resumable/sign` (and `/sign/<id>`) is the same protocol for
//!   the holder of a signed upload URL's token (`createSignedUploadUrl`),
//!   sent on every request as `x-signature` instead of a JWT, as on the
//!   platform: the token names the one object it may write, its owner and
//!   whether it may replace it; the permission was checked when it was
//!   signed, so no row-level check runs, but the token's expiry does.
//!
//! # Staging
//!
//! An upload lives under `tus/<uuid>/` in the byte store until it is
//! complete: `info.json` (who created it, for which object, how long) and one
//! key per received chunk, `parts/<start offset>`. Bytes received before a
//! connection drops are kept as a shorter part, so a client resumes from
//! what arrived. Keys come from the upload's UUID only, never from the
//! object name. Once the last byte is in, the parts are streamed into a
//! temporary key and committed exactly like a normal upload (the row and
//! the bytes in one transaction, as the caller), then the parts go. Uploads
//! past their expiry are removed by [`sweep_expired`] (at start-up and, at
//! most once a minute, when an upload is created).

use std::collections::HashMap;
use std::sync::{Arc, Mutex as StdMutex, OnceLock};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{OriginalUri, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use futures_util::{Stream, StreamExt};
use opendal::{ErrorKind, Operator};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::StorageError;
use crate::extract::Path;
use crate::meta::{self, Caller};
use crate::names::{validate_bucket_name, validate_object_name};
use crate::objects::{check_mime, commit_object, declared, verify_upload_token};
use crate::store::ReceiveError;
use crate::{StorageState, now_secs, wire};

/// The protocol version spoken.
pub(crate) const TUS_VERSION: &str = "1.0.0";
/// The extensions implemented.
pub(crate) const TUS_EXTENSIONS: &str =
    "creation,creation-with-upload,creation-defer-length,termination,expiration";
const STAGING: &str = "tus/";
const OCTETS: &str = "application/offset+octet-stream";
/// How long a request waits for another one on the same upload.
const LOCK_WAIT: Duration = Duration::from_secs(10);

// ---------------------------------------------------------------- errors

/// An answer that is not a success. Token problems answer as every other
/// storage route (JSON); the protocol's own errors are plain text with the
/// real status, as the platform's TUS server sends them.
#[derive(Debug)]
pub(crate) enum TusError {
    Auth(StorageError),
    Text(StatusCode, String),
}

impl TusError {
    fn text(status: StatusCode, message: &str) -> Self {
        TusError::Text(status, message.to_owned())
    }

    fn not_found() -> Self {
        Self::text(StatusCode::NOT_FOUND, "The file for this url was not found")
    }
}

impl From<StorageError> for TusError {
    fn from(error: StorageError) -> Self {
        let status =
            StatusCode::from_u16(error.status_code()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let message = match &error {
            StorageError::Internal(cause) => {
                tracing::error!(%cause, "resumable upload failed");
                "Internal Server Error".to_owned()
            }
            other => other.to_string(),
        };
        TusError::Text(status, message)
    }
}

impl From<opendal::Error> for TusError {
    fn from(error: opendal::Error) -> Self {
        StorageError::internal("resumable upload staging", error).into()
    }
}

impl IntoResponse for TusError {
    fn into_response(self) -> Response {
        match self {
            TusError::Auth(e) => {
                let mut response = e.into_response();
                tus_headers(response.headers_mut());
                response
            }
            TusError::Text(status, message) => {
                let mut response = (status, message).into_response();
                tus_headers(response.headers_mut());
                response
            }
        }
    }
}

type TusResult<T> = Result<T, TusError>;

fn tus_headers(headers: &mut HeaderMap) {
    headers.insert("tus-resumable", HeaderValue::from_static(TUS_VERSION));
}

fn set(headers: &mut HeaderMap, name: &'static str, value: &str) {
    if let Ok(value) = HeaderValue::from_str(value) {
        headers.insert(name, value);
    }
}

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

// ---------------------------------------------------------------- ids and metadata

/// `base64url("bucket/name/uuid")`, the last segment of an upload URL.
pub(crate) fn encode_id(bucket: &str, name: &str, upload: &str) -> String {
    URL_SAFE_NO_PAD.encode(format!("{bucket}/{name}/{upload}"))
}

/// The parts of an upload id; `None` for anything that is not one.
pub(crate) fn decode_id(id: &str) -> Option<(String, String, String)> {
    let raw = URL_SAFE_NO_PAD.decode(id.trim_end_matches('=')).ok()?;
    let raw = String::from_utf8(raw).ok()?;
    let (bucket, rest) = raw.split_once('/')?;
    let (name, upload) = rest.rsplit_once('/')?;
    let upload = uuid::Uuid::parse_str(upload).ok()?.simple().to_string();
    if validate_bucket_name(bucket).is_err() || validate_object_name(name).is_err() {
        return None;
    }
    Some((bucket.to_owned(), name.to_owned(), upload))
}

const INVALID_METADATA: &str = "Upload-Metadata is invalid. It MUST consist of one or more \
     comma-separated key-value pairs. The key and value MUST be separated by a space. The key \
     MUST NOT contain spaces and commas and MUST NOT be empty. The key SHOULD be ASCII encoded \
     and the value MUST be Base64 encoded. All keys MUST be unique";

/// `Upload-Metadata`: `key base64,key base64,key`; `None` when malformed.
pub(crate) fn parse_metadata(header: &str) -> Option<HashMap<String, String>> {
    let mut out = HashMap::new();
    for pair in header.split(',') {
        let pair = pair.trim();
        let mut words = pair.split(' ');
        let key = words.next().filter(|k| !k.is_empty())?;
        let value = match words.next() {
            None | Some("") => String::new(),
            Some(encoded) => String::from_utf8(STANDARD.decode(encoded).ok()?).ok()?,
        };
        if words.next().is_some() || out.insert(key.to_owned(), value).is_some() {
            return None;
        }
    }
    Some(out)
}

/// The `cacheControl` metadata as the platform reads it: a number of
/// seconds, else `no-cache`.
fn cache_control(value: Option<&str>) -> String {
    match value.map(str::trim) {
        Some(v) if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) => {
            format!("max-age={v}")
        }
        _ => "no-cache".to_owned(),
    }
}

// ---------------------------------------------------------------- staging

/// What is known about an upload besides its bytes (`info.json`).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct UploadInfo {
    bucket: String,
    name: String,
    length: u64,
    /// Created with `Upload-Defer-Length: 1`: the size is not known yet and
    /// `length` is only the most it may reach (the bucket's limit), until a
    /// `PATCH` says `Upload-Length`.
    #[serde(default)]
    deferred: bool,
    /// The creator's `sub` and role: only they may continue it.
    sub: Option<String>,
    role: String,
    upsert: bool,
    content_type: String,
    cache_control: String,
    user_metadata: Option<Value>,
    /// `Upload-Metadata` as sent, for `HEAD`.
    metadata_header: Option<String>,
    expires: i64,
    completed: bool,
}

fn info_key(upload: &str) -> String {
    format!("{STAGING}{upload}/info.json")
}

fn parts_dir(upload: &str) -> String {
    format!("{STAGING}{upload}/parts/")
}

fn part_key(upload: &str, offset: u64) -> String {
    format!("{}{offset:020}", parts_dir(upload))
}

async fn read_info(op: &Operator, upload: &str) -> TusResult<Option<UploadInfo>> {
    match op.read(&info_key(upload)).await {
        Ok(bytes) => Ok(serde_json::from_slice(&bytes.to_vec()).ok()),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e.into()),
    }
}

async fn write_info(op: &Operator, upload: &str, info: &UploadInfo) -> TusResult<()> {
    let json = serde_json::to_vec(info)
        .map_err(|e| StorageError::internal("encoding an upload's info", e))?;
    op.write(&info_key(upload), json).await?;
    Ok(())
}

/// The received parts in order as `(key, start, size)`: the contiguous run
/// from offset 0. Anything after a gap cannot be used and is removed.
async fn parts(op: &Operator, upload: &str) -> TusResult<Vec<(String, u64, u64)>> {
    let entries = match op.list_with(&parts_dir(upload)).await {
        Ok(entries) => entries,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e.into()),
    };
    let mut found = Vec::new();
    for entry in entries {
        let path = entry.path().to_owned();
        let Some(start) = path.rsplit('/').next().and_then(|s| s.parse::<u64>().ok()) else {
            continue;
        };
        let size = match entry.metadata().content_length() {
            0 => op
                .stat(&path)
                .await
                .map(|m| m.content_length())
                .unwrap_or(0),
            n => n,
        };
        found.push((path, start, size));
    }
    found.sort_by_key(|(_, start, _)| *start);
    let mut offset = 0;
    let mut usable = Vec::new();
    for (path, start, size) in found {
        if start == offset && size > 0 {
            offset += size;
            usable.push((path, start, size));
        } else {
            op.delete(&path).await.ok();
        }
    }
    Ok(usable)
}

async fn offset_of(op: &Operator, upload: &str) -> TusResult<u64> {
    Ok(parts(op, upload)
        .await?
        .iter()
        .map(|(_, _, size)| size)
        .sum())
}

/// Removes everything staged for an upload.
async fn remove_upload(op: &Operator, upload: &str) {
    if let Err(e) = op
        .delete_with(&format!("{STAGING}{upload}/"))
        .recursive(true)
        .await
        && e.kind() != ErrorKind::NotFound
    {
        tracing::warn!(%e, upload, "could not remove a resumable upload's staging");
    }
}

/// One lock per upload in this process: requests on one upload take turns.
/// A request that finds the lock taken asks the holder to let go (`release`):
/// a PATCH whose client vanished without closing its connection stops
/// reading, keeps what arrived and frees the upload, as the platform's TUS
/// locker does.
#[derive(Debug, Default)]
struct UploadLock {
    mutex: Arc<tokio::sync::Mutex<()>>,
    release: Arc<tokio::sync::Notify>,
}

/// The lock of one upload, held.
struct Held {
    _guard: tokio::sync::OwnedMutexGuard<()>,
    release: Arc<tokio::sync::Notify>,
}

fn lock_for(upload: &str) -> (Arc<tokio::sync::Mutex<()>>, Arc<tokio::sync::Notify>) {
    static LOCKS: OnceLock<StdMutex<HashMap<String, UploadLock>>> = OnceLock::new();
    let mut locks = LOCKS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    // Forget locks nobody holds, so the map stays small.
    if locks.len() > 1024 {
        locks.retain(|_, lock| Arc::strong_count(&lock.mutex) > 1);
    }
    let lock = locks.entry(upload.to_owned()).or_default();
    (lock.mutex.clone(), lock.release.clone())
}

async fn locked(upload: &str) -> TusResult<Held> {
    let (mutex, release) = lock_for(upload);
    let guard = match mutex.clone().try_lock_owned() {
        Ok(guard) => guard,
        Err(_) => {
            release.notify_waiters();
            tokio::time::timeout(LOCK_WAIT, mutex.lock_owned())
                .await
                .map_err(|_| {
                    TusError::text(
                        StatusCode::LOCKED,
                        "The upload is being written by another request",
                    )
                })?
        }
    };
    Ok(Held {
        _guard: guard,
        release,
    })
}

/// Removes staged uploads that expired (and their parts).
pub(crate) async fn sweep_expired(op: &Operator) -> Result<usize, opendal::Error> {
    let entries = match op.list(STAGING).await {
        Ok(entries) => entries,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let now = now_secs();
    let mut removed = 0;
    for entry in entries {
        let Some(upload) = entry
            .path()
            .strip_prefix(STAGING)
            .map(|p| p.trim_end_matches('/'))
            .filter(|p| !p.is_empty() && !p.contains('/'))
        else {
            continue;
        };
        let expired = match op.read(&info_key(upload)).await {
            Ok(bytes) => serde_json::from_slice::<UploadInfo>(&bytes.to_vec())
                .map(|info| info.expires <= now)
                .unwrap_or(true),
            // Parts without an info file: a creation that broke off.
            Err(e) if e.kind() == ErrorKind::NotFound => true,
            Err(e) => return Err(e),
        };
        if expired {
            remove_upload(op, upload).await;
            removed += 1;
        }
    }
    Ok(removed)
}

/// Runs [`sweep_expired`] in the background at most once a minute.
fn maybe_sweep(state: &StorageState) {
    static LAST: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(0);
    let now = now_secs();
    let last = LAST.load(std::sync::atomic::Ordering::Relaxed);
    if now - last < 60
        || LAST
            .compare_exchange(
                last,
                now,
                std::sync::atomic::Ordering::Relaxed,
                std::sync::atomic::Ordering::Relaxed,
            )
            .is_err()
    {
        return;
    }
    let op = state.inner.store.operator().clone();
    tokio::spawn(async move {
        match sweep_expired(&op).await {
            Ok(0) => {}
            Ok(removed) => tracing::info!(removed, "removed expired resumable uploads"),
            Err(e) => tracing::warn!(%e, "sweeping expired resumable uploads"),
        }
    });
}

// ---------------------------------------------------------------- receiving

/// Appends `body` to the upload as a part starting at `offset`, stopping at
/// `length`. A body that breaks off keeps what arrived. Returns the new
/// offset.
async fn receive_part<S, E>(
    store: &crate::store::ByteStore,
    held: &Held,
    upload: &str,
    offset: u64,
    length: u64,
    mut body: S,
) -> TusResult<u64>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
    E: std::fmt::Display,
{
    let op = store.operator();
    let key = part_key(upload, offset);
    let mut writer = op.writer_with(&key).chunk(store.write_chunk()).await?;
    let mut received: u64 = 0;
    let mut outcome = Ok(());
    let released = held.release.notified();
    tokio::pin!(released);
    released.as_mut().enable();
    loop {
        let next = tokio::select! {
            biased;
            () = &mut released => {
                tracing::debug!(upload, received, "another request took over a resumable upload");
                break;
            }
            next = body.next() => next,
        };
        let Some(chunk) = next else { break };
        match chunk {
            Ok(chunk) => {
                if offset + received + chunk.len() as u64 > length {
                    outcome = Err(TusError::text(
                        StatusCode::PAYLOAD_TOO_LARGE,
                        "upload's size exceeded",
                    ));
                    break;
                }
                received += chunk.len() as u64;
                if let Err(e) = writer.write(chunk).await {
                    let _ = writer.abort().await;
                    return Err(e.into());
                }
            }
            Err(e) => {
                // The connection dropped: keep what arrived.
                tracing::debug!(%e, upload, received, "a resumable upload's body broke off");
                break;
            }
        }
    }
    if received == 0 {
        let _ = writer.abort().await;
        op.delete(&key).await.ok();
    } else {
        writer.close().await?;
    }
    outcome.map(|()| offset + received)
}

/// Streams the parts into a temporary key and commits the object as the
/// caller; the staging goes once the row is in.
async fn finish(
    state: &StorageState,
    caller: &Caller,
    upload: &str,
    info: &mut UploadInfo,
) -> TusResult<()> {
    let op = state.inner.store.operator().clone();
    let parts = parts(&op, upload).await?;
    let readers = futures_util::stream::iter(parts)
        .then(move |(key, _, size)| {
            let op = op.clone();
            async move {
                let reader = op.reader(&key).await.map_err(|e| e.to_string())?;
                reader
                    .into_bytes_stream(0..size)
                    .await
                    .map_err(|e| e.to_string())
            }
        })
        .map(|opened| match opened {
            Ok(stream) => stream.map(|c| c.map_err(|e| e.to_string())).left_stream(),
            Err(e) => futures_util::stream::once(async move { Err(e) }).right_stream(),
        })
        .flatten();
    let received = match state
        .inner
        .store
        .receive(Box::pin(readers), info.length)
        .await
    {
        Ok(received) => received,
        Err(ReceiveError::Body(why)) => {
            return Err(StorageError::internal("reading staged parts", why).into());
        }
        Err(e) => return Err(StorageError::from(e).into()),
    };
    if received.size != info.length {
        state.inner.store.remove_version(&received.version).await;
        return Err(StorageError::internal("finishing an upload", "staged parts are short").into());
    }
    let metadata = meta::object_metadata(
        received.size,
        &received.etag,
        &info.content_type,
        &info.cache_control,
    );
    commit_object(
        state,
        caller,
        &info.bucket,
        &info.name,
        info.upsert,
        &received.version,
        metadata,
        info.user_metadata.clone(),
    )
    .await?;
    info.completed = true;
    let op = state.inner.store.operator();
    // The info stays until expiry (HEAD answers the full offset); the
    // parts go now.
    write_info(op, upload, info).await?;
    if let Err(e) = op.delete_with(&parts_dir(upload)).recursive(true).await {
        tracing::warn!(%e, upload, "could not remove a finished upload's parts");
    }
    Ok(())
}

// ---------------------------------------------------------------- handlers

fn require_tus(headers: &HeaderMap) -> TusResult<()> {
    match header_str(headers, "tus-resumable") {
        Some(TUS_VERSION) => Ok(()),
        Some(_) => Err(TusError::text(
            StatusCode::PRECONDITION_FAILED,
            "Unsupported version",
        )),
        None => Err(TusError::text(
            StatusCode::PRECONDITION_FAILED,
            "Tus-Resumable Required",
        )),
    }
}

/// An `Upload-Length` value: digits only.
fn upload_length(value: &str) -> TusResult<u64> {
    let value = value.trim();
    value
        .parse::<u64>()
        .ok()
        .filter(|_| value.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(|| TusError::text(StatusCode::BAD_REQUEST, "Invalid Upload-Length"))
}

/// Which route a request came by: with the caller's JWT, or with a signed
/// upload URL's token (`/upload/resumable/sign`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Route {
    Jwt,
    Signed,
}

impl Route {
    const fn of(signed: bool) -> Self {
        if signed { Route::Signed } else { Route::Jwt }
    }
}

fn caller(
    state: &StorageState,
    method: &Method,
    uri: &str,
    headers: &HeaderMap,
) -> TusResult<Caller> {
    Caller::from_request(state, headers, method, uri).map_err(TusError::Auth)
}

/// On the signed route: the `x-signature` token, checked for `bucket/name`,
/// gives who acts (its owner, bypassing row-level security as any signed
/// upload does) and whether the object may be replaced.
fn signer(
    state: &StorageState,
    headers: &HeaderMap,
    bucket: &str,
    name: &str,
) -> TusResult<(Caller, bool)> {
    let token = header_str(headers, "x-signature")
        .filter(|t| !t.is_empty())
        .ok_or_else(|| TusError::text(StatusCode::BAD_REQUEST, "Missing x-signature header"))?;
    let (owner, upsert) = verify_upload_token(state, Some(token), bucket, name)?;
    Ok((Caller::system(owner.as_deref()), upsert))
}

/// Who acts on the upload `id` names, by `route`.
fn acting(
    state: &StorageState,
    route: Route,
    id: &str,
    method: &Method,
    uri: &str,
    headers: &HeaderMap,
) -> TusResult<Caller> {
    match route {
        Route::Jwt => caller(state, method, uri, headers),
        Route::Signed => {
            let (bucket, name, _) = decode_id(id).ok_or_else(TusError::not_found)?;
            signer(state, headers, &bucket, &name).map(|(caller, _)| caller)
        }
    }
}

/// The upload named by `id`, when it exists, has not expired and belongs
/// to `caller`.
async fn find(state: &StorageState, id: &str, caller: &Caller) -> TusResult<(String, UploadInfo)> {
    let (bucket, name, upload) = decode_id(id).ok_or_else(TusError::not_found)?;
    let info = read_info(state.inner.store.operator(), &upload)
        .await?
        .filter(|info| info.bucket == bucket && info.name == name)
        .ok_or_else(TusError::not_found)?;
    let same =
        info.sub.as_deref() == caller.sub() && (info.sub.is_some() || info.role == caller.ctx.role);
    if !same {
        return Err(TusError::not_found());
    }
    if info.expires <= now_secs() {
        return Err(TusError::text(
            StatusCode::GONE,
            "The file for this url no longer exists",
        ));
    }
    Ok((upload, info))
}

fn expires_header(headers: &mut HeaderMap, info: &UploadInfo) {
    if let Some(at) = chrono::DateTime::from_timestamp(info.expires, 0) {
        set(headers, "upload-expires", &wire::http_date(at));
    }
}

/// `OPTIONS`: what the server supports.
pub(crate) async fn options(State(state): State<StorageState>) -> Response {
    let mut headers = HeaderMap::new();
    tus_headers(&mut headers);
    set(&mut headers, "tus-version", TUS_VERSION);
    set(&mut headers, "tus-extension", TUS_EXTENSIONS);
    set(
        &mut headers,
        "tus-max-size",
        &state.inner.config.file_size_limit.to_string(),
    );
    (StatusCode::NO_CONTENT, headers).into_response()
}

/// Where uploads are continued: the request's path under the scheme and
/// host of `STORAGE_PUBLIC_URL`, else of the (forwarded) request, as the
/// platform builds it.
fn location(
    state: &StorageState,
    uri: &axum::http::Uri,
    headers: &HeaderMap,
    id: &str,
) -> TusResult<String> {
    let path = uri.path().trim_end_matches('/');
    if let Some(public) = &state.inner.config.public_url
        && let Some((scheme, rest)) = public.split_once("://")
    {
        let host = rest.split('/').next().unwrap_or_default();
        return Ok(format!("{scheme}://{host}{path}/{id}"));
    }
    let host = header_str(headers, "x-forwarded-host")
        .or_else(|| header_str(headers, "host"))
        .or_else(|| uri.authority().map(|a| a.as_str()))
        .filter(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_graphic()))
        .ok_or_else(|| TusError::text(StatusCode::BAD_REQUEST, "Host header required"))?;
    let proto = match header_str(headers, "x-forwarded-proto") {
        Some("https") => "https",
        _ => "http",
    };
    Ok(format!("{proto}://{host}{path}/{id}"))
}

/// `POST /upload/resumable` (`SIGNED`: `/upload/resumable/sign`): creates
/// an upload (and takes its first bytes).
pub(crate) async fn create<const SIGNED: bool>(
    State(state): State<StorageState>,
    OriginalUri(original): OriginalUri,
    request: Request,
) -> Response {
    create_upload(&state, Route::of(SIGNED), &original, request)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

async fn create_upload(
    state: &StorageState,
    route: Route,
    original: &axum::http::Uri,
    request: Request,
) -> TusResult<Response> {
    let headers = request.headers().clone();
    require_tus(&headers)?;
    // The JWT is checked first; a signature needs the object's name.
    let jwt_caller = match route {
        Route::Jwt => Some(caller(
            state,
            request.method(),
            request.uri().path(),
            &headers,
        )?),
        Route::Signed => None,
    };
    maybe_sweep(state);
    let deferred = match header_str(&headers, "upload-defer-length") {
        None => false,
        Some("1") if header_str(&headers, "upload-length").is_none() => true,
        Some(_) => {
            return Err(TusError::text(
                StatusCode::BAD_REQUEST,
                "Invalid Upload-Defer-Length",
            ));
        }
    };
    let length = match header_str(&headers, "upload-length") {
        None if deferred => None,
        None => {
            return Err(TusError::text(
                StatusCode::BAD_REQUEST,
                "Upload-Length or Upload-Defer-Length header required",
            ));
        }
        Some(v) => Some(upload_length(v)?),
    };
    let metadata_header = header_str(&headers, "upload-metadata").map(str::to_owned);
    let metadata = match &metadata_header {
        None => {
            return Err(TusError::text(
                StatusCode::BAD_REQUEST,
                "Metadata header is required",
            ));
        }
        Some(raw) => parse_metadata(raw)
            .ok_or_else(|| TusError::text(StatusCode::BAD_REQUEST, INVALID_METADATA))?,
    };
    let bucket = metadata.get("bucketName").cloned().unwrap_or_default();
    let name = metadata.get("objectName").cloned().unwrap_or_default();
    validate_bucket_name(&bucket)?;
    validate_object_name(&name)?;
    let (caller, upsert) = match jwt_caller {
        Some(caller) => {
            let upsert = header_str(&headers, "x-upsert").is_some_and(|v| v.trim() == "true");
            (caller, upsert)
        }
        None => signer(state, &headers, &bucket, &name)?,
    };

    let insert = (route == Route::Jwt).then_some(meta::TestInsert {
        caller: &caller,
        name: &name,
        upsert,
    });
    let (bucket_row, allowed) = meta::upload_checks(state, &bucket, insert).await?;
    let limit = bucket_row.size_limit(state.inner.config.file_size_limit);
    if length.is_some_and(|length| length > limit) {
        return Err(TusError::text(
            StatusCode::PAYLOAD_TOO_LARGE,
            "Maximum size exceeded",
        ));
    }
    let length = length.unwrap_or(limit);
    let content_type = match metadata.get("contentType").filter(|t| !t.is_empty()) {
        Some(declared_type) => declared(declared_type)?,
        None => "application/octet-stream".to_owned(),
    };
    check_mime(&bucket_row, &content_type)?;
    allowed?;

    let user_metadata = metadata
        .get("metadata")
        .and_then(|m| serde_json::from_str::<Value>(m).ok())
        .filter(Value::is_object);
    let upload = crate::store::new_version();
    let mut info = UploadInfo {
        bucket: bucket.clone(),
        name: name.clone(),
        length,
        deferred,
        sub: caller.sub().map(str::to_owned),
        role: caller.ctx.role.clone(),
        upsert,
        content_type,
        cache_control: cache_control(metadata.get("cacheControl").map(String::as_str)),
        user_metadata,
        metadata_header,
        expires: now_secs() + state.inner.config.tus_url_expiry.as_secs() as i64,
        completed: false,
    };
    let op = state.inner.store.operator().clone();
    write_info(&op, &upload, &info).await?;
    let id = encode_id(&bucket, &name, &upload);
    let location = location(state, original, &headers, &id)?;

    let mut out = HeaderMap::new();
    tus_headers(&mut out);
    set(&mut out, "location", &location);
    expires_header(&mut out, &info);

    let with_body = header_str(&headers, "content-type").is_some_and(|t| t == OCTETS);
    if with_body || (length == 0 && !deferred) {
        let held = locked(&upload).await?;
        let offset = if with_body {
            let body = request.into_body().into_data_stream();
            receive_part(&state.inner.store, &held, &upload, 0, length, body).await?
        } else {
            0
        };
        set(&mut out, "upload-offset", &offset.to_string());
        if offset == length && !deferred {
            finish(state, &caller, &upload, &mut info).await?;
            set(&mut out, "tus-complete", "1");
        }
    }
    Ok((StatusCode::CREATED, out).into_response())
}

/// The upload a `HEAD` or `DELETE` names, found for its caller, with its
/// lock held.
async fn open_locked(
    state: &StorageState,
    route: Route,
    id: &str,
    method: &Method,
    uri: &axum::http::Uri,
    headers: &HeaderMap,
) -> TusResult<(String, UploadInfo, Held)> {
    require_tus(headers)?;
    let caller = acting(state, route, id, method, uri.path(), headers)?;
    let (upload, info) = find(state, id, &caller).await?;
    let guard = locked(&upload).await?;
    Ok((upload, info, guard))
}

/// `HEAD /upload/resumable[/sign]/{id}`: how much arrived.
pub(crate) async fn head<const SIGNED: bool>(
    State(state): State<StorageState>,
    Path(id): Path<String>,
    method: Method,
    uri: axum::http::Uri,
    headers: HeaderMap,
) -> Response {
    let result = async {
        let (upload, info, _guard) =
            open_locked(&state, Route::of(SIGNED), &id, &method, &uri, &headers).await?;
        let offset = if info.completed {
            info.length
        } else {
            offset_of(state.inner.store.operator(), &upload).await?
        };
        let mut out = HeaderMap::new();
        tus_headers(&mut out);
        out.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        set(&mut out, "upload-offset", &offset.to_string());
        if info.deferred {
            set(&mut out, "upload-defer-length", "1");
        } else {
            set(&mut out, "upload-length", &info.length.to_string());
        }
        if let Some(raw) = &info.metadata_header {
            set(&mut out, "upload-metadata", raw);
        }
        expires_header(&mut out, &info);
        Ok::<_, TusError>((StatusCode::OK, out).into_response())
    }
    .await;
    result.unwrap_or_else(IntoResponse::into_response)
}

/// `PATCH /upload/resumable[/sign]/{id}`: bytes at `Upload-Offset`.
pub(crate) async fn patch<const SIGNED: bool>(
    State(state): State<StorageState>,
    Path(id): Path<String>,
    request: Request,
) -> Response {
    patch_upload(&state, Route::of(SIGNED), &id, request)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

async fn patch_upload(
    state: &StorageState,
    route: Route,
    id: &str,
    request: Request,
) -> TusResult<Response> {
    let headers = request.headers().clone();
    require_tus(&headers)?;
    let caller = acting(
        state,
        route,
        id,
        request.method(),
        request.uri().path(),
        &headers,
    )?;
    if header_str(&headers, "content-type") != Some(OCTETS) {
        return Err(TusError::text(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Content-Type should be application/offset+octet-stream",
        ));
    }
    let claimed = header_str(&headers, "upload-offset")
        .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|v| v.parse::<u64>().ok())
        .ok_or_else(|| TusError::text(StatusCode::FORBIDDEN, "Upload-Offset header required"))?;
    let (upload, _) = find(state, id, &caller).await?;
    let held = locked(&upload).await?;
    // Read again under the lock: another request may have finished it.
    let mut info = read_info(state.inner.store.operator(), &upload)
        .await?
        .ok_or_else(TusError::not_found)?;
    let op = state.inner.store.operator().clone();
    let offset = if info.completed {
        info.length
    } else {
        offset_of(&op, &upload).await?
    };
    if claimed != offset {
        return Err(TusError::text(
            StatusCode::CONFLICT,
            "Upload-Offset conflict",
        ));
    }
    if info.completed {
        let mut out = HeaderMap::new();
        tus_headers(&mut out);
        set(&mut out, "upload-offset", &offset.to_string());
        set(&mut out, "tus-complete", "1");
        return Ok((StatusCode::NO_CONTENT, out).into_response());
    }
    // The permission is the caller's now, as when it was created (a
    // signature was checked when signed, and above for its expiry).
    if route == Route::Jwt {
        meta::precheck_insert(state, &caller, &info.bucket, &info.name, info.upsert).await?;
    }
    // A deferred length is told once, by a PATCH (creation-defer-length).
    if let Some(told) = header_str(&headers, "upload-length") {
        let told = upload_length(told)?;
        if !info.deferred {
            if told != info.length {
                return Err(TusError::text(
                    StatusCode::BAD_REQUEST,
                    "Upload-Length cannot be changed",
                ));
            }
        } else if told > info.length {
            return Err(TusError::text(
                StatusCode::PAYLOAD_TOO_LARGE,
                "Maximum size exceeded",
            ));
        } else if told < offset {
            return Err(TusError::text(
                StatusCode::BAD_REQUEST,
                "Upload-Length is smaller than the current offset",
            ));
        } else {
            info.length = told;
            info.deferred = false;
            write_info(&op, &upload, &info).await?;
        }
    }
    if let Some(length) = header_str(&headers, "content-length").and_then(|v| v.parse::<u64>().ok())
        && offset + length > info.length
    {
        return Err(TusError::text(
            StatusCode::PAYLOAD_TOO_LARGE,
            "upload's size exceeded",
        ));
    }
    let body = request.into_body().into_data_stream();
    let new_offset = receive_part(
        &state.inner.store,
        &held,
        &upload,
        offset,
        info.length,
        body,
    )
    .await?;
    let mut out = HeaderMap::new();
    tus_headers(&mut out);
    set(&mut out, "upload-offset", &new_offset.to_string());
    expires_header(&mut out, &info);
    if new_offset == info.length && !info.deferred {
        finish(state, &caller, &upload, &mut info).await?;
        set(&mut out, "tus-complete", "1");
    }
    Ok((StatusCode::NO_CONTENT, out).into_response())
}

/// `DELETE /upload/resumable[/sign]/{id}`: drops an unfinished upload.
pub(crate) async fn terminate<const SIGNED: bool>(
    State(state): State<StorageState>,
    Path(id): Path<String>,
    method: Method,
    uri: axum::http::Uri,
    headers: HeaderMap,
) -> Response {
    let result = async {
        let (upload, _, _guard) =
            open_locked(&state, Route::of(SIGNED), &id, &method, &uri, &headers).await?;
        let info = read_info(state.inner.store.operator(), &upload)
            .await?
            .ok_or_else(TusError::not_found)?;
        if info.completed {
            return Err(TusError::text(
                StatusCode::BAD_REQUEST,
                "Cannot terminate an already completed upload",
            ));
        }
        remove_upload(state.inner.store.operator(), &upload).await;
        let mut out = HeaderMap::new();
        tus_headers(&mut out);
        Ok((StatusCode::NO_CONTENT, out).into_response())
    }
    .await;
    result.unwrap_or_else(IntoResponse::into_response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_refuse_anything_else() {
        let upload = crate::store::new_version();
        let id = encode_id("docs", "a/b c.pdf", &upload);
        assert!(!id.contains('/') && !id.contains('='));
        assert_eq!(
            decode_id(&id),
            Some(("docs".into(), "a/b c.pdf".into(), upload.clone()))
        );
        assert_eq!(decode_id("not base64!"), None);
        assert_eq!(
            decode_id(&URL_SAFE_NO_PAD.encode("docs/x/not-a-uuid")),
            None
        );
        let traversal = URL_SAFE_NO_PAD.encode(format!("docs/../../etc/{upload}"));
        assert_eq!(decode_id(&traversal), None);
    }

    #[test]
    fn metadata_is_base64_pairs() {
        let parsed = parse_metadata("bucketName ZG9jcw==,objectName YS50eHQ=,flag").unwrap();
        assert_eq!(parsed["bucketName"], "docs");
        assert_eq!(parsed["objectName"], "a.txt");
        assert_eq!(parsed["flag"], "");
        assert!(parse_metadata("bucketName ZG9jcw==,bucketName ZG9jcw==").is_none());
        assert!(parse_metadata("bucketName not*base64").is_none());
        assert!(parse_metadata("bucketName  ZG9jcw==").is_none());
        assert!(parse_metadata("a b c").is_none());
    }

    #[test]
    fn cache_control_is_seconds_or_no_cache() {
        assert_eq!(cache_control(Some("3600")), "max-age=3600");
        assert_eq!(cache_control(Some("public")), "no-cache");
        assert_eq!(cache_control(None), "no-cache");
    }
}
