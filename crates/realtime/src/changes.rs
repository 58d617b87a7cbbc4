//! The change dispatcher: row changes from `realtime.publish_change()` to
//! the subscribers allowed to see them.
//!
//! For each change, in arrival order: find the local channels with a
//! binding on the table and event; drop those whose filter rejects the
//! record; group the rest by identity (role + claims); for each identity,
//! select the row by primary key inside `begin_as` (RLS and grants decide);
//! push `postgres_changes` with the matching binding ids to each channel of
//! the identities that saw the row.
//!
//! Deletes cannot be checked against RLS (the row is gone). As on the
//! platform, a delete reaches only roles that may select the table (every
//! column of it, asked inside `begin_as`), and tells them the primary key
//! alone. The `old_record` of an update or delete is the primary key too
//! (the platform's `REPLICA IDENTITY DEFAULT`); only a table without RLS
//! whose replica identity is `FULL` gets the whole old row, which its
//! readers could read anyway. Filters of a delete see only that old record,
//! so a filter on another column matches nothing and tells nothing.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use plinth_db::RequestContext;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use sqlx::types::Json;
use tokio::sync::mpsc;

use crate::RealtimeState;
use crate::hub::Channel;
use crate::protocol::Frame;

/// How long a table's columns are cached.
const TABLE_CACHE_TTL: Duration = Duration::from_secs(10);
/// Identities checked at once for one change (queries on the request pool).
const CHECK_CONCURRENCY: usize = 4;

/// Channels sharing one identity (role + claims): one RLS check for all.
type Group = (Arc<RequestContext>, Vec<Arc<Channel>>);

#[derive(Debug, Deserialize)]
struct Change {
    schema: String,
    table: String,
    #[serde(rename = "type")]
    kind: String,
    commit_timestamp: String,
    #[serde(default)]
    pk: Map<String, Value>,
    #[serde(default)]
    record: Option<Map<String, Value>>,
    #[serde(default)]
    old_record: Option<Map<String, Value>>,
}

#[derive(Debug, Clone)]
pub(crate) struct CachedTable {
    at: Instant,
    meta: Arc<TableMeta>,
}

#[derive(Debug)]
struct TableMeta {
    /// `[{"name","type"}]` as realtime-js converts values by them.
    columns: Value,
    rls: bool,
    /// `REPLICA IDENTITY FULL`: the operator asked for whole old rows.
    full_identity: bool,
}

pub(crate) async fn run_dispatcher(state: RealtimeState, mut rx: mpsc::Receiver<String>) {
    while let Some(text) = rx.recv().await {
        let change: Change = match serde_json::from_str(&text) {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(error = %e, "realtime: unreadable change notification");
                continue;
            }
        };
        if let Err(e) = dispatch(&state, change).await {
            tracing::warn!(error = %e, "realtime: change not delivered");
        }
    }
}

async fn table_meta(
    state: &RealtimeState,
    schema: &str,
    table: &str,
) -> sqlx::Result<Arc<TableMeta>> {
    let key = (schema.to_owned(), table.to_owned());
    if let Some(hit) = state
        .inner
        .tables
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&key)
        .filter(|c| c.at.elapsed() < TABLE_CACHE_TTL)
    {
        return Ok(hit.meta.clone());
    }
    let (rls, full_identity, columns): (bool, bool, Value) = sqlx::query_as(
        "select c.relrowsecurity, c.relreplident = 'f', \
                coalesce(jsonb_agg(jsonb_build_object('name', a.attname, 'type', t.typname) \
                                   order by a.attnum) filter (where a.attnum is not null), '[]') \
           from pg_class c \
           join pg_namespace n on n.oid = c.relnamespace \
           left join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped \
           left join pg_type t on t.oid = a.atttypid \
          where n.nspname = $1 and c.relname = $2 \
          group by c.relrowsecurity, c.relreplident",
    )
    .bind(schema)
    .bind(table)
    .fetch_optional(&state.inner.db.owner)
    .await?
    .unwrap_or((true, false, json!([])));
    let meta = Arc::new(TableMeta {
        columns,
        rls,
        full_identity,
    });
    state
        .inner
        .tables
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(
            key,
            CachedTable {
                at: Instant::now(),
                meta: meta.clone(),
            },
        );
    Ok(meta)
}

fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A database error while asking as a subscriber (a privilege missing, a
/// role that cannot be assumed) means it may not see the change: `None`.
/// Other errors (the database unreachable) are errors.
fn denied<T>(e: sqlx::Error) -> sqlx::Result<Option<T>> {
    match e {
        sqlx::Error::Database(e) => {
            tracing::debug!(error = %e, "realtime: change not visible to subscriber");
            Ok(None)
        }
        e => Err(e),
    }
}

/// The row as `ctx` sees it now, or `None` when it may not (or it is gone).
async fn visible_row(
    state: &RealtimeState,
    ctx: &RequestContext,
    change: &Change,
) -> sqlx::Result<Option<Map<String, Value>>> {
    if change.pk.is_empty() {
        return Ok(None);
    }
    let mut tx = match state.inner.db.begin_as(ctx).await {
        Ok(tx) => tx,
        Err(e) => return denied(e),
    };
    let row = row_by_key(&mut *tx, &change.schema, &change.table, &change.pk).await;
    let _ = tx.rollback().await;
    match row {
        Ok(row) => Ok(row),
        Err(e) => denied(e),
    }
}

/// The row of `schema.table` whose primary key is `pk` (a change's key, as
/// the trigger wrote it), as `executor` may see it now: how a change too big
/// for its notification gets its record.
pub async fn row_by_key<'e>(
    executor: impl sqlx::PgExecutor<'e>,
    schema: &str,
    table: &str,
    pk: &Map<String, Value>,
) -> sqlx::Result<Option<Map<String, Value>>> {
    if pk.is_empty() {
        return Ok(None);
    }
    let table = format!("{}.{}", quote_ident(schema), quote_ident(table));
    let conditions: Vec<String> = pk
        .keys()
        .map(|c| format!("t.{0} = k.{0}", quote_ident(c)))
        .collect();
    let sql = format!(
        "select to_jsonb(t) from {table} as t, jsonb_populate_record(null::{table}, $1) as k \
         where {}",
        conditions.join(" and ")
    );
    let row: Option<Json<Map<String, Value>>> = sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
        .bind(Json(pk))
        .fetch_optional(executor)
        .await?;
    Ok(row.map(|Json(r)| r))
}

/// Whether `ctx` may select every column of the table (the grants a
/// `select *` needs, RLS aside): who may hear of a deleted row.
async fn may_read_table(
    state: &RealtimeState,
    ctx: &RequestContext,
    change: &Change,
) -> sqlx::Result<bool> {
    let mut tx = match state.inner.db.begin_as(ctx).await {
        Ok(tx) => tx,
        Err(e) => return denied(e).map(|_: Option<()>| false),
    };
    let allowed: sqlx::Result<Option<Option<bool>>> = sqlx::query_scalar(
        "select has_schema_privilege(c.relnamespace, 'USAGE') \
                and bool_and(has_column_privilege(c.oid, a.attnum, 'SELECT')) \
           from pg_class c \
           join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped \
          where c.oid = to_regclass(format('%I.%I', $1::text, $2::text)) \
          group by c.oid, c.relnamespace",
    )
    .bind(&change.schema)
    .bind(&change.table)
    .fetch_optional(&mut *tx)
    .await;
    let _ = tx.rollback().await;
    match allowed {
        Ok(allowed) => Ok(allowed.flatten().unwrap_or(false)),
        Err(e) => denied(e).map(|_: Option<()>| false),
    }
}

/// The binding ids of `channel` that want this change, given `record` (the
/// values the filters see; `None` when not known yet).
fn matching_ids(
    channel: &Channel,
    change: &Change,
    record: Option<&Map<String, Value>>,
) -> Vec<u32> {
    channel
        .bindings
        .iter()
        .filter(|b| b.covers(&change.schema, &change.table, &change.kind))
        .filter(|b| match (&b.filter, record) {
            (None, _) => true,
            (Some(_), None) => true,
            (Some(f), Some(r)) => f.matches(r),
        })
        .map(|b| b.id)
        .collect()
}

