//! Who is asking, and the rows of `storage.buckets` / `storage.objects`.
//!
//! Every statement runs in a transaction opened by
//! [`plinth_db::Database::begin_as`]: as the caller for anything a user asks
//! for (so row-level security decides), or as `service_role` for the reads
//! the platform also does as a system user (bucket limits, public buckets,
//! signed URLs, whose permission was checked when the URL was signed).

use axum::http::{HeaderMap, Method};
use chrono::{DateTime, Utc};
use plinth_db::pipeline::{Pooled, Reply};
use plinth_db::{JwtError, RequestContext, presented_token};
use postgres_types::Type;
use serde_json::{Value, json};
use sqlx::postgres::PgRow;
use sqlx::{PgConnection, Row};
use uuid::Uuid;

use crate::StorageState;
use crate::error::StorageError;

/// The identity a request runs with.
#[derive(Debug, Clone)]
pub(crate) struct Caller {
    pub ctx: RequestContext,
}

impl Caller {
    /// The verified caller of a request that needs a token (every route but
    /// public and signed downloads): `Authorization: Bearer`, else `apikey`.
    pub fn from_request(
        state: &StorageState,
        headers: &HeaderMap,
        method: &Method,
        path: &str,
    ) -> Result<Self, StorageError> {
        let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        let token = presented_token(header("authorization"), header("apikey"))
            // no token at all: what the platform's JWT check says of an empty one
            .ok_or_else(|| StorageError::Unauthorized("Invalid Compact JWS".into()))?;
        let claims = state.inner.jwt.verify(token).map_err(|e| {
            StorageError::Unauthorized(match e {
                JwtError::Expired => "jwt expired".into(),
                JwtError::Invalid(_) => "invalid signature".into(),
            })
        })?;
        let mut ctx = RequestContext::from_claims(claims, "anon");
        ctx.method = method.to_string();
        ctx.path = path.to_owned();
        ctx.headers = headers_json(headers);
        Ok(Self { ctx })
    }

    /// The service role, acting for `sub` when given (so `owner` is recorded).
    pub fn system(sub: Option<&str>) -> Self {
        let mut claims = json!({ "role": "service_role" });
        if let Some(sub) = sub {
            claims["sub"] = Value::String(sub.to_owned());
        }
        Self {
            ctx: RequestContext::new("service_role", claims),
        }
    }

    /// The JWT `sub`, if any.
    pub fn sub(&self) -> Option<&str> {
        self.ctx.claims.get("sub").and_then(Value::as_str)
    }

    /// `owner` as the platform records it: `auth.uid()`, the sub as a UUID.
    pub fn owner_uuid(&self) -> Option<Uuid> {
        self.sub().and_then(|s| Uuid::parse_str(s).ok())
    }
}

/// Request headers as `request.headers`, without credentials.
fn headers_json(headers: &HeaderMap) -> Value {
    let mut map = serde_json::Map::new();
    for (name, value) in headers {
        let name = name.as_str();
        if matches!(name, "authorization" | "apikey" | "cookie") {
            continue;
        }
        if let Ok(value) = value.to_str() {
            map.insert(name.to_owned(), Value::String(value.to_owned()));
        }
    }
    Value::Object(map)
}

/// A row of `storage.buckets` (as `row_to_json` writes it, too).
#[derive(Debug, Clone, serde::Deserialize)]
pub(crate) struct BucketRow {
    pub id: String,
    pub name: String,
    pub owner: Option<Uuid>,
    pub public: bool,
    pub file_size_limit: Option<i64>,
    pub allowed_mime_types: Option<Vec<String>>,
    #[serde(rename = "type")]
    pub kind: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

pub(crate) const BUCKET_COLUMNS: &str = "id, name, owner, public, file_size_limit, \
     allowed_mime_types, type, created_at, updated_at";

impl BucketRow {
    pub fn from_row(row: &PgRow) -> Result<Self, sqlx::Error> {
        Ok(Self {
            id: row.try_get("id")?,
            name: row.try_get("name")?,
            owner: row.try_get("owner")?,
            public: row.try_get("public")?,
            file_size_limit: row.try_get("file_size_limit")?,
            allowed_mime_types: row.try_get("allowed_mime_types")?,
            kind: row.try_get("type")?,
            created_at: row.try_get("created_at")?,
            updated_at: row.try_get("updated_at")?,
        })
    }

