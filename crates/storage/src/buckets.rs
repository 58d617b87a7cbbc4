//! Bucket endpoints. They run as the caller, so row-level security on
//! `storage.buckets` decides: with no policies (the default) only
//! `service_role` sees or changes buckets.

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, Uri};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::StorageState;
use crate::coerce::{self, Boolean};
use crate::error::StorageError;
use crate::extract::{JsonBody, Path, Query};
use crate::meta::{BUCKET_COLUMNS, BucketRow, Caller, allow_delete};
use crate::names::validate_bucket_name;
use crate::wire;

type Result<T, E = StorageError> = std::result::Result<T, E>;

/// `public` as the platform's validator takes it (`"true"` is true).
fn parse_json<T: for<'de> Deserialize<'de>>(body: &Bytes) -> Result<T> {
    coerce::parse(body, &[("public", Boolean)])
}

/// `Some(None)` when the field is present and null, `None` when absent.
fn nullable<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

#[derive(Debug, Deserialize)]
struct BucketBody {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    public: Option<bool>,
    #[serde(default, deserialize_with = "nullable")]
    file_size_limit: Option<Option<Value>>,
    #[serde(default, deserialize_with = "nullable")]
    allowed_mime_types: Option<Option<Vec<String>>>,
}

fn size_limit(state: &StorageState, value: Option<&Value>) -> Result<Option<i64>> {
    let Some(value) = value else { return Ok(None) };
    let bytes = wire::parse_size(value).ok_or_else(|| {
        StorageError::InvalidRequest(
            "Invalid file size format, hint: use 20GB / 20MB / 30KB / 3B".into(),
        )
    })?;
    if bytes > state.inner.config.file_size_limit {
        return Err(StorageError::InvalidRequest(
            "file_size_limit is larger than the global limit".into(),
        ));
    }
    i64::try_from(bytes)
        .map(Some)
        .map_err(|_| StorageError::InvalidRequest("file_size_limit is too large".into()))
}

fn mime_list(list: Option<&Vec<String>>) -> Result<Option<Vec<String>>> {
    let Some(list) = list else { return Ok(None) };
    for entry in list {
        if !wire::is_media_type(entry) {
            return Err(StorageError::InvalidMimeType(entry.clone()));
        }
    }
    Ok(Some(list.clone()))
}

#[derive(Debug, Deserialize)]
pub(crate) struct ListQuery {
    limit: Option<i64>,
    offset: Option<i64>,
    search: Option<String>,
    #[serde(rename = "sortColumn")]
    sort_column: Option<String>,
    #[serde(rename = "sortOrder")]
    sort_order: Option<String>,
}

