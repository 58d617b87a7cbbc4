//! Object endpoints: upload, update, download (authenticated, public,
//! signed), info, list, remove, move, copy, signed URLs.

use std::time::Duration;

use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, Multipart, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::{Stream, StreamExt};
use serde::Deserialize;
use serde_json::{Value, json};
use sqlx::Row;

use crate::coerce::{self, Boolean, Integer};
use crate::error::StorageError;
use crate::extract::{JsonBody, Path, Query};
use crate::meta::{
    self, BucketRow, Caller, NewObject, OBJECT_COLUMNS, ObjectRow, TestInsert, allow_delete,
    object_as, system_bucket,
};
use crate::names::{file_name, list_folder, validate_bucket_name, validate_object_name};
use crate::store::{Landing, ReceiveError};
use crate::wire::{self, RangeRequest};
use crate::{StorageState, now_secs};

type Result<T, E = StorageError> = std::result::Result<T, E>;

/// After an oversized body is refused, up to this much more of it is read
/// and dropped so that the client sees the answer instead of a reset.
const DRAIN_AFTER_REFUSAL: u64 = 16 * 1024 * 1024;

fn check_names(bucket: &str, name: &str) -> Result<()> {
    validate_bucket_name(bucket)?;
    validate_object_name(name)
}

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

fn upsert_header(headers: &HeaderMap) -> bool {
    header_str(headers, "x-upsert").is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
}

// ---------------------------------------------------------------- uploads

/// How an upload is authorised.
enum Mode {
    /// `POST /object`: create, or replace with `x-upsert: true`.
    Create,
    /// `PUT /object`: replace (creates when missing, as the platform does).
    Update,
    /// `PUT /object/upload/sign`: permission was checked when signing.
    Signed { owner: Option<String>, upsert: bool },
}

pub(crate) async fn upload(
    State(state): State<StorageState>,
    Path((bucket, name)): Path<(String, String)>,
    request: Request,
) -> Response {
    receive_upload(&state, &bucket, &name, Mode::Create, request)
        .await
        .map(|(id, key)| Json(json!({ "Id": id, "Key": key })).into_response())
        .unwrap_or_else(IntoResponse::into_response)
}

pub(crate) async fn update(
    State(state): State<StorageState>,
    Path((bucket, name)): Path<(String, String)>,
    request: Request,
) -> Response {
    receive_upload(&state, &bucket, &name, Mode::Update, request)
        .await
        .map(|(id, key)| Json(json!({ "Id": id, "Key": key })).into_response())
        .unwrap_or_else(IntoResponse::into_response)
}

#[derive(Debug, Deserialize)]
pub(crate) struct TokenQuery {
    token: Option<String>,
    download: Option<String>,
}

pub(crate) async fn upload_signed(
    State(state): State<StorageState>,
    Path((bucket, name)): Path<(String, String)>,
    Query(query): Query<TokenQuery>,
    request: Request,
) -> Response {
    let result = async {
        check_names(&bucket, &name)?;
        let (owner, upsert) = verify_upload_token(&state, query.token.as_deref(), &bucket, &name)?;
        receive_upload(
            &state,
            &bucket,
            &name,
            Mode::Signed { owner, upsert },
            request,
        )
        .await
    }
    .await;
    result
        .map(|(id, key)| Json(json!({ "Key": key, "Id": id })).into_response())
        .unwrap_or_else(IntoResponse::into_response)
}

/// Details of an upload besides its bytes.
struct UploadMeta {
    mimetype: String,
    cache_control: String,
    user_metadata: Option<Value>,
}