    /// The bucket as the platform answers it: the columns its routes select
    /// (no `owner_id`; `type` only in lists, `with_type`), `owner` as its
    /// serializer writes a missing one (`""`), times in JavaScript's form.
    pub fn to_json(&self, with_type: bool) -> Value {
        let time = |t: &DateTime<Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let mut bucket = json!({
            "id": self.id,
            "name": self.name,
            "owner": self.owner.map(|o| o.to_string()).unwrap_or_default(),
            "public": self.public,
            "file_size_limit": self.file_size_limit,
            "allowed_mime_types": self.allowed_mime_types,
            "created_at": time(&self.created_at),
            "updated_at": time(&self.updated_at),
        });
        if with_type {
            bucket["type"] = Value::String(self.kind.clone());
        }
        bucket
    }

    /// The effective size limit: the bucket's, never above the global one.
    pub fn size_limit(&self, global: u64) -> u64 {
        match self.file_size_limit {
            Some(limit) if limit >= 0 => (limit as u64).min(global),
            _ => global,
        }
    }
}

/// A row of `storage.objects`.
#[derive(Debug, Clone)]
pub(crate) struct ObjectRow {
    pub id: Uuid,
    pub bucket_id: String,
    pub name: String,
    pub owner: Option<Uuid>,
    pub owner_id: Option<String>,
    pub metadata: Option<Value>,
    pub user_metadata: Option<Value>,
    pub version: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub last_accessed_at: DateTime<Utc>,
}

pub(crate) const OBJECT_COLUMNS: &str = "id, bucket_id, name, owner, owner_id, metadata, \
     user_metadata, version, created_at, updated_at, last_accessed_at";

impl ObjectRow {
    pub fn from_row(row: &PgRow) -> Result<Self, sqlx::Error> {
        Ok(Self {
            id: row.try_get("id")?,
            bucket_id: row.try_get("bucket_id")?,
            name: row.try_get("name")?,
            owner: row.try_get("owner")?,
            owner_id: row.try_get("owner_id")?,
            metadata: row.try_get("metadata")?,
            user_metadata: row.try_get("user_metadata")?,
            version: row.try_get("version")?,
            created_at: row.try_get("created_at")?,
            updated_at: row.try_get("updated_at")?,
            last_accessed_at: row.try_get("last_accessed_at")?,
        })
    }

    /// The row as `remove` returns it.
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "bucket_id": self.bucket_id,
            "name": self.name,
            "owner": self.owner,
            "owner_id": self.owner_id,
            "metadata": self.metadata,
            "user_metadata": self.user_metadata,
            "version": self.version,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "last_accessed_at": self.last_accessed_at,
        })
    }

    fn meta(&self, key: &str) -> Option<&Value> {
        self.metadata.as_ref().and_then(|m| m.get(key))
    }

    pub fn size(&self) -> u64 {
        self.meta("size").and_then(Value::as_u64).unwrap_or(0)
    }

    pub fn mimetype(&self) -> String {
        self.meta("mimetype")
            .and_then(Value::as_str)
            .unwrap_or("application/octet-stream")
            .to_owned()
    }

    pub fn cache_control(&self) -> String {
        self.meta("cacheControl")
            .and_then(Value::as_str)
            .unwrap_or("no-cache")
            .to_owned()
    }

    pub fn etag(&self) -> String {
        self.meta("eTag")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| format!("\"{}\"", self.version.as_deref().unwrap_or_default()))
    }

    pub fn last_modified(&self) -> DateTime<Utc> {
        self.meta("lastModified")
            .and_then(Value::as_str)
            .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
            .map(|d| d.with_timezone(&Utc))
            .unwrap_or(self.updated_at)
    }

    /// The row as `info` returns it: exactly the platform's fields
    /// (storage-js camel-cases the keys), `metadata` the user metadata or
    /// `{}`, `last_modified` the row's `updated_at`.
    pub fn to_info_json(&self) -> Value {
        json!({
            "id": self.id,
            "name": self.name,
            "version": self.version,
            "bucket_id": self.bucket_id,
            "size": self.size(),
            "content_type": self.mimetype(),
            "cache_control": self.cache_control(),
            "etag": self.etag(),
            "metadata": self.user_metadata.clone().filter(|m| !m.is_null()).unwrap_or_else(|| json!({})),
            "last_modified": self.updated_at,
            "created_at": self.created_at,
        })
    }
}

