//! `POST /object/list-v2/{bucket}`: cursor-paged listing as the platform
//! answers it (`listObjectsV2` in its storage layer; storage-js `listV2`):
//! `{ hasNext, nextCursor?, nextCursorKey?, folders, objects }`.
//!
//! * Without `with_delimiter` every object under `prefix` (a plain string
//!   prefix) is listed, by name (bytewise, `COLLATE "C"`) or by
//!   `created_at` / `updated_at` then name.
//! * With `with_delimiter` the names below `prefix` fold at the next `/`
//!   into folders, each listed once among the objects directly under
//!   `prefix`; every entry carries `key`, its name's segment at the
//!   prefix's depth. A folder is the platform's row for it: `{ key: "b",
//!   name: "a/b/", id: null, metadata: null, ... }`, its times null in name
//!   order, and, ordered by `created_at` / `updated_at`, both the earliest
//!   `created_at` of its objects (as the platform's `search_by_timestamp`).
//!   In name order the walk skips a folder's contents with one seek, as the
//!   platform's skip-scan does.
//! * The cursor is the platform's: base64 of `l:<last name>` (and `o:` /
//!   `c:` / `a:` for order, column and the column's last value); a folder
//!   last in name order is `l:a/b/`, so that the next page knows to skip
//!   it, while `nextCursorKey` names it as the platform does (`a/b`).
//!
//! Every statement runs as the caller: row-level security decides what is
//! listed.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, Method, Uri};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Map, Value, json};
use sqlx::{PgConnection, Row};
use uuid::Uuid;

use crate::StorageState;
use crate::coerce::{self, Boolean, Integer};
use crate::error::StorageError;
use crate::extract::{JsonBody, Path};
use crate::meta::Caller;
use crate::validate_bucket_name;

type Result<T> = std::result::Result<T, StorageError>;

/// Most entries a page has (and the default).
const MAX_KEYS: usize = 1000;
/// Rows read per statement while folding folders.
const BATCH: i64 = 200;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    Name,
    CreatedAt,
    UpdatedAt,
}

impl Column {
    fn parse(value: &str) -> Option<Self> {
        match value {
            "name" => Some(Column::Name),
            "created_at" => Some(Column::CreatedAt),
            "updated_at" => Some(Column::UpdatedAt),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Column::Name => "name",
            Column::CreatedAt => "created_at",
            Column::UpdatedAt => "updated_at",
        }
    }
}

/// A request after validation.
#[derive(Debug)]
struct Request {
    prefix: String,
    limit: usize,
    delimiter: bool,
    /// `sortBy.column` / `sortBy.order` as given (they go into the cursor).
    column: Option<Column>,
    order: Option<String>,
    cursor: Option<Cursor>,
}

/// The platform's continuation token.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Cursor {
    start_after: String,
    order: Option<String>,
    column: Option<String>,
    column_after: Option<String>,
}

impl Cursor {
    fn encode(&self) -> String {
        let mut text = String::new();
        for (key, value) in [
            ("l", Some(&self.start_after)),
            ("o", self.order.as_ref()),
            ("c", self.column.as_ref()),
            ("a", self.column_after.as_ref()),
        ] {
            if let Some(value) = value.filter(|v| !v.is_empty()) {
                text.push_str(key);
                text.push(':');
                text.push_str(value);
                text.push('\n');
            }
        }
        text.pop();
        STANDARD.encode(text)
    }

    fn decode(token: &str) -> Result<Self> {
        let invalid = || StorageError::InvalidParameter("continuation token".into());
        let bytes = STANDARD.decode(token.trim()).map_err(|_| invalid())?;
        let text = String::from_utf8(bytes).map_err(|_| invalid())?;
        let mut cursor = Cursor::default();
        for part in text.split('\n') {
            let mut chars = part.chars();
            let (Some(key), Some(':')) = (chars.next(), chars.next()) else {
                return Err(invalid());
            };
            let value = chars.as_str().to_owned();
            match key {
                'l' => cursor.start_after = value,
                'o' => cursor.order = Some(value),
                'c' => cursor.column = Some(value),
                'a' => cursor.column_after = Some(value),
                _ => return Err(invalid()),
            }
        }
        Ok(cursor)
    }
}

