//! Image transformations: the platform's `/render/image/public|authenticated|sign/{bucket}/{path}`
//! (what supabase-js asks for with `{ transform }`), rendered in process
//! instead of by imgproxy.
//!
//! * The object row is read exactly as its download would read it: as the
//!   caller for `authenticated` (row-level security decides), as the service
//!   role for a public bucket or a checked URL token.
//! * The source is capped in bytes (before reading) and in pixels (from its
//!   header, before decoding); decoding, resizing and encoding run on the
//!   blocking pool, at most [`CONCURRENT_RENDERS`] at a time.
//! * Renditions are cached in the byte store under
//!   `renditions/<v0v1>/<version>/<options>.<ext>`: the object version is a
//!   fresh UUID per write, so a changed object never meets an old
//!   rendition, and the version's renditions go with its bytes. What is
//!   kept is bounded (a byte budget with least-recently-used eviction, a
//!   share per object, a free-disk floor) and renders are counted per
//!   client address ([`cache`]), so no request can fill the disk.
//! * Answers carry the platform's headers (`X-Transformations` with
//!   imgproxy's option names, the object's `ETag` and `Cache-Control`, or
//!   `Expires` for a signed URL) plus Plinth's download safety headers.

mod cache;
mod options;
mod pixels;

use std::collections::HashMap;

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures_util::StreamExt;
use md5::{Digest, Md5};
use tokio::sync::Semaphore;

use crate::StorageState;
use crate::error::StorageError;
use crate::extract::{ClientAddress, Path, Query};
use crate::meta::{Caller, ObjectRow, object_as, system_bucket};
use crate::{validate_bucket_name, validate_object_name, wire};

pub(crate) use cache::RenditionCache;
pub(crate) use options::Options;
pub(crate) use options::SizeLimits;
use pixels::{Output, RenderError};

/// Renders running at once; more wait (each may hold a decoded source).
pub(crate) const CONCURRENT_RENDERS: usize = 2;

static RENDERS: Semaphore = Semaphore::const_new(CONCURRENT_RENDERS);

type Result<T> = std::result::Result<T, StorageError>;

/// Where the renditions of `version` live (removed with its bytes).
pub(crate) fn rendition_prefix(version: &str) -> String {
    let shard: String = version.chars().take(2).collect();
    format!("renditions/{shard}/{version}/")
}

pub(crate) fn size_limits(state: &StorageState) -> SizeLimits {
    let config = &state.inner.config;
    SizeLimits {
        min: config.image_min_size,
        max: config.image_max_size,
    }
}

fn check_names(bucket: &str, name: &str) -> Result<()> {
    validate_bucket_name(bucket)?;
    validate_object_name(name)
}

pub(crate) async fn public(
    State(state): State<StorageState>,
    Path((bucket, name)): Path<(String, String)>,
    Query(query): Query<HashMap<String, String>>,
    ClientAddress(client): ClientAddress,
    headers: HeaderMap,
) -> Result<Response> {
    check_names(&bucket, &name)?;
    let options = Options::from_query(&query, size_limits(&state))?;
    let bucket_row = system_bucket(&state, &bucket).await?;
    if !bucket_row.public {
        return Err(StorageError::BucketNotFound);
    }
    let row = object_as(&state, &Caller::system(None), &bucket, &name).await?;
    let download = query.get("download").map(String::as_str);
    let asker = Asker::Client(&client);
    answer(&state, &row, &options, &headers, asker, download, None).await
}

pub(crate) async fn authenticated(
    State(state): State<StorageState>,
    Path((bucket, name)): Path<(String, String)>,
    Query(query): Query<HashMap<String, String>>,
    method: Method,
    ClientAddress(client): ClientAddress,
    headers: HeaderMap,
    uri: axum::http::Uri,
) -> Result<Response> {
    check_names(&bucket, &name)?;
    let caller = Caller::from_request(&state, &headers, &method, uri.path())?;
    let options = Options::from_query(&query, size_limits(&state))?;
    let row = object_as(&state, &caller, &bucket, &name).await?;
    let download = query.get("download").map(String::as_str);
    let asker = match caller.ctx.role.as_str() {
        "service_role" => Asker::Service,
        _ => Asker::Client(&client),
    };
    answer(&state, &row, &options, &headers, asker, download, None).await
}