/// The bucket `id`, read as the service role (limits and publicity are not
/// secret to the storage service itself), in one round trip.
pub(crate) async fn system_bucket(
    state: &StorageState,
    id: &str,
) -> Result<BucketRow, StorageError> {
    upload_checks(state, id, None)
        .await
        .map(|(bucket, _)| bucket)
}

/// The test insert of [`precheck_insert`]: who may create which object.
pub(crate) struct TestInsert<'a> {
    pub caller: &'a Caller,
    pub name: &'a str,
    pub upsert: bool,
}

/// The bucket `id` (as [`system_bucket`] reads it) and, when asked, the
/// answer of the test insert into it (as [`precheck_insert`]), both in one
/// round trip: an upload asks both before its first byte. The test
/// insert's refusal is the second value, for the caller to report after
/// its own checks of the bucket's limits.
pub(crate) async fn upload_checks(
    state: &StorageState,
    id: &str,
    insert: Option<TestInsert<'_>>,
) -> Result<(BucketRow, Result<(), StorageError>), StorageError> {
    static SELECT: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        format!(
            "select row_to_json(b)::text from \
             (select {BUCKET_COLUMNS} from storage.buckets where id = $1) b"
        )
    });
    let mut conn = Pooled::get(&state.inner.db.pipelined).await?;
    let mut batch = conn.batch();
    batch.push("BEGIN READ ONLY", &[], &[]);
    Caller::system(None).ctx.push_settings(&mut batch);
    batch.push(&SELECT, &[Type::TEXT], &[&id]);
    batch.push("COMMIT", &[], &[]);
    if let Some(insert) = &insert {
        push_test_insert(&mut batch, insert, id);
    }
    // A refused statement leaves its transaction to `Pooled`, which rolls
    // it back; the statements after it are skipped.
    let (replies, error) = batch.run().await;
    // The bucket's statements come first: when its commit was skipped, the
    // error is theirs; else any error is the test insert's.
    if matches!(replies[3], Reply::Skipped) {
        return Err(error.map_or_else(
            || StorageError::internal("reading a bucket row", "commit skipped"),
            StorageError::from,
        ));
    }
    // A missing bucket is reported as such, whatever the test insert met
    // first (row-level security is checked before the bucket reference).
    let bucket = match replies[2].rows().first().and_then(|row| row.text(0)) {
        Some(json) => serde_json::from_str::<BucketRow>(json)
            .map_err(|e| StorageError::internal("reading a bucket row", e))?,
        None => return Err(StorageError::BucketNotFound),
    };
    Ok((bucket, refusal(error)))
}

/// What a test insert came to: allowed, or its refusal (an existing object
/// is one only without upsert, see [`push_test_insert`]).
fn refusal(error: Option<plinth_db::pipeline::WireError>) -> Result<(), StorageError> {
    error.map_or(Ok(()), |e| Err(e.into()))
}

/// Queues the test insert (in a transaction of its own, rolled back).
fn push_test_insert(
    batch: &mut plinth_db::pipeline::Batch<'_>,
    insert: &TestInsert<'_>,
    bucket: &str,
) {
    let owner = insert.caller.owner_uuid().map(|u| u.to_string());
    batch.push("BEGIN", &[], &[]);
    insert.caller.ctx.push_settings(batch);
    const INSERT: &str = "insert into storage.objects (bucket_id, name, owner, owner_id, metadata) \
         values ($1, $2, $3::uuid, $4, '{}'::jsonb)";
    // With upsert an existing object is no refusal: `do nothing` meets it
    // without an error (row-level security's insert check still applies).
    static UPSERT: std::sync::LazyLock<String> =
        std::sync::LazyLock::new(|| format!("{INSERT} on conflict (bucket_id, name) do nothing"));
    batch.push(
        if insert.upsert { &UPSERT } else { INSERT },
        &[Type::TEXT; 4],
        &[&bucket, &insert.name, &owner, &insert.caller.sub()],
    );
    batch.push("ROLLBACK", &[], &[]);
}