fn schema_error(message: &str) -> StorageError {
    StorageError::InvalidRequest(message.to_owned())
}

impl Request {
    /// Validates the body as the platform's schema does (its messages).
    fn parse(body: &Value) -> Result<Self> {
        let body = body
            .as_object()
            .ok_or_else(|| schema_error("body must be object"))?;
        let prefix = match body.get("prefix") {
            None => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(_) => return Err(schema_error("body/prefix must be string")),
        };
        let limit = match body.get("limit") {
            None => MAX_KEYS,
            Some(v) => {
                let n = v
                    .as_i64()
                    .or_else(|| v.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
                    .ok_or_else(|| schema_error("body/limit must be integer"))?;
                if n < 1 {
                    return Err(schema_error("body/limit must be >= 1"));
                }
                (n as usize).min(MAX_KEYS)
            }
        };
        let delimiter = match body.get("with_delimiter") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(schema_error("body/with_delimiter must be boolean")),
        };
        let cursor = match body.get("cursor") {
            None => None,
            Some(Value::String(s)) if s.is_empty() => None,
            Some(Value::String(s)) => Some(Cursor::decode(s)?),
            Some(_) => return Err(schema_error("body/cursor must be string")),
        };
        let (mut column, mut order) = (None, None);
        match body.get("sortBy") {
            None => {}
            Some(Value::Object(sort)) => {
                match sort.get("column") {
                    None => {
                        return Err(schema_error(
                            "body/sortBy must have required property 'column'",
                        ));
                    }
                    Some(Value::String(c)) => {
                        column = Some(Column::parse(c).ok_or_else(|| {
                            schema_error(
                                "body/sortBy/column must be equal to one of the allowed values",
                            )
                        })?);
                    }
                    Some(_) => return Err(schema_error("body/sortBy/column must be string")),
                }
                match sort.get("order") {
                    None => {}
                    Some(Value::String(o)) if o == "asc" || o == "desc" => order = Some(o.clone()),
                    Some(Value::String(_)) => {
                        return Err(schema_error(
                            "body/sortBy/order must be equal to one of the allowed values",
                        ));
                    }
                    Some(_) => return Err(schema_error("body/sortBy/order must be string")),
                }
            }
            Some(_) => return Err(schema_error("body/sortBy must be object")),
        }
        Ok(Self {
            prefix,
            limit,
            delimiter,
            column,
            order,
            cursor,
        })
    }

    /// Order and column in effect: the cursor's win, as on the platform.
    fn effective(&self) -> (bool, Column) {
        let order = self
            .cursor
            .as_ref()
            .and_then(|c| c.order.clone())
            .or_else(|| self.order.clone());
        let column = self
            .cursor
            .as_ref()
            .and_then(|c| c.column.as_deref().and_then(Column::parse))
            .or(self.column)
            .unwrap_or(Column::Name);
        (order.as_deref() != Some("desc"), column)
    }
}

/// One listed row.
#[derive(Debug, Clone)]
struct Entry {
    name: String,
    id: Option<Uuid>,
    metadata: Option<Value>,
    updated_at: Option<DateTime<Utc>>,
    created_at: Option<DateTime<Utc>>,
    last_accessed_at: Option<DateTime<Utc>>,
}

impl Entry {
    fn from_row(row: &sqlx::postgres::PgRow) -> std::result::Result<Self, sqlx::Error> {
        Ok(Self {
            name: row.try_get("name")?,
            id: row.try_get("id")?,
            metadata: row.try_get("metadata")?,
            updated_at: row.try_get("updated_at")?,
            created_at: row.try_get("created_at")?,
            last_accessed_at: row.try_get("last_accessed_at")?,
        })
    }