/// The common upload path. Returns `(id, "bucket/name")`.
async fn receive_upload(
    state: &StorageState,
    bucket: &str,
    name: &str,
    mode: Mode,
    request: Request,
) -> Result<(uuid::Uuid, String)> {
    // Who asks, from the headers; then the bucket (the only wait). A refusal
    // reads the body away first (see `refuse`).
    let who = (|| -> Result<(Caller, bool)> {
        check_names(bucket, name)?;
        let caller = |request: &Request| {
            Caller::from_request(
                state,
                request.headers(),
                request.method(),
                request.uri().path(),
            )
        };
        Ok(match &mode {
            Mode::Create => (caller(&request)?, upsert_header(request.headers())),
            Mode::Update => (caller(&request)?, true),
            Mode::Signed { owner, upsert } => (Caller::system(owner.as_deref()), *upsert),
        })
    })();
    let (caller, upsert) = match who {
        Ok(who) => who,
        Err(e) => return Err(refuse(&mut request.into_body().into_data_stream(), e).await),
    };
    // The bucket and, unless a signed URL already decided, the test insert
    // (reported after the bucket's own limits), in one round trip, which
    // goes on while the body starts to arrive: its answer is the gate of
    // `ByteStore::receive_gated`, and nothing is written before it allows.
    let insert = match mode {
        Mode::Signed { .. } => None,
        Mode::Create | Mode::Update => Some(TestInsert {
            caller: &caller,
            name,
            upsert,
        }),
    };
    let checks = meta::upload_checks(state, bucket, insert);
    let global_limit = state.inner.config.file_size_limit;
    let default_cache = state.inner.config.default_cache_control;

    let content_type = header_str(request.headers(), "content-type")
        .unwrap_or_default()
        .to_owned();
    let landing;
    let upload_meta;
    if wire::essence(&content_type) == "multipart/form-data" {
        let mut checks = Some(checks);
        let mut form = match Multipart::from_request(request, &()).await {
            Ok(form) => form,
            Err(e) => {
                bucket_refusal(checks).await?;
                return Err(StorageError::InvalidRequest(format!(
                    "invalid multipart body: {e}"
                )));
            }
        };
        let mut cache_field: Option<String> = None;
        let mut metadata_field: Option<Value> = None;
        let mut file: Option<(Landing, String)> = None;
        loop {
            let field = match form.next_field().await {
                Ok(Some(field)) => field,
                Ok(None) => break,
                Err(e) => {
                    if let Some((landing, _)) = file.take() {
                        landing.discard().await;
                    }
                    bucket_refusal(checks).await?;
                    return Err(StorageError::InvalidRequest(format!(
                        "invalid multipart body: {e}"
                    )));
                }
            };
            let is_file =
                field.file_name().is_some() || field.name().unwrap_or_default().is_empty();
            if is_file && let Some(checks) = checks.take() {
                let mut field = field;
                let declared_type =
                    declared(field.content_type().unwrap_or("application/octet-stream"));
                let gate = async { admission(checks.await?, declared_type, None, global_limit) };
                let got = state.inner.store.receive_gated(&mut field, gate).await;
                file = Some(receipt(got, &mut field).await?);
            } else if !is_file {
                let field_name = field.name().unwrap_or_default().to_owned();
                let text = small_text(field).await;
                let Some(text) = text else { continue };
                match field_name.as_str() {
                    "cacheControl" => cache_field = Some(text),
                    "metadata" => metadata_field = serde_json::from_str(&text).ok(),
                    _ => {}
                }
            }
        }
        let Some((got, mimetype)) = file else {
            bucket_refusal(checks).await?;
            return Err(StorageError::InvalidRequest(
                "the form has no file part".into(),
            ));
        };
        landing = got;
        upload_meta = UploadMeta {
            mimetype,
            cache_control: wire::cache_control(cache_field.as_deref(), default_cache),
            user_metadata: metadata_field,
        };
    } else {
        let headers = request.headers();
        let declared_length =
            header_str(headers, "content-length").and_then(|v| v.parse::<u64>().ok());
        let cache_control =
            wire::cache_control(header_str(headers, "cache-control"), default_cache);
        let user_metadata = header_str(headers, "x-metadata").and_then(decode_x_metadata);
        let mut body = request.into_body().into_data_stream();
        let declared_type = if content_type.is_empty() {
            Ok("application/octet-stream".to_owned())
        } else {
            declared(&content_type)
        };
        let gate = async { admission(checks.await?, declared_type, declared_length, global_limit) };
        let got = state.inner.store.receive_gated(&mut body, gate).await;
        let (got, mimetype) = receipt(got, &mut body).await?;
        landing = got;
        upload_meta = UploadMeta {
            mimetype,
            cache_control,
            user_metadata,
        };
    }

    let metadata = meta::object_metadata(
        landing.received.size,
        &landing.received.etag,
        &upload_meta.mimetype,
        &upload_meta.cache_control,
    );
    let id = commit_landing(
        state,
        &caller,
        bucket,
        name,
        upsert,
        landing,
        metadata,
        upload_meta.user_metadata,
    )
    .await?;
    Ok((id, format!("{bucket}/{name}")))
}

/// What receiving an upload came to: its bytes and the type the gate
/// allowed, or the error to answer (a refused or oversized body is read
/// away first, see [`drain`]).
async fn receipt<S, E>(
    got: std::result::Result<(Landing, String), ReceiveError>,
    body: &mut S,
) -> Result<(Landing, String)>
where
    S: Stream<Item = std::result::Result<Bytes, E>> + Unpin,
{
    match got {
        Ok(got) => Ok(got),
        Err(ReceiveError::Refused(e)) => Err(refuse(body, e).await),
        Err(ReceiveError::TooLarge) => {
            drain(body).await;
            Err(StorageError::TooLarge)
        }
        Err(e) => Err(e.into()),
    }
}

/// Whether the checked bucket takes an upload of `declared_type` (and of
/// `declared_length` bytes, when told): its byte limit and the type to
/// store, or the refusal. The bucket's own limits come before the insert
/// policy's answer, as the platform reports them.
fn admission(
    (bucket, allowed): (BucketRow, Result<()>),
    declared_type: Result<String>,
    declared_length: Option<u64>,
    global_limit: u64,
) -> Result<(u64, String)> {
    let limit = bucket.size_limit(global_limit);
    let declared_type = declared_type?;
    check_mime(&bucket, &declared_type)?;
    if declared_length.is_some_and(|len| len > limit) {
        return Err(StorageError::TooLarge);
    }
    allowed?;
    Ok((limit, declared_type))
}

/// The bucket's refusal when the checks have not been asked yet (a form
/// that never reached its file part): it comes before the form's own
/// errors, as when the bucket was asked before the body.
async fn bucket_refusal(
    checks: Option<impl Future<Output = Result<(BucketRow, Result<()>)>>>,
) -> Result<()> {
    match checks {
        Some(checks) => checks.await.map(drop),
        None => Ok(()),
    }
}

/// The declared type of an upload as it is stored (see
/// [`wire::declared_type`]); anything else is refused.
pub(crate) fn declared(content_type: &str) -> Result<String> {
    wire::declared_type(content_type)
        .map(str::to_owned)
        .ok_or_else(|| StorageError::InvalidMimeType(content_type.to_owned()))
}

pub(crate) fn check_mime(bucket: &BucketRow, mimetype: &str) -> Result<()> {
    if wire::mime_allowed(bucket.allowed_mime_types.as_deref(), mimetype) {
        Ok(())
    } else {
        Err(StorageError::InvalidMimeType(wire::essence(mimetype)))
    }
}