pub(crate) async fn signed(
    State(state): State<StorageState>,
    Path((bucket, name)): Path<(String, String)>,
    Query(query): Query<HashMap<String, String>>,
    ClientAddress(client): ClientAddress,
    headers: HeaderMap,
) -> Result<Response> {
    check_names(&bucket, &name)?;
    let claims = crate::objects::verify_url_token(
        &state,
        query.get("token").map(String::as_str),
        "download",
        &bucket,
        &name,
    )?;
    let transformations = claims
        .get("transformations")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default();
    let mut options = Options::from_token(transformations, size_limits(&state));
    // The token's `format` claim (which the platform writes but does not
    // read back) keeps `format: 'origin'` from being renegotiated by Accept.
    if options.format.is_none() {
        options.format = claims
            .get("format")
            .and_then(serde_json::Value::as_str)
            .and_then(options::Format::parse);
    }
    let expires = claims
        .get("exp")
        .and_then(serde_json::Value::as_i64)
        .and_then(|exp| chrono::DateTime::from_timestamp(exp, 0))
        .map(wire::http_date);
    let row = object_as(&state, &Caller::system(None), &bucket, &name).await?;
    let download = query.get("download").map(String::as_str);
    let asker = Asker::Client(&client);
    answer(&state, &row, &options, &headers, asker, download, expires).await
}

/// Who asked for a rendition: renders are counted per client address; the
/// service role (the operator's own servers) is not counted.
#[derive(Debug, Clone, Copy)]
enum Asker<'a> {
    Client(&'a str),
    Service,
}

fn set(headers: &mut HeaderMap, name: header::HeaderName, value: &str) {
    if let Ok(value) = HeaderValue::from_str(value) {
        headers.insert(name, value);
    }
}

/// The rendition of `row`, from the cache or freshly rendered, with the
/// platform's headers.
async fn answer(
    state: &StorageState,
    row: &ObjectRow,
    options: &Options,
    request: &HeaderMap,
    asker: Asker<'_>,
    download: Option<&str>,
    expires: Option<String>,
) -> Result<Response> {
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
    headers.insert("x-robots-tag", HeaderValue::from_static("none"));
    set(&mut headers, header::ETAG, &etag);
    set(
        &mut headers,
        header::LAST_MODIFIED,
        &wire::http_date(row.last_modified()),
    );
    match &expires {
        Some(expires) => set(&mut headers, header::EXPIRES, expires),
        None => set(&mut headers, header::CACHE_CONTROL, &row.cache_control()),
    }
    if options.format != Some(options::Format::Origin) {
        // The format may follow the client's Accept header.
        headers.insert(header::VARY, HeaderValue::from_static("Accept"));
    }
    let transformations = options.header();
    if !transformations.is_empty() {
        set(
            &mut headers,
            header::HeaderName::from_static("x-transformations"),
            &transformations,
        );
    }
    if wire::none_match(
        request
            .get(header::IF_NONE_MATCH)
            .and_then(|v| v.to_str().ok()),
        &etag,
    ) {
        return Ok((StatusCode::NOT_MODIFIED, headers).into_response());
    }
    let accept = request.get(header::ACCEPT).and_then(|v| v.to_str().ok());
    let (output, bytes) = rendition(state, row, options, accept, asker).await?;
    set(&mut headers, header::CONTENT_TYPE, output.content_type());
    set(&mut headers, header::ACCEPT_RANGES, "bytes");
    set(
        &mut headers,
        header::CONTENT_LENGTH,
        &bytes.len().to_string(),
    );
    if let Some(download) = download {
        let disposition = wire::download_disposition(download);
        set(&mut headers, header::CONTENT_DISPOSITION, &disposition);
    }
    Ok((StatusCode::OK, headers, Body::from(bytes)).into_response())
}

fn processing(error: RenderError) -> StorageError {
    StorageError::ImageProcessing(error.message())
}