    fn folder(name: String) -> Self {
        Self {
            name,
            id: None,
            metadata: None,
            updated_at: None,
            created_at: None,
            last_accessed_at: None,
        }
    }

    fn time(&self, column: Column) -> Option<DateTime<Utc>> {
        match column {
            Column::Name => None,
            Column::CreatedAt => self.created_at,
            Column::UpdatedAt => self.updated_at,
        }
    }

    fn object_json(&self, key: Option<String>) -> Value {
        let time = |t: &Option<DateTime<Utc>>| {
            t.map(|t| Value::String(t.to_rfc3339_opts(SecondsFormat::Millis, true)))
                .unwrap_or(Value::Null)
        };
        let mut map = Map::new();
        if let Some(key) = key {
            map.insert("key".into(), Value::String(key));
        }
        map.insert("id".into(), json!(self.id));
        map.insert("name".into(), Value::String(self.name.clone()));
        map.insert(
            "metadata".into(),
            self.metadata.clone().unwrap_or(Value::Null),
        );
        map.insert("updated_at".into(), time(&self.updated_at));
        map.insert("created_at".into(), time(&self.created_at));
        map.insert("last_accessed_at".into(), time(&self.last_accessed_at));
        Value::Object(map)
    }
}

const COLUMNS: &str = "name, id, metadata, updated_at, created_at, last_accessed_at";

/// The entries directly under the prefix `$2` of bucket `$1`: its objects
/// and a row per folder (`a/b`, no `/` at the end), whose times are the
/// earliest `created_at` of its objects. Followed by `and <condition>`.
const FOLDED_BY_TIME: &str = "(select folder as name, null::uuid as id, null::jsonb as metadata, \
       min(created_at) as updated_at, min(created_at) as created_at, \
       null::timestamptz as last_accessed_at \
     from (select created_at, left(name, char_length($2) + strpos(substr(name, char_length($2) + 1), '/') - 1) as folder \
           from storage.objects where bucket_id = $1 and starts_with(name, $2) \
           and strpos(substr(name, char_length($2) + 1), '/') > 0) folders \
     group by folder \
   union all \
   select name, id, metadata, updated_at, created_at, last_accessed_at from storage.objects \
    where bucket_id = $1 and starts_with(name, $2) \
      and strpos(substr(name, char_length($2) + 1), '/') = 0) entries where true";

/// The folder `name` belongs to below `prefix` (`a/b/` for `a/b/c.txt`
/// under `a/`), or `None` for an object directly under it.
fn common_prefix(name: &str, prefix: &str) -> Option<String> {
    let rest = name.strip_prefix(prefix)?;
    rest.find('/').map(|i| format!("{prefix}{}", &rest[..=i]))
}

/// The first name (bytewise) after every name that starts with `folder`
/// (which ends in `/`): the folder with its `/` raised to `0`.
fn after_folder(folder: &str) -> String {
    format!("{}0", &folder[..folder.len() - 1])
}

pub(crate) async fn list_v2(
    State(state): State<StorageState>,
    Path(bucket): Path<String>,
    method: Method,
    headers: HeaderMap,
    uri: Uri,
    JsonBody(body): JsonBody,
) -> Result<Json<Value>> {
    validate_bucket_name(&bucket)?;
    let caller = Caller::from_request(&state, &headers, &method, uri.path())?;
    let mut body: Value = if body.is_empty() {
        json!({})
    } else {
        serde_json::from_slice(&body)
            .map_err(|e| StorageError::InvalidRequest(format!("Body is not valid JSON: {e}")))?
    };
    coerce::coerce_fields(
        &mut body,
        &[("limit", Integer), ("with_delimiter", Boolean)],
    )?;
    let request = Request::parse(&body)?;
    let (asc, column) = request.effective();
    let mut tx = state.inner.db.begin_as(&caller.ctx).await?;
    let entries = if request.delimiter && column == Column::Name {
        folded(&mut tx, &bucket, &request, asc).await?
    } else {
        by_time_or_flat(&mut tx, &bucket, &request, asc, column).await?
    };
    tx.commit().await?;
    Ok(Json(page(&request, entries, column)))
}