/// `x-metadata`: base64 of a JSON object (standard or URL-safe alphabet,
/// padded or not: clients differ).
fn decode_x_metadata(value: &str) -> Option<Value> {
    use base64::Engine;
    use base64::alphabet;
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    const LENIENT: GeneralPurposeConfig =
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
    const STANDARD: GeneralPurpose = GeneralPurpose::new(&alphabet::STANDARD, LENIENT);
    const URL_SAFE: GeneralPurpose = GeneralPurpose::new(&alphabet::URL_SAFE, LENIENT);
    let value = value.trim();
    let bytes = STANDARD
        .decode(value)
        .or_else(|_| URL_SAFE.decode(value))
        .ok()?;
    serde_json::from_slice::<Value>(&bytes)
        .ok()
        .filter(Value::is_object)
}

/// A text form field of at most 64 KiB; `None` when longer or broken.
async fn small_text(mut field: axum::extract::multipart::Field<'_>) -> Option<String> {
    let mut bytes = Vec::new();
    while let Ok(Some(chunk)) = field.chunk().await {
        bytes.extend_from_slice(&chunk);
        if bytes.len() > 64 * 1024 {
            return None;
        }
    }
    String::from_utf8(bytes).ok()
}

/// Reads and drops what is left of the body of a refused upload, then
/// answers `error`: see [`drain`].
async fn refuse<S, E>(body: &mut S, error: StorageError) -> StorageError
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
{
    drain(body).await;
    error
}

/// Reads and drops what is left of a refused body (bounded), so the client
/// gets the error response rather than a broken connection.
async fn drain<S, E>(body: &mut S)
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
{
    let mut drained: u64 = 0;
    let _ = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(Ok(chunk)) = body.next().await {
            drained += chunk.len() as u64;
            if drained > DRAIN_AFTER_REFUSAL {
                break;
            }
        }
    })
    .await;
}

/// Writes the row naming `version`, whose bytes are already durable; see
/// the crate documentation for the order and why. The bytes of a refused
/// row are removed, and after the commit (in the background) those of the
/// version the row replaced.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn commit_object(
    state: &StorageState,
    caller: &Caller,
    bucket: &str,
    name: &str,
    upsert: bool,
    version: &str,
    metadata: Value,
    user_metadata: Option<Value>,
) -> Result<uuid::Uuid> {
    let object = NewObject {
        bucket,
        name,
        version,
        metadata,
        user_metadata,
    };
    let written = meta::write_object(state, caller, &object, upsert).await;
    settle_row(state, version, written).await
}

/// As [`commit_object`] for an upload whose bytes are still being made
/// durable: beside a local fsync, the row's statements run meanwhile and
/// only its commit waits for the bytes (see [`Landing::stages_row`]).
#[allow(clippy::too_many_arguments)]
async fn commit_landing(
    state: &StorageState,
    caller: &Caller,
    bucket: &str,
    name: &str,
    upsert: bool,
    landing: Landing,
    metadata: Value,
    user_metadata: Option<Value>,
) -> Result<uuid::Uuid> {
    if !landing.stages_row() {
        // Durable already (the hash came last), or a remote store: the
        // row in one batch once the bytes are durable.
        let received = landing.durable().await?;
        let version = &received.version;
        return commit_object(
            state,
            caller,
            bucket,
            name,
            upsert,
            version,
            metadata,
            user_metadata,
        )
        .await;
    }
    let version = landing.received.version.clone();
    let object = NewObject {
        bucket,
        name,
        version: &version,
        metadata,
        user_metadata,
    };
    let (staged, durable) = tokio::join!(
        meta::stage_object(state, caller, &object, upsert),
        landing.durable()
    );
    let written = match (staged, durable) {
        (Ok(staged), Ok(_)) => staged.commit().await,
        // The bytes' key is gone already; a staged row rolls back as it
        // is dropped.
        (_, Err(e)) => return Err(e.into()),
        (Err(unwritten), Ok(_)) => Err(unwritten),
    };
    settle_row(state, &version, written).await
}

/// After an object row's write: the bytes of a row that surely was not
/// written are removed, and (in the background) those of the version the
/// row replaced.
async fn settle_row(
    state: &StorageState,
    version: &str,
    written: std::result::Result<(uuid::Uuid, Option<String>), meta::Unwritten>,
) -> Result<uuid::Uuid> {
    let store = &state.inner.store;
    match written {
        Ok((id, replaced)) => {
            if let Some(old) = replaced {
                // Off the response's path (unlinking a large file takes a
                // while); a failure, or a crash first, leaves bytes that no
                // row names, which the orphan sweep removes.
                let store = store.clone();
                tokio::spawn(async move { store.remove_version(&old).await });
            }
            Ok(id)
        }
        Err(unwritten) => {
            if unwritten.surely {
                store.remove_version(version).await;
            }
            Err(unwritten.error)
        }
    }
}

// ---------------------------------------------------------------- downloads

#[derive(Debug, Deserialize)]
pub(crate) struct DownloadQuery {
    download: Option<String>,
}

pub(crate) async fn download_authenticated(
    State(state): State<StorageState>,
    Path((bucket, name)): Path<(String, String)>,
    Query(query): Query<DownloadQuery>,
    method: Method,
    headers: HeaderMap,
    uri: axum::http::Uri,
) -> Result<Response> {
    check_names(&bucket, &name)?;
    let caller = Caller::from_request(&state, &headers, &method, uri.path())?;
    let row = object_as(&state, &caller, &bucket, &name).await?;
    serve(&state, &row, &method, &headers, query.download.as_deref()).await
}

pub(crate) async fn download_public(
    State(state): State<StorageState>,
    Path((bucket, name)): Path<(String, String)>,
    Query(query): Query<DownloadQuery>,
    method: Method,
    headers: HeaderMap,
) -> Result<Response> {
    check_names(&bucket, &name)?;
    let row = public_object(&state, &bucket, &name).await?;
    serve(&state, &row, &method, &headers, query.download.as_deref()).await
}