/// Reads or makes the rendition: `(format, bytes)`.
async fn rendition(
    state: &StorageState,
    row: &ObjectRow,
    options: &Options,
    accept: Option<&str>,
    asker: Asker<'_>,
) -> Result<(Output, Bytes)> {
    let config = &state.inner.config;
    let version = row
        .version
        .as_deref()
        .ok_or_else(|| StorageError::internal("render", "object row without a version"))?;
    let size = row.size();
    if size > config.image_max_source_bytes {
        return Err(StorageError::ImageProcessing(
            "The source image file is too large to process",
        ));
    }
    let op = state.inner.store.operator();
    // When the output is WebP whatever the source, a cached rendition is one
    // read; otherwise the format follows the stored bytes (not the declared
    // type): sniff the first bytes before deciding on a cache key.
    let output = match pixels::fixed_output(options, accept) {
        Some(output) => output,
        None => {
            let head = read_range(state, version, 0, size.min(64)).await?;
            let source = pixels::sniff(&head).map_err(processing)?;
            pixels::choose_output(options, source, accept)
        }
    };
    let key = cache_key(version, options, output);
    let cache = state.inner.store.renditions();
    match op.read(&key).await {
        Ok(buffer) => {
            cache.touch(&key);
            return Ok((output, buffer.to_bytes()));
        }
        Err(e) if e.kind() == opendal::ErrorKind::NotFound => {}
        Err(e) => tracing::warn!(%e, key, "could not read a cached rendition"),
    }
    if let Asker::Client(client) = asker {
        cache
            .count_render(client)
            .map_err(|wait| StorageError::TooManyRenders(plinth_limits::retry_after_secs(wait)))?;
    }
    let permit = RENDERS
        .acquire()
        .await
        .map_err(|e| StorageError::internal("render", e))?;
    let source_bytes = read_range(state, version, 0, size).await?;
    let opts = options.clone();
    let max_pixels = config.image_max_source_pixels;
    let rendered = tokio::task::spawn_blocking(move || {
        pixels::render(&source_bytes, &opts, output, max_pixels)
    })
    .await
    .map_err(|e| StorageError::internal("render", e))?
    .map_err(processing)?;
    drop(permit);
    let bytes = Bytes::from(rendered);
    let size = bytes.len() as u64;
    if cache.keep(version, size) == cache::Keep::Store {
        match op.write(&key, bytes.clone()).await {
            Ok(_) => {
                let evicted = cache.stored(&key, size);
                cache::remove_all(op, &evicted).await;
            }
            Err(e) => tracing::warn!(%e, key, "could not cache a rendition"),
        }
    }
    Ok((output, bytes))
}

/// The bytes `start..end` of a version, whole.
async fn read_range(state: &StorageState, version: &str, start: u64, end: u64) -> Result<Vec<u8>> {
    if start >= end {
        return Ok(Vec::new());
    }
    let mut stream = state
        .inner
        .store
        .read(version, start, end)
        .await
        .map_err(|e| match e.kind() {
            opendal::ErrorKind::NotFound => StorageError::ObjectNotFound,
            _ => StorageError::internal("opening object bytes", e),
        })?;
    let mut out = Vec::with_capacity((end - start) as usize);
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| StorageError::internal("reading object bytes", e))?;
        out.extend_from_slice(&chunk);
        if out.len() as u64 > end - start {
            break;
        }
    }
    Ok(out)
}

fn cache_key(version: &str, options: &Options, output: Output) -> String {
    let mut hash = Md5::new();
    hash.update(options.header().as_bytes());
    hash.update(b"|");
    hash.update(output.extension().as_bytes());
    let digest: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}{digest}.{}",
        rendition_prefix(version),
        output.extension()
    )
}

/// `transformations` (and `format`) claims of a signed URL asked for with a
/// `transform` body; `None` when nothing is transformed.
pub(crate) fn sign_claims(
    state: &StorageState,
    transform: Option<&serde_json::Value>,
) -> Result<Option<(String, Option<String>)>> {
    let Some(transform) = transform.filter(|t| !t.is_null()) else {
        return Ok(None);
    };
    if !state.inner.config.image_transformation_enabled {
        return Ok(None);
    }
    let options = Options::from_json(transform, size_limits(state))?;
    let token = options.to_token();
    let format = transform
        .get("format")
        .and_then(serde_json::Value::as_str)
        .filter(|f| !f.is_empty())
        .map(str::to_owned);
    Ok((!token.is_empty()).then_some((token, format)))
}