/// The objects under the prefix, `limit + 1` of them from the cursor on:
/// every one of them, or with the delimiter (ordered by a time) those
/// directly under it and a row per folder.
async fn by_time_or_flat(
    conn: &mut PgConnection,
    bucket: &str,
    request: &Request,
    asc: bool,
    column: Column,
) -> Result<Vec<Entry>> {
    let (op, dir) = if asc { (">", "asc") } else { ("<", "desc") };
    let after = request.cursor.as_ref().map(|c| c.start_after.clone());
    let column_after = request
        .cursor
        .as_ref()
        .and_then(|c| c.column_after.clone())
        .filter(|a| !a.is_empty());
    let sql = match column {
        Column::Name => format!(
            "select {COLUMNS} from storage.objects where bucket_id = $1 \
             and starts_with(name, $2) and ($3::text is null or name collate \"C\" {op} $3) \
             order by name collate \"C\" {dir} limit $4"
        ),
        Column::CreatedAt | Column::UpdatedAt => {
            let col = column.name();
            let source = if request.delimiter {
                FOLDED_BY_TIME
            } else {
                "storage.objects where bucket_id = $1 and starts_with(name, $2)"
            };
            format!(
                "select {COLUMNS} from {source} and ($3::text is null or \
                 (date_trunc('milliseconds', {col}), name collate \"C\") {op} \
                 (coalesce($5::timestamptz, 'epoch'::timestamptz), $3)) \
                 order by date_trunc('milliseconds', {col}) {dir}, name collate \"C\" {dir} limit $4"
            )
        }
    };
    let column_after: Option<DateTime<Utc>> = column_after
        .as_deref()
        .and_then(|a| DateTime::parse_from_rfc3339(a).ok())
        .map(|d| d.with_timezone(&Utc));
    let mut query = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(bucket)
        .bind(&request.prefix)
        .bind(after.filter(|a| !a.is_empty()))
        .bind(request.limit as i64 + 1);
    if column != Column::Name {
        query = query.bind(column_after);
    }
    let rows = query.fetch_all(conn).await?;
    Ok(rows
        .iter()
        .map(Entry::from_row)
        .collect::<std::result::Result<_, _>>()?)
}

/// Folders and objects directly under the prefix, in name order, `limit + 1`
/// entries from the cursor on.
async fn folded(
    conn: &mut PgConnection,
    bucket: &str,
    request: &Request,
    asc: bool,
) -> Result<Vec<Entry>> {
    let prefix = request.prefix.as_str();
    let want = request.limit + 1;
    // The bound of the next read: for ascending, names >= or > it; for
    // descending, names < it.
    let start = request
        .cursor
        .as_ref()
        .map(|c| c.start_after.clone())
        .filter(|s| !s.is_empty());
    let (mut bound, mut inclusive) = match (&start, asc) {
        (Some(s), true) if s.ends_with('/') => (Some(after_folder(s)), true),
        (Some(s), _) => (Some(s.clone()), false),
        (None, _) => (None, false),
    };
    let mut out: Vec<Entry> = Vec::new();
    'reads: while out.len() < want {
        let sql = if asc {
            format!(
                "select {COLUMNS} from storage.objects where bucket_id = $1 \
                 and starts_with(name, $2) and ($3::text is null or name collate \"C\" {} $3) \
                 order by name collate \"C\" asc limit $4",
                if inclusive { ">=" } else { ">" }
            )
        } else {
            format!(
                "select {COLUMNS} from storage.objects where bucket_id = $1 \
                 and starts_with(name, $2) and ($3::text is null or name collate \"C\" < $3) \
                 order by name collate \"C\" desc limit $4"
            )
        };
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(bucket)
            .bind(prefix)
            .bind(bound.as_deref())
            .bind(BATCH)
            .fetch_all(&mut *conn)
            .await?;
        if rows.is_empty() {
            break;
        }
        let fetched = rows.len() as i64;
        for row in &rows {
            let entry = Entry::from_row(row)?;
            match common_prefix(&entry.name, prefix) {
                Some(folder) => {
                    out.push(Entry::folder(folder.clone()));
                    // skip the rest of the folder with one seek
                    if asc {
                        bound = Some(after_folder(&folder));
                        inclusive = true;
                    } else {
                        bound = Some(folder);
                        inclusive = false;
                    }
                    if out.len() >= want {
                        break 'reads;
                    }
                    continue 'reads;
                }
                None => {
                    bound = Some(entry.name.clone());
                    inclusive = false;
                    out.push(entry);
                    if out.len() >= want {
                        break 'reads;
                    }
                }
            }
        }
        if fetched < BATCH {
            break;
        }
    }
    Ok(out)
}