pub(crate) async fn download_signed(
    State(state): State<StorageState>,
    Path((bucket, name)): Path<(String, String)>,
    Query(query): Query<TokenQuery>,
    method: Method,
    headers: HeaderMap,
) -> Result<Response> {
    check_names(&bucket, &name)?;
    verify_url_token(&state, query.token.as_deref(), "download", &bucket, &name)?;
    let row = object_as(&state, &Caller::system(None), &bucket, &name).await?;
    serve(&state, &row, &method, &headers, query.download.as_deref()).await
}

/// An object of a public bucket; a private or missing bucket is "not found".
async fn public_object(state: &StorageState, bucket: &str, name: &str) -> Result<ObjectRow> {
    let bucket_row = system_bucket(state, bucket).await?;
    if !bucket_row.public {
        return Err(StorageError::BucketNotFound);
    }
    object_as(state, &Caller::system(None), bucket, name).await
}

fn set(headers: &mut HeaderMap, name: header::HeaderName, value: &str) {
    if let Ok(value) = HeaderValue::from_str(value) {
        headers.insert(name, value);
    }
}

/// Answers a download: 304 when `If-None-Match` matches, 206 for a `Range`,
/// else 200, with the body streamed from the byte store.
///
/// Stored files are served on the app's origin, so none may act as a page
/// of it: every answer says `nosniff` and carries [`wire::FILE_CSP`]
/// (sandboxed, nothing loads or runs), the type is served only in its
/// checked form (a row whose type does not parse is served as bytes), and
/// any type that is not known to be inert ([`wire::inline_safe`]) is an
/// attachment, with or without `?download`.
async fn serve(
    state: &StorageState,
    row: &ObjectRow,
    method: &Method,
    request: &HeaderMap,
    download: Option<&str>,
) -> Result<Response> {
    let size = row.size();
    let etag = row.etag();
    let mut headers = HeaderMap::new();
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(wire::FILE_CSP),
    );
    set(&mut headers, header::ETAG, &etag);
    set(&mut headers, header::CACHE_CONTROL, &row.cache_control());
    set(
        &mut headers,
        header::LAST_MODIFIED,
        &wire::http_date(row.last_modified()),
    );
    if wire::none_match(header_str(request, "if-none-match"), &etag) {
        return Ok((StatusCode::NOT_MODIFIED, headers).into_response());
    }
    let stored = row.mimetype();
    let content_type = wire::declared_type(&stored).unwrap_or("application/octet-stream");
    set(&mut headers, header::CONTENT_TYPE, content_type);
    set(&mut headers, header::ACCEPT_RANGES, "bytes");
    let disposition = match download {
        Some(download) => Some(wire::download_disposition(download)),
        None if !wire::inline_safe(content_type) => Some(wire::attachment(file_name(&row.name))),
        None => None,
    };
    if let Some(disposition) = disposition {
        set(&mut headers, header::CONTENT_DISPOSITION, &disposition);
    }
    let (status, start, end) = match wire::parse_range(header_str(request, "range"), size) {
        RangeRequest::Full => (StatusCode::OK, 0, size),
        RangeRequest::Partial(range) => {
            set(
                &mut headers,
                header::CONTENT_RANGE,
                &format!("bytes {}-{}/{size}", range.start, range.end),
            );
            (
                StatusCode::PARTIAL_CONTENT,
                range.start,
                range.start + range.len(),
            )
        }
        RangeRequest::Unsatisfiable => return Err(StorageError::RangeNotSatisfiable { size }),
    };
    set(
        &mut headers,
        header::CONTENT_LENGTH,
        &(end - start).to_string(),
    );
    if *method == Method::HEAD || start == end {
        return Ok((status, headers, Body::empty()).into_response());
    }
    let Some(version) = row.version.as_deref() else {
        return Err(StorageError::internal(
            "download",
            "object row without a version",
        ));
    };
    let stream = state
        .inner
        .store
        .read(version, start, end)
        .await
        .map_err(|e| StorageError::internal("opening object bytes", e))?;
    Ok((status, headers, Body::from_stream(stream)).into_response())
}

// ---------------------------------------------------------------- info

pub(crate) async fn info_authenticated(
    State(state): State<StorageState>,
    Path((bucket, name)): Path<(String, String)>,
    method: Method,
    headers: HeaderMap,
    uri: axum::http::Uri,
) -> Result<Json<Value>> {
    check_names(&bucket, &name)?;
    let caller = Caller::from_request(&state, &headers, &method, uri.path())?;
    let row = object_as(&state, &caller, &bucket, &name).await?;
    Ok(Json(row.to_info_json()))
}

pub(crate) async fn info_public(
    State(state): State<StorageState>,
    Path((bucket, name)): Path<(String, String)>,
) -> Result<Json<Value>> {
    check_names(&bucket, &name)?;
    let row = public_object(&state, &bucket, &name).await?;
    Ok(Json(row.to_info_json()))
}

// ---------------------------------------------------------------- list

#[derive(Debug, Deserialize)]
struct ListBody {
    #[serde(default)]
    prefix: Option<String>,
    #[serde(default)]
    limit: Option<i64>,
    #[serde(default)]
    offset: Option<i64>,
    #[serde(default, rename = "sortBy")]
    sort_by: Option<SortBy>,
    #[serde(default)]
    search: Option<String>,
}

#[derive(Debug, Deserialize)]
struct SortBy {
    column: Option<String>,
    order: Option<String>,
}