/// One object row, as whoever `conn` runs as.
pub(crate) async fn find_object(
    conn: &mut PgConnection,
    bucket: &str,
    name: &str,
) -> Result<Option<ObjectRow>, StorageError> {
    let row = sqlx::query(sqlx::AssertSqlSafe(format!(
        "select {OBJECT_COLUMNS} from storage.objects where bucket_id = $1 and name = $2"
    )))
    .bind(bucket)
    .bind(name)
    .fetch_optional(conn)
    .await?;
    Ok(row.as_ref().map(ObjectRow::from_row).transpose()?)
}

/// Reads one object as `caller` (row-level security decides).
pub(crate) async fn object_as(
    state: &StorageState,
    caller: &Caller,
    bucket: &str,
    name: &str,
) -> Result<ObjectRow, StorageError> {
    let mut tx = state.inner.db.begin_as(&caller.ctx).await?;
    let row = find_object(&mut tx, bucket, name).await?;
    tx.commit().await?;
    row.ok_or(StorageError::ObjectNotFound)
}

/// The metadata JSON stored with an object.
pub(crate) fn object_metadata(size: u64, etag: &str, mimetype: &str, cache_control: &str) -> Value {
    json!({
        "eTag": format!("\"{etag}\""),
        "size": size,
        "mimetype": mimetype,
        "cacheControl": cache_control,
        "lastModified": Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        "contentLength": size,
        "httpStatusCode": 200,
    })
}

/// What is written into a new or replaced object row.
#[derive(Debug)]
pub(crate) struct NewObject<'a> {
    pub bucket: &'a str,
    pub name: &'a str,
    pub version: &'a str,
    pub metadata: Value,
    pub user_metadata: Option<Value>,
}

/// Why an object row was not written.
#[derive(Debug)]
pub(crate) struct Unwritten {
    pub error: StorageError,
    /// Whether the row surely was not written: the database refused it, or
    /// it was never sent. When the connection failed while the commit was
    /// under way, the commit may have happened, and its bytes must stay
    /// (the orphan sweep removes them if no row names them).
    pub surely: bool,
}

/// Writes the row of an upload as `caller`, in one transaction sent as one
/// batch: inserts it, or with `upsert` replaces the existing one, as the
/// platform's upsert does (`insert ... on conflict do update`, so the
/// project's insert and update policies decide). With `upsert`, the
/// existing row is locked first, which gives the version it had: a row the
/// caller may not update is not locked, and the insert's conflict is then
/// refused by the update policies. Returns the object's id and the version
/// it replaced, whose bytes the caller removes after the commit; a version
/// that a concurrent upload put in between the lock and the insert is left
/// to the orphan sweep.
pub(crate) async fn write_object(
    state: &StorageState,
    caller: &Caller,
    object: &NewObject<'_>,
    upsert: bool,
) -> Result<(Uuid, Option<String>), Unwritten> {
    row_batch(state, caller, object, upsert, true)
        .await
        .map(|staged| (staged.id, staged.replaced))
}

/// An object row written by a transaction still open (see
/// [`stage_object`]): it commits with [`Staged::commit`], and dropping it
/// rolls the row back.
pub(crate) struct Staged {
    conn: Pooled,
    id: Uuid,
    replaced: Option<String>,
}

/// As [`write_object`] without the commit, for an upload whose bytes are
/// still being made durable: the row's statements run meanwhile, and only
/// the commit waits for the bytes. Nothing is committed, so a failure
/// always leaves no row.
pub(crate) async fn stage_object(
    state: &StorageState,
    caller: &Caller,
    object: &NewObject<'_>,
    upsert: bool,
) -> Result<Staged, Unwritten> {
    row_batch(state, caller, object, upsert, false)
        .await
        .map_err(|unwritten| Unwritten {
            surely: true,
            ..unwritten
        })
}

impl Staged {
    /// Commits the row; returns the object's id and the version it
    /// replaced, as [`write_object`] does.
    pub(crate) async fn commit(mut self) -> Result<(Uuid, Option<String>), Unwritten> {
        let mut batch = self.conn.batch();
        batch.push("COMMIT", &[], &[]);
        match batch.run().await {
            (_, Some(e)) => Err(Unwritten {
                surely: e.as_db_error().is_some(),
                error: e.into(),
            }),
            (_, None) => Ok((self.id, self.replaced)),
        }
    }
}