/// The `old_record` of an UPDATE or DELETE: the old row's primary key, or
/// the whole old row when the table has no RLS and its replica identity is
/// `FULL` (and the notification carried it).
fn old_record(change: &Change, meta: &TableMeta) -> Map<String, Value> {
    match &change.old_record {
        Some(old) if meta.full_identity && !meta.rls => old.clone(),
        // The key as it was: an update may have changed it.
        Some(old) => change
            .pk
            .keys()
            .map(|k| (k.clone(), old.get(k).cloned().unwrap_or(Value::Null)))
            .collect(),
        None => change.pk.clone(),
    }
}

async fn dispatch(state: &RealtimeState, change: Change) -> sqlx::Result<()> {
    let subscribers =
        state
            .inner
            .hub
            .change_subscribers(&change.schema, &change.table, &change.kind);
    if subscribers.is_empty() {
        return Ok(());
    }
    let meta = table_meta(state, &change.schema, &change.table).await?;
    let is_delete = change.kind == "DELETE";
    let old = old_record(&change, &meta);
    // What the filters see. INSERT and UPDATE: the new record, which reaches
    // only those who may read it whole. DELETE: only the old record that is
    // sent, so a filter on any other column matches nothing.
    let known = if is_delete {
        Some(&old)
    } else {
        change.record.as_ref()
    };
    let mut groups: HashMap<(String, String), Group> = HashMap::new();
    for channel in subscribers {
        if matching_ids(&channel, &change, known).is_empty() {
            continue;
        }
        let ctx = channel.context();
        groups
            .entry((ctx.role.clone(), ctx.claims.to_string()))
            .or_insert_with(|| (ctx.clone(), Vec::new()))
            .1
            .push(channel);
    }
    if groups.is_empty() {
        return Ok(());
    }
    let change = &change;
    // A deleted row cannot be selected: who hears of it is who may read the
    // table, asked once per role.
    let mut readers = HashSet::new();
    if is_delete {
        let mut roles: HashMap<String, Arc<RequestContext>> = HashMap::new();
        for (ctx, _) in groups.values() {
            roles.entry(ctx.role.clone()).or_insert_with(|| ctx.clone());
        }
        let answers = futures_util::stream::iter(roles.into_iter().map(|(role, ctx)| async move {
            let may = may_read_table(state, &ctx, change).await?;
            Ok::<_, sqlx::Error>(may.then_some(role))
        }))
        .buffer_unordered(CHECK_CONCURRENCY)
        .collect::<Vec<_>>()
        .await;
        for answer in answers {
            readers.extend(answer?);
        }
        groups.retain(|_, (ctx, _)| readers.contains(&ctx.role));
    }
    let checks =
        futures_util::stream::iter(groups.into_values().map(|(ctx, channels)| async move {
            let record = if is_delete {
                None
            } else if ctx.role == "service_role" && change.record.is_some() {
                change.record.clone()
            } else {
                match visible_row(state, &ctx, change).await {
                    Ok(Some(row)) => Some(change.record.clone().unwrap_or(row)),
                    Ok(None) => return Ok(None),
                    Err(e) => return Err(e),
                }
            };
            Ok(Some((record, channels)))
        }))
        .buffer_unordered(CHECK_CONCURRENCY)
        .collect::<Vec<sqlx::Result<_>>>()
        .await;

    for check in checks {
        let Some((record, channels)) = check? else {
            continue;
        };
        let mut data = json!({
            "schema": change.schema,
            "table": change.table,
            "commit_timestamp": change.commit_timestamp,
            "type": change.kind,
            "columns": meta.columns,
            "errors": null,
        });
        if let Value::Object(map) = &mut data {
            if let Some(record) = &record {
                map.insert("record".into(), Value::Object(record.clone()));
            }
            if change.kind != "INSERT" {
                map.insert("old_record".into(), Value::Object(old.clone()));
            }
        }
        let filter_record = if is_delete { known } else { record.as_ref() };
        for channel in channels {
            let ids = matching_ids(&channel, change, filter_record.or(Some(&change.pk)));
            if ids.is_empty() {
                continue;
            }
            channel.send(Arc::new(Frame::push(
                channel.topic.clone(),
                "postgres_changes",
                json!({ "ids": ids, "data": data }),
            )));
        }
    }
    Ok(())
}