/// `%`, `_` and `\` as themselves in a LIKE pattern.
fn escape_like(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The ORDER BY of a listing, from a fixed set (never from input text).
fn list_order(sort: Option<&SortBy>) -> Result<&'static str> {
    let column = sort.and_then(|s| s.column.as_deref()).unwrap_or("name");
    let descending = match sort
        .and_then(|s| s.order.as_deref())
        .map(str::to_ascii_lowercase)
    {
        None => false,
        Some(o) if o == "asc" => false,
        Some(o) if o == "desc" => true,
        Some(o) => {
            return Err(StorageError::InvalidRequest(format!(
                "invalid sort order {o}"
            )));
        }
    };
    Ok(match (column, descending) {
        ("name", false) => "name asc",
        ("name", true) => "name desc",
        ("created_at", false) => "created_at asc, name asc",
        ("created_at", true) => "created_at desc, name asc",
        ("updated_at", false) => "updated_at asc, name asc",
        ("updated_at", true) => "updated_at desc, name asc",
        ("last_accessed_at", false) => "last_accessed_at asc, name asc",
        ("last_accessed_at", true) => "last_accessed_at desc, name asc",
        (other, _) => {
            return Err(StorageError::InvalidRequest(format!(
                "invalid sort column {other}"
            )));
        }
    })
}

pub(crate) async fn list(
    State(state): State<StorageState>,
    Path(bucket): Path<String>,
    method: Method,
    headers: HeaderMap,
    uri: axum::http::Uri,
    JsonBody(body): JsonBody,
) -> Result<Json<Value>> {
    validate_bucket_name(&bucket)?;
    let caller = Caller::from_request(&state, &headers, &method, uri.path())?;
    let body: ListBody = coerce::parse(&body, &[("limit", Integer), ("offset", Integer)])?;
    let folder = list_folder(body.prefix.as_deref().unwrap_or_default());
    let limit = body.limit.unwrap_or(100).clamp(1, 1000);
    let offset = body.offset.unwrap_or(0).max(0);
    let search = format!(
        "{}%",
        escape_like(body.search.as_deref().unwrap_or_default())
    );
    let order = list_order(body.sort_by.as_ref())?;
    // Objects directly in the folder are files; deeper ones show up once, as
    // their first sub-folder (id and dates null), as on the platform.
    let sql = format!(
        "with matching as ( \
           select id, updated_at, created_at, last_accessed_at, metadata, \
                  substr(name, char_length($2) + 1) as rest \
           from storage.objects \
           where bucket_id = $1 and name like $3 escape '\\' \
         ), entries as ( \
           select split_part(rest, '/', 1) as name, null::uuid as id, \
                  null::timestamptz as updated_at, null::timestamptz as created_at, \
                  null::timestamptz as last_accessed_at, null::jsonb as metadata \
           from matching where position('/' in rest) > 0 \
           group by split_part(rest, '/', 1) \
           union all \
           select rest, id, updated_at, created_at, last_accessed_at, metadata \
           from matching where position('/' in rest) = 0 \
         ) \
         select name, id, updated_at, created_at, last_accessed_at, metadata from entries \
         where name ilike $4 escape '\\' \
         order by {order} limit $5 offset $6"
    );
    let mut tx = state.inner.db.begin_as(&caller.ctx).await?;
    let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(&bucket)
        .bind(&folder)
        .bind(format!("{}%", escape_like(&folder)))
        .bind(&search)
        .bind(limit)
        .bind(offset)
        .fetch_all(&mut *tx)
        .await?;
    tx.commit().await?;
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        out.push(json!({
            "name": row.try_get::<String, _>("name")?,
            "id": row.try_get::<Option<uuid::Uuid>, _>("id")?,
            "updated_at": row.try_get::<Option<chrono::DateTime<chrono::Utc>>, _>("updated_at")?,
            "created_at": row.try_get::<Option<chrono::DateTime<chrono::Utc>>, _>("created_at")?,
            "last_accessed_at": row.try_get::<Option<chrono::DateTime<chrono::Utc>>, _>("last_accessed_at")?,
            "metadata": row.try_get::<Option<Value>, _>("metadata")?,
        }));
    }
    Ok(Json(Value::Array(out)))
}

// ---------------------------------------------------------------- remove

#[derive(Debug, Deserialize)]
struct RemoveBody {
    prefixes: Vec<String>,
}

pub(crate) async fn remove_many(
    State(state): State<StorageState>,
    Path(bucket): Path<String>,
    method: Method,
    headers: HeaderMap,
    uri: axum::http::Uri,
    JsonBody(body): JsonBody,
) -> Result<Json<Value>> {
    validate_bucket_name(&bucket)?;
    let caller = Caller::from_request(&state, &headers, &method, uri.path())?;
    let body: RemoveBody = coerce::parse(&body, &[])?;
    if body.prefixes.is_empty() || body.prefixes.len() > 1000 {
        return Err(StorageError::InvalidRequest(
            "prefixes must list between 1 and 1000 names".into(),
        ));
    }
    let removed = delete_rows(&state, &caller, &bucket, &body.prefixes).await?;
    Ok(Json(Value::Array(
        removed.iter().map(ObjectRow::to_json).collect(),
    )))
}

pub(crate) async fn remove_one(
    State(state): State<StorageState>,
    Path((bucket, name)): Path<(String, String)>,
    method: Method,
    headers: HeaderMap,
    uri: axum::http::Uri,
) -> Result<Json<Value>> {
    check_names(&bucket, &name)?;
    let caller = Caller::from_request(&state, &headers, &method, uri.path())?;
    let removed = delete_rows(&state, &caller, &bucket, &[name]).await?;
    if removed.is_empty() {
        return Err(StorageError::ObjectNotFound);
    }
    Ok(Json(json!({ "message": "Successfully deleted" })))
}