pub(crate) async fn list(
    State(state): State<StorageState>,
    Query(query): Query<ListQuery>,
    method: Method,
    headers: HeaderMap,
    uri: Uri,
) -> Result<Json<Value>> {
    let caller = Caller::from_request(&state, &headers, &method, uri.path())?;
    let column = match query.sort_column.as_deref().unwrap_or("name") {
        "id" => "id",
        "name" => "name",
        "created_at" => "created_at",
        "updated_at" => "updated_at",
        other => {
            return Err(StorageError::InvalidRequest(format!(
                "invalid sortColumn {other}"
            )));
        }
    };
    let order = match query.sort_order.as_deref().unwrap_or("asc") {
        "asc" => "asc",
        "desc" => "desc",
        other => {
            return Err(StorageError::InvalidRequest(format!(
                "invalid sortOrder {other}"
            )));
        }
    };
    let sql = format!(
        "select {BUCKET_COLUMNS} from storage.buckets \
         where $1 = '' or name ilike '%' || $1 || '%' \
         order by {column} {order} limit $2 offset $3"
    );
    let mut tx = state.inner.db.begin_as(&caller.ctx).await?;
    let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(query.search.unwrap_or_default())
        .bind(query.limit.unwrap_or(1000).clamp(1, 10_000))
        .bind(query.offset.unwrap_or(0).max(0))
        .fetch_all(&mut *tx)
        .await?;
    tx.commit().await?;
    let with_type = !python_client_before_bucket_types(&headers);
    let buckets = rows
        .iter()
        .map(|r| BucketRow::from_row(r).map(|b| b.to_json(with_type)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Json(Value::Array(buckets)))
}

/// Whether the caller is a Python client older than the one that reads a
/// bucket's `type` (supabase-py 2.18.0, storage3 0.12.1): the platform
/// leaves `type` out of its bucket list for them, which fail on it.
fn python_client_before_bucket_types(headers: &HeaderMap) -> bool {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_ascii_lowercase()
    };
    let before = |text: &str, marker: &str, version: (u64, u64, u64)| {
        text.find(marker).is_some_and(|at| {
            let rest = &text[at + marker.len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .unwrap_or(rest.len());
            let mut parts = rest[..end].splitn(3, '.').map(|p| {
                let digits = p.find(|c: char| !c.is_ascii_digit()).unwrap_or(p.len());
                p[..digits].parse::<u64>().ok()
            });
            match (parts.next(), parts.next(), parts.next()) {
                (Some(Some(a)), Some(Some(b)), Some(Some(c))) => (a, b, c) < version,
                _ => false,
            }
        })
    };
    before(&header("x-client-info"), "supabase-py/", (2, 18, 0))
        || before(&header("user-agent"), "supabase-py/storage3 v", (0, 12, 1))
}

pub(crate) async fn get_one(
    State(state): State<StorageState>,
    Path(id): Path<String>,
    method: Method,
    headers: HeaderMap,
    uri: Uri,
) -> Result<Json<Value>> {
    let caller = Caller::from_request(&state, &headers, &method, uri.path())?;
    let mut tx = state.inner.db.begin_as(&caller.ctx).await?;
    let row = sqlx::query(sqlx::AssertSqlSafe(format!(
        "select {BUCKET_COLUMNS} from storage.buckets where id = $1"
    )))
    .bind(&id)
    .fetch_optional(&mut *tx)
    .await?;
    tx.commit().await?;
    let row = row.ok_or(StorageError::BucketNotFound)?;
    Ok(Json(BucketRow::from_row(&row)?.to_json(false)))
}

pub(crate) async fn create(
    State(state): State<StorageState>,
    method: Method,
    headers: HeaderMap,
    uri: Uri,
    JsonBody(body): JsonBody,
) -> Result<Json<Value>> {
    let caller = Caller::from_request(&state, &headers, &method, uri.path())?;
    let body: BucketBody = parse_json(&body)?;
    let id = body
        .id
        .clone()
        .or_else(|| body.name.clone())
        .ok_or(StorageError::InvalidBucketName)?;
    let name = body.name.clone().unwrap_or_else(|| id.clone());
    validate_bucket_name(&id)?;
    validate_bucket_name(&name)?;
    let limit = size_limit(&state, body.file_size_limit.clone().flatten().as_ref())?;
    let mimes = mime_list(body.allowed_mime_types.clone().flatten().as_ref())?;
    let mut tx = state.inner.db.begin_as(&caller.ctx).await?;
    let inserted = sqlx::query(
        "insert into storage.buckets (id, name, owner, owner_id, public, file_size_limit, allowed_mime_types) \
         values ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(&id)
    .bind(&name)
    .bind(caller.owner_uuid())
    .bind(caller.sub())
    .bind(body.public.unwrap_or(false))
    .bind(limit)
    .bind(mimes)
    .execute(&mut *tx)
    .await;
    match inserted.map_err(StorageError::from) {
        Ok(_) => {}
        Err(StorageError::Duplicate) => return Err(StorageError::BucketExists),
        Err(e) => return Err(e),
    }
    tx.commit().await?;
    // The platform answers with the name it was given.
    Ok(Json(json!({ "name": name })))
}

pub(crate) async fn update(
    State(state): State<StorageState>,
    Path(id): Path<String>,
    method: Method,
    headers: HeaderMap,
    uri: Uri,
    JsonBody(body): JsonBody,
) -> Result<Json<Value>> {
    let caller = Caller::from_request(&state, &headers, &method, uri.path())?;
    let body: BucketBody = parse_json(&body)?;
    let limit = match &body.file_size_limit {
        Some(value) => Some(size_limit(&state, value.as_ref())?),
        None => None,
    };
    let mimes = match &body.allowed_mime_types {
        Some(list) => Some(mime_list(list.as_ref())?),
        None => None,
    };
    // `$n_set` says whether a field was sent, so null clears it and absence
    // keeps it.
    let mut tx = state.inner.db.begin_as(&caller.ctx).await?;
    let updated = sqlx::query(
        "update storage.buckets set \
           public = coalesce($2, public), \
           file_size_limit = case when $3 then $4 else file_size_limit end, \
           allowed_mime_types = case when $5 then $6 else allowed_mime_types end, \
           updated_at = now() \
         where id = $1 returning id",
    )
    .bind(&id)
    .bind(body.public)
    .bind(limit.is_some())
    .bind(limit.flatten())
    .bind(mimes.is_some())
    .bind(mimes.flatten())
    .fetch_optional(&mut *tx)
    .await?;
    if updated.is_none() {
        return Err(StorageError::BucketNotFound);
    }
    tx.commit().await?;
    Ok(Json(json!({ "message": "Successfully updated" })))
}

/// Whether the bucket is visible to the transaction's role.
async fn bucket_visible(conn: &mut sqlx::PgConnection, id: &str) -> Result<bool> {
    let found: Option<String> = sqlx::query_scalar("select id from storage.buckets where id = $1")
        .bind(id)
        .fetch_optional(conn)
        .await?;
    Ok(found.is_some())
}

pub(crate) async fn empty(
    State(state): State<StorageState>,
    Path(id): Path<String>,
    method: Method,
    headers: HeaderMap,
    uri: Uri,
) -> Result<Json<Value>> {
    let caller = Caller::from_request(&state, &headers, &method, uri.path())?;
    let mut tx = state.inner.db.begin_as(&caller.ctx).await?;
    if !bucket_visible(&mut tx, &id).await? {
        return Err(StorageError::BucketNotFound);
    }
    allow_delete(&mut tx).await?;
    let versions: Vec<Option<String>> =
        sqlx::query_scalar("delete from storage.objects where bucket_id = $1 returning version")
            .bind(&id)
            .fetch_all(&mut *tx)
            .await?;
    tx.commit().await?;
    for version in versions.into_iter().flatten() {
        state.inner.store.remove_version(&version).await;
    }
    // The platform's words (it empties in the background; Plinth has done
    // it by now).
    Ok(Json(json!({
        "message": "Empty bucket has been queued. Completion may take up to an hour."
    })))
}

pub(crate) async fn delete(
    State(state): State<StorageState>,
    Path(id): Path<String>,
    method: Method,
    headers: HeaderMap,
    uri: Uri,
) -> Result<Json<Value>> {
    let caller = Caller::from_request(&state, &headers, &method, uri.path())?;
    let mut tx = state.inner.db.begin_as(&caller.ctx).await?;
    let deleted = sqlx::query("delete from storage.buckets where id = $1 returning id")
        .bind(&id)
        .fetch_optional(&mut *tx)
        .await;
    let deleted = match deleted {
        Ok(row) => row,
        Err(sqlx::Error::Database(db)) if db.code().as_deref() == Some("23503") => {
            return Err(StorageError::BucketNotEmpty);
        }
        Err(e) => return Err(e.into()),
    };
    if deleted.is_none() {
        return Err(StorageError::BucketNotFound);
    }
    tx.commit().await?;
    Ok(Json(json!({ "message": "Successfully deleted" })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_python_clients_are_told_apart_as_the_platform_does() {
        let with = |name: &'static str, value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(name, value.parse().unwrap());
            python_client_before_bucket_types(&headers)
        };
        assert!(with("x-client-info", "supabase-py/2.17.9"));
        assert!(with("x-client-info", "Supabase-Py/1.0.0"));
        assert!(!with("x-client-info", "supabase-py/2.18.0"));
        assert!(!with("x-client-info", "supabase-py/3.0.0"));
        assert!(!with("x-client-info", "supabase-js-node/2.109.0"));
        assert!(!with("x-client-info", "supabase-py/2.x"));
        assert!(with("user-agent", "supabase-py/storage3 v0.12.0"));
        assert!(!with("user-agent", "supabase-py/storage3 v0.12.1"));
        assert!(!with("user-agent", "python-httpx/0.27.0"));
        assert!(!python_client_before_bucket_types(&HeaderMap::new()));
    }
}