/// The batch of [`write_object`], with its `COMMIT` or without.
async fn row_batch(
    state: &StorageState,
    caller: &Caller,
    object: &NewObject<'_>,
    upsert: bool,
    commit: bool,
) -> Result<Staged, Unwritten> {
    const INSERT: &str = "insert into storage.objects \
         (bucket_id, name, owner, owner_id, metadata, user_metadata, version) \
         values ($1, $2, $3::uuid, $4, $5::jsonb, $6::jsonb, $7)";
    static PLAIN: std::sync::LazyLock<String> =
        std::sync::LazyLock::new(|| format!("{INSERT} returning id::text"));
    static REPLACING: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        format!(
            "{INSERT} on conflict (bucket_id, name) do update set \
             version = excluded.version, metadata = excluded.metadata, \
             user_metadata = excluded.user_metadata, owner = excluded.owner, \
             owner_id = excluded.owner_id, updated_at = now(), last_accessed_at = now() \
             returning id::text"
        )
    });
    let owner = caller.owner_uuid().map(|u| u.to_string());
    let owner_id = caller.sub();
    let metadata = object.metadata.to_string();
    let user_metadata = object.user_metadata.as_ref().map(Value::to_string);
    let mut conn = Pooled::get(&state.inner.db.pipelined)
        .await
        .map_err(|e| Unwritten {
            error: e.into(),
            surely: true,
        })?;
    let mut batch = conn.batch();
    batch.push("BEGIN", &[], &[]);
    caller.ctx.push_settings(&mut batch);
    if upsert {
        batch.push(
            "select version from storage.objects \
             where bucket_id = $1 and name = $2 for update",
            &[Type::TEXT; 2],
            &[&object.bucket, &object.name],
        );
    }
    batch.push(
        if upsert { &REPLACING } else { &PLAIN },
        &[Type::TEXT; 7],
        &[
            &object.bucket,
            &object.name,
            &owner,
            &owner_id,
            &metadata,
            &user_metadata,
            &object.version,
        ],
    );
    if commit {
        batch.push("COMMIT", &[], &[]);
    }
    // A refused statement leaves the transaction to `Pooled`, which rolls
    // it back.
    let (replies, error) = batch.run().await;
    if let Some(e) = error {
        return Err(Unwritten {
            surely: e.as_db_error().is_some(),
            error: e.into(),
        });
    }
    let (locked, written) = if upsert {
        (replies[2].rows().first(), &replies[3])
    } else {
        (None, &replies[2])
    };
    let id = written
        .rows()
        .first()
        .and_then(|row| row.text(0))
        .and_then(|id| id.parse::<Uuid>().ok())
        .ok_or_else(|| Unwritten {
            error: StorageError::internal("writing an object row", "no id returned"),
            surely: false,
        })?;
    let replaced = locked.and_then(|row| row.text(0)).map(str::to_owned);
    Ok(Staged { conn, id, replaced })
}

/// Checks, before any byte is received, that `caller` may create the object
/// (and, without upsert, that it does not exist yet): a test insert that is
/// rolled back, as the platform does.
pub(crate) async fn precheck_insert(
    state: &StorageState,
    caller: &Caller,
    bucket: &str,
    name: &str,
    upsert: bool,
) -> Result<(), StorageError> {
    let insert = TestInsert {
        caller,
        name,
        upsert,
    };
    let mut conn = Pooled::get(&state.inner.db.pipelined).await?;
    let mut batch = conn.batch();
    push_test_insert(&mut batch, &insert, bucket);
    // A refused insert leaves the transaction to `Pooled`, which rolls it
    // back.
    let (_, error) = batch.run().await;
    refusal(error)
}

/// Marks a transaction as the storage service's own, so that the trigger
/// guarding `storage.objects` lets it delete rows.
pub(crate) async fn allow_delete(conn: &mut PgConnection) -> Result<(), StorageError> {
    sqlx::query("select set_config('storage.allow_delete_query', 'true', true)")
        .execute(conn)
        .await?;
    Ok(())
}