/// Deletes rows as `caller` (RLS), commits, then removes their bytes.
async fn delete_rows(
    state: &StorageState,
    caller: &Caller,
    bucket: &str,
    names: &[String],
) -> Result<Vec<ObjectRow>> {
    let mut tx = state.inner.db.begin_as(&caller.ctx).await?;
    allow_delete(&mut tx).await?;
    let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
        "delete from storage.objects where bucket_id = $1 and name = any($2) returning {OBJECT_COLUMNS}"
    )))
    .bind(bucket)
    .bind(names)
    .fetch_all(&mut *tx)
    .await?;
    let removed = rows
        .iter()
        .map(ObjectRow::from_row)
        .collect::<Result<Vec<_>, _>>()?;
    tx.commit().await?;
    for row in &removed {
        if let Some(version) = &row.version {
            state.inner.store.remove_version(version).await;
        }
    }
    Ok(removed)
}

// ---------------------------------------------------------------- move, copy

#[derive(Debug, Deserialize)]
struct MoveBody {
    #[serde(rename = "bucketId")]
    bucket_id: String,
    #[serde(rename = "sourceKey")]
    source_key: String,
    #[serde(rename = "destinationKey")]
    destination_key: String,
    #[serde(default, rename = "destinationBucket")]
    destination_bucket: Option<String>,
    #[serde(default, rename = "copyMetadata")]
    copy_metadata: Option<bool>,
}

impl MoveBody {
    fn destination_bucket(&self) -> &str {
        self.destination_bucket
            .as_deref()
            .filter(|b| !b.is_empty())
            .unwrap_or(&self.bucket_id)
    }

    fn validate(&self) -> Result<()> {
        check_names(&self.bucket_id, &self.source_key)?;
        check_names(self.destination_bucket(), &self.destination_key)
    }
}

/// A destination bucket must accept the object's size and type.
async fn check_destination(state: &StorageState, bucket: &str, object: &ObjectRow) -> Result<()> {
    let dest = system_bucket(state, bucket).await?;
    if object.size() > dest.size_limit(state.inner.config.file_size_limit) {
        return Err(StorageError::TooLarge);
    }
    check_mime(&dest, &object.mimetype())
}

pub(crate) async fn move_object(
    State(state): State<StorageState>,
    method: Method,
    headers: HeaderMap,
    uri: axum::http::Uri,
    JsonBody(body): JsonBody,
) -> Result<Json<Value>> {
    let caller = Caller::from_request(&state, &headers, &method, uri.path())?;
    let body: MoveBody = coerce::parse(&body, &[("copyMetadata", Boolean)])?;
    body.validate()?;
    let dest_bucket = body.destination_bucket().to_owned();
    let mut tx = state.inner.db.begin_as(&caller.ctx).await?;
    let source = meta::find_object(&mut tx, &body.bucket_id, &body.source_key)
        .await?
        .ok_or(StorageError::ObjectNotFound)?;
    if dest_bucket != body.bucket_id {
        check_destination(&state, &dest_bucket, &source).await?;
    }
    // The bytes belong to the version, not the name: a move is one UPDATE.
    let moved = sqlx::query(
        "update storage.objects set bucket_id = $3, name = $4, updated_at = now() \
         where bucket_id = $1 and name = $2 returning id",
    )
    .bind(&body.bucket_id)
    .bind(&body.source_key)
    .bind(&dest_bucket)
    .bind(&body.destination_key)
    .fetch_optional(&mut *tx)
    .await?;
    if moved.is_none() {
        return Err(StorageError::ObjectNotFound);
    }
    tx.commit().await?;
    Ok(Json(json!({ "message": "Successfully moved" })))
}