/// The answer: the first `limit` entries split into folders and objects,
/// and the cursor after the last one when there are more.
fn page(request: &Request, mut entries: Vec<Entry>, column: Column) -> Value {
    let has_next = entries.len() > request.limit;
    entries.truncate(request.limit);
    let levels = if request.prefix.is_empty() {
        1
    } else {
        request.prefix.split('/').count()
    };
    let mut folders = Vec::new();
    let mut objects = Vec::new();
    for entry in &entries {
        let key = request.delimiter.then(|| {
            entry
                .name
                .split('/')
                .nth(levels - 1)
                .unwrap_or_default()
                .to_owned()
        });
        if entry.id.is_none() {
            let mut folder = entry.object_json(key);
            folder["name"] = Value::String(format!("{}/", entry.name.trim_end_matches('/')));
            folders.push(folder);
        } else {
            objects.push(entry.object_json(key));
        }
    }
    let mut out = json!({
        "hasNext": has_next,
        "folders": folders,
        "objects": objects,
    });
    if has_next && let Some(last) = entries.last() {
        let sort_column = request
            .cursor
            .as_ref()
            .and_then(|c| c.column.clone())
            .or_else(|| request.column.map(|c| c.name().to_owned()));
        let cursor = Cursor {
            start_after: last.name.clone(),
            order: request
                .cursor
                .as_ref()
                .and_then(|c| c.order.clone())
                .or_else(|| request.order.clone()),
            column_after: last
                .time(column)
                .filter(|_| sort_column.as_deref().is_some_and(|c| c != "name"))
                .map(|t| t.to_rfc3339_opts(SecondsFormat::Millis, true)),
            column: sort_column,
        };
        out["nextCursor"] = Value::String(cursor.encode());
        let key = match last.id {
            None => last.name.trim_end_matches('/'),
            Some(_) => last.name.as_str(),
        };
        out["nextCursorKey"] = Value::String(key.to_owned());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_are_the_platforms() {
        let cursor = Cursor {
            start_after: "a/b.txt".into(),
            order: Some("desc".into()),
            column: Some("updated_at".into()),
            column_after: Some("2024-01-01T00:00:00.000Z".into()),
        };
        let token = cursor.encode();
        assert_eq!(
            String::from_utf8(STANDARD.decode(&token).unwrap()).unwrap(),
            "l:a/b.txt\no:desc\nc:updated_at\na:2024-01-01T00:00:00.000Z"
        );
        assert_eq!(Cursor::decode(&token).unwrap(), cursor);
        assert!(Cursor::decode("bm9wZQ==").is_err()); // "nope"
        assert!(Cursor::decode("!!").is_err());
    }

    #[test]
    fn folders_fold_at_the_next_slash() {
        assert_eq!(common_prefix("a/b/c.txt", "a/"), Some("a/b/".into()));
        assert_eq!(common_prefix("a/c.txt", "a/"), None);
        assert_eq!(common_prefix("abc/d", "a"), Some("abc/".into()));
        assert_eq!(after_folder("a/b/"), "a/b0");
        assert!("a/b/zzz" < after_folder("a/b/").as_str());
    }
}