pub(crate) async fn copy_object(
    State(state): State<StorageState>,
    method: Method,
    headers: HeaderMap,
    uri: axum::http::Uri,
    JsonBody(body): JsonBody,
) -> Result<Json<Value>> {
    let caller = Caller::from_request(&state, &headers, &method, uri.path())?;
    let upsert = upsert_header(&headers);
    let body: MoveBody = coerce::parse(&body, &[("copyMetadata", Boolean)])?;
    body.validate()?;
    let dest_bucket = body.destination_bucket().to_owned();
    let source = object_as(&state, &caller, &body.bucket_id, &body.source_key).await?;
    check_destination(&state, &dest_bucket, &source).await?;
    meta::precheck_insert(&state, &caller, &dest_bucket, &body.destination_key, upsert).await?;
    let Some(version) = source.version.as_deref() else {
        return Err(StorageError::internal(
            "copy",
            "object row without a version",
        ));
    };
    let copied = state
        .inner
        .store
        .copy_version(version)
        .await
        .map_err(|e| StorageError::internal("copying object bytes", e))?;
    let mut metadata = source.metadata.clone().unwrap_or_else(|| json!({}));
    metadata["lastModified"] =
        json!(chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
    let user_metadata = if body.copy_metadata.unwrap_or(true) {
        source.user_metadata.clone()
    } else {
        None
    };
    let id = commit_object(
        &state,
        &caller,
        &dest_bucket,
        &body.destination_key,
        upsert,
        &copied,
        metadata,
        user_metadata,
    )
    .await?;
    Ok(Json(json!({
        "Id": id,
        "Key": format!("{dest_bucket}/{}", body.destination_key),
        "name": body.destination_key,
        "bucket_id": dest_bucket,
    })))
}

// ---------------------------------------------------------------- signed URLs

#[derive(Debug, Deserialize)]
struct SignBody {
    #[serde(default, rename = "expiresIn")]
    expires_in: Option<i64>,
    #[serde(default)]
    transform: Option<Value>,
    #[serde(default)]
    paths: Option<Vec<String>>,
}

fn expiry(state: &StorageState, requested: Option<i64>) -> Result<i64> {
    let config = &state.inner.config;
    let seconds = requested.unwrap_or(config.signed_url_default_expiry.as_secs() as i64);
    if seconds < 1 || seconds as u64 > config.signed_url_max_expiry.as_secs() {
        return Err(StorageError::InvalidRequest(
            "expiresIn must be a positive number of seconds within the allowed maximum".into(),
        ));
    }
    Ok(seconds)
}

fn sign_download(
    state: &StorageState,
    bucket: &str,
    name: &str,
    seconds: i64,
    transform: Option<(String, Option<String>)>,
) -> String {
    let now = now_secs();
    let mut claims = json!({
        "url": format!("{bucket}/{name}"),
        "scope": "download",
        "iat": now,
        "exp": now + seconds,
    });
    // A transformed URL carries its options in the token and points at the
    // image renderer, as on the platform.
    let route = match transform {
        Some((transformations, format)) => {
            claims["transformations"] = Value::String(transformations);
            if let Some(format) = format {
                claims["format"] = Value::String(format);
            }
            "render/image"
        }
        None => "object",
    };
    let token = state.inner.jwt.sign(&claims);
    format!("/{route}/sign/{bucket}/{name}?token={token}")
}

/// Checks a URL token: signature, expiry, scope and that it names this object.
pub(crate) fn verify_url_token(
    state: &StorageState,
    token: Option<&str>,
    scope: &str,
    bucket: &str,
    name: &str,
) -> Result<Value> {
    let token = token.filter(|t| !t.is_empty()).ok_or_else(|| {
        StorageError::InvalidRequest("querystring must have required property 'token'".into())
    })?;
    let claims = state.inner.jwt.verify_url_token(token).map_err(|e| {
        StorageError::Unauthorized(match e {
            plinth_db::JwtError::Expired => "jwt expired".into(),
            plinth_db::JwtError::Invalid(_) => "invalid signature".into(),
        })
    })?;
    let url_matches =
        claims.get("url").and_then(Value::as_str) == Some(&format!("{bucket}/{name}"));
    let scope_matches = claims.get("scope").and_then(Value::as_str) == Some(scope);
    // A URL token always expires; refuse tokens without `exp`.
    let expires = claims.get("exp").and_then(Value::as_i64).is_some();
    if !url_matches || !scope_matches || !expires {
        return Err(StorageError::InvalidRequest(
            "Invalid signature for this object".into(),
        ));
    }
    Ok(claims)
}

/// A signed upload URL's token for `bucket/name`: the owner it names and
/// whether it may replace the object.
pub(crate) fn verify_upload_token(
    state: &StorageState,
    token: Option<&str>,
    bucket: &str,
    name: &str,
) -> Result<(Option<String>, bool)> {
    let claims = verify_url_token(state, token, "upload", bucket, name)?;
    let owner = claims
        .get("owner")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let upsert = claims
        .get("upsert")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    Ok((owner, upsert))
}

pub(crate) async fn sign_one(
    State(state): State<StorageState>,
    Path((bucket, name)): Path<(String, String)>,
    method: Method,
    headers: HeaderMap,
    uri: axum::http::Uri,
    JsonBody(body): JsonBody,
) -> Result<Json<Value>> {
    check_names(&bucket, &name)?;
    let caller = Caller::from_request(&state, &headers, &method, uri.path())?;
    let body: SignBody = coerce::parse(&body, &[("expiresIn", Integer)])?;
    let seconds = expiry(&state, body.expires_in)?;
    let transform = crate::render::sign_claims(&state, body.transform.as_ref())?;
    object_as(&state, &caller, &bucket, &name).await?;
    let url = sign_download(&state, &bucket, &name, seconds, transform);
    Ok(Json(json!({ "signedURL": url })))
}

pub(crate) async fn sign_many(
    State(state): State<StorageState>,
    Path(bucket): Path<String>,
    method: Method,
    headers: HeaderMap,
    uri: axum::http::Uri,
    JsonBody(body): JsonBody,
) -> Result<Json<Value>> {
    validate_bucket_name(&bucket)?;
    let caller = Caller::from_request(&state, &headers, &method, uri.path())?;
    let body: SignBody = coerce::parse(&body, &[("expiresIn", Integer)])?;
    let seconds = expiry(&state, body.expires_in)?;
    let paths = body.paths.unwrap_or_default();
    if paths.is_empty() || paths.len() > 1000 {
        return Err(StorageError::InvalidRequest(
            "paths must list between 1 and 1000 names".into(),
        ));
    }
    let mut tx = state.inner.db.begin_as(&caller.ctx).await?;
    let visible: Vec<String> = sqlx::query_scalar(
        "select name from storage.objects where bucket_id = $1 and name = any($2)",
    )
    .bind(&bucket)
    .bind(&paths)
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;
    let out: Vec<Value> = paths
        .iter()
        .map(|path| {
            if visible.contains(path) {
                json!({
                    "error": null,
                    "path": path,
                    "signedURL": sign_download(&state, &bucket, path, seconds, None),
                })
            } else {
                json!({
                    "error": "Either the object does not exist or you do not have access to it",
                    "path": path,
                    "signedURL": null,
                })
            }
        })
        .collect();
    Ok(Json(Value::Array(out)))
}

pub(crate) async fn sign_upload(
    State(state): State<StorageState>,
    Path((bucket, name)): Path<(String, String)>,
    method: Method,
    headers: HeaderMap,
    uri: axum::http::Uri,
) -> Result<Json<Value>> {
    check_names(&bucket, &name)?;
    let caller = Caller::from_request(&state, &headers, &method, uri.path())?;
    let upsert = upsert_header(&headers);
    // The insert permission (and, without upsert, that nothing is in the
    // way) is checked now; the upload itself then needs only the token.
    let insert = TestInsert {
        caller: &caller,
        name: &name,
        upsert,
    };
    meta::upload_checks(&state, &bucket, Some(insert))
        .await?
        .1?;
    let now = now_secs();
    let claims = json!({
        "url": format!("{bucket}/{name}"),
        "scope": "upload",
        "owner": caller.sub(),
        "upsert": upsert,
        "iat": now,
        "exp": now + state.inner.config.signed_upload_url_expiry.as_secs() as i64,
    });
    let token = state.inner.jwt.sign(&claims);
    Ok(Json(json!({
        "url": format!("/object/upload/sign/{bucket}/{name}?token={token}"),
        "token": token,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A storage state on a fresh database, with bucket `b` and its bytes
    /// on the file system in `root`.
    async fn state_in(root: &std::path::Path) -> (plinth_db::testing::TestDb, StorageState) {
        let test_db = plinth_db::testing::TestDb::new(&[
            plinth_db::platform_migrations(),
            crate::migrations(),
        ])
        .await;
        sqlx::raw_sql("insert into storage.buckets (id, name) values ('b', 'b')")
            .execute(&test_db.db.owner)
            .await
            .unwrap();
        let config = crate::StorageConfig {
            backend: crate::Backend::FileSystem {
                root: root.to_owned(),
            },
            ..crate::StorageConfig::default()
        };
        let jwt = plinth_db::JwtSecret::new("a-test-secret-of-at-least-32-chars!!").unwrap();
        let state = StorageState::new(test_db.db.clone(), jwt, config)
            .await
            .unwrap();
        (test_db, state)
    }

    async fn rows(test_db: &plinth_db::testing::TestDb, name: &str) -> i64 {
        sqlx::query_scalar("select count(*) from storage.objects where name = $1")
            .bind(name)
            .fetch_one(&test_db.db.owner)
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn a_row_written_beside_the_fsync_commits_only_after_it() {
        let root = tempfile::tempdir().unwrap();
        let (test_db, state) = state_in(root.path()).await;
        let store = &state.inner.store;
        let body = || futures_util::stream::iter([Ok::<_, String>(Bytes::from_static(b"bytes"))]);
        let allowed = || std::future::ready(Ok((1024, ())));
        let file_of = |version: &str| root.path().join(crate::store::object_key(version));
        for (name, durable) in [("kept.txt", true), ("lost.txt", false)] {
            // The upload's flush is held until the test lets it end, well
            // or not.
            let (finish, finished) = tokio::sync::oneshot::channel::<bool>();
            let flush = tokio::spawn(async move {
                match finished.await {
                    Ok(true) => Ok(()),
                    _ => Err(ReceiveError::Body("the fsync failed".into())),
                }
            });
            let landing = store
                .receive_gated(body(), allowed())
                .await
                .unwrap()
                .0
                .flushed_by(flush)
                .await;
            assert!(landing.stages_row());
            let version = landing.received.version.clone();
            let metadata = meta::object_metadata(5, "e", "text/plain", "max-age=3600");
            let commit = tokio::spawn({
                let state = state.clone();
                async move {
                    let caller = Caller::system(None);
                    commit_landing(&state, &caller, "b", name, false, landing, metadata, None).await
                }
            });
            // The row is written but not committed while the flush lasts.
            tokio::time::sleep(Duration::from_millis(300)).await;
            assert!(!commit.is_finished());
            assert_eq!(rows(&test_db, name).await, 0);
            finish.send(durable).unwrap();
            let outcome = commit.await.unwrap();
            if durable {
                outcome.unwrap();
                assert_eq!(rows(&test_db, name).await, 1);
                assert!(file_of(&version).exists());
            } else {
                // rolled back, and the bytes removed
                assert!(outcome.is_err());
                assert_eq!(rows(&test_db, name).await, 0);
                assert!(!file_of(&version).exists());
            }
        }
    }

    #[test]
    fn like_patterns_are_escaped() {
        assert_eq!(escape_like("a%b_c\\d"), "a\\%b\\_c\\\\d");
        assert_eq!(escape_like("plain"), "plain");
    }

    #[test]
    fn list_order_comes_from_a_fixed_set() {
        assert_eq!(list_order(None).unwrap(), "name asc");
        let desc = SortBy {
            column: Some("created_at".into()),
            order: Some("DESC".into()),
        };
        assert_eq!(
            list_order(Some(&desc)).unwrap(),
            "created_at desc, name asc"
        );
        let evil = SortBy {
            column: Some("name; drop table x".into()),
            order: None,
        };
        assert!(list_order(Some(&evil)).is_err());
        let bad_order = SortBy {
            column: None,
            order: Some("sideways".into()),
        };
        assert!(list_order(Some(&bad_order)).is_err());
    }

    #[test]
    fn x_metadata_is_base64_json() {
        // {"a":1}
        assert_eq!(decode_x_metadata("eyJhIjoxfQ=="), Some(json!({"a": 1})));
        assert_eq!(decode_x_metadata("eyJhIjoxfQ"), Some(json!({"a": 1})));
        // {"k":"~~~"} in both alphabets
        assert_eq!(
            decode_x_metadata("eyJrIjoifn5+In0="),
            Some(json!({"k": "~~~"}))
        );
        assert_eq!(
            decode_x_metadata("eyJrIjoifn5-In0"),
            Some(json!({"k": "~~~"}))
        );
        assert_eq!(decode_x_metadata("not base64!"), None);
        // "x" is JSON but not an object
        assert_eq!(decode_x_metadata("Ingi"), None);
    }
}
