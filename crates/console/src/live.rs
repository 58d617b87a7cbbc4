//! What is happening now: realtime counts and a tail of a table's changes,
//! function invocations, the log book and its live tail, the node's health
//! and the dev mailbox.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, Request, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Json, Response};
use futures_util::stream::{self, Stream, StreamExt};
use serde_json::{Value, json};
use tower::ServiceExt;

use crate::activity::{self, Entry, Filter, StatusFilter};
use crate::{ConsoleError, ConsoleState, Result, TableSwitch, query_map};

/// Tails of table changes open at once (each holds a connection).
pub(crate) const MAX_TAILS: usize = 4;
/// How often an open event stream checks its session (by default).
pub const STREAM_CHECK: Duration = Duration::from_secs(60);
/// Function invocations listed.
const INVOCATIONS: usize = 200;
/// Entries `GET /logs` returns at most.
const MAX_LOG_ENTRIES: usize = 1000;

/// `GET /realtime`.
pub(crate) async fn realtime(State(state): State<ConsoleState>) -> Result<Response> {
    let stats = state.inner.realtime.stats();
    let tables: Vec<(String, String)> = sqlx::query_as(
        "select n.nspname::text, c.relname::text
           from pg_trigger t
           join pg_class c on c.oid = t.tgrelid
           join pg_namespace n on n.oid = c.relnamespace
          where t.tgname = 'plinth_realtime_publish'
          order by 1, 2",
    )
    .fetch_all(&state.inner.db.owner)
    .await?;
    let tables: Vec<Value> = tables
        .into_iter()
        .map(|(schema, table)| json!({ "schema": schema, "table": table }))
        .collect();
    Ok(Json(json!({
        "sockets": stats.sockets,
        "topics": stats.topics,
        "channels": stats.channels,
        "tables": tables,
    }))
    .into_response())
}

/// `POST /realtime/tables`: publish a table's changes, or stop.
pub(crate) async fn publish_table(
    State(state): State<ConsoleState>,
    body: Bytes,
) -> Result<Response> {
    let TableSwitch {
        schema,
        table,
        enabled,
    } = TableSwitch::parse(&body)?;
    let call = if enabled {
        "select realtime.enable($1, $2)"
    } else {
        "select realtime.disable($1, $2)"
    };
    // realtime.enable quotes the names itself (format %I) and refuses a
    // table without a primary key; an unknown table fails its regclass cast.
    match sqlx::query(call)
        .bind(&schema)
        .bind(&table)
        .execute(&state.inner.db.owner)
        .await
    {
        Ok(_) => Ok(
            Json(json!({ "schema": schema, "table": table, "enabled": enabled })).into_response(),
        ),
        Err(error) => match error.as_database_error().and_then(|e| e.code()) {
            Some(code) if code == "42P01" || code == "22023" || code == "3F000" => {
                let message = error
                    .as_database_error()
                    .map(|e| e.message().to_owned())
                    .unwrap_or_default();
                Err(ConsoleError::bad_request(message))
            }
            _ => Err(error.into()),
        },
    }
}

/// `GET /realtime/changes?schema=&table=`: the table's changes as they are
/// published, as an event stream. The operator sees every row (they could
/// read it in the SQL editor anyway).
pub(crate) async fn changes(
    State(state): State<ConsoleState>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Result<Response> {
    let query = query_map(query.as_deref());
    let wanted = |name: &str| {
        query
            .get(name)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    };
    let schema = wanted("schema").unwrap_or_else(|| "public".to_owned());
    let table =
        wanted("table").ok_or_else(|| ConsoleError::bad_request("Name a table: ?table="))?;
    let permit = state.inner.tails.clone().try_acquire_owned().map_err(|_| {
        ConsoleError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "too_many_tails",
            format!("At most {MAX_TAILS} tails of changes are open at once"),
        )
    })?;
    let mut listener = sqlx::postgres::PgListener::connect_with(&state.inner.db.owner).await?;
    listener.listen(plinth_realtime::CHANGES_CHANNEL).await?;
    let db = state.inner.db.owner.clone();
    let changes = stream::unfold(
        (listener, permit, schema, table),
        move |(mut listener, permit, schema, table)| {
            let db = db.clone();
            async move {
                loop {
                    let notification = listener.recv().await.ok()?;
                    let Ok(mut change) = serde_json::from_str::<Value>(notification.payload())
                    else {
                        continue;
                    };
                    if change["schema"] != schema.as_str() || change["table"] != table.as_str() {
                        continue;
                    }
                    if change["truncated"] == true {
                        read_back(&db, &schema, &table, &mut change).await;
                    }
                    let data = json!({
                        "type": change["type"],
                        "schema": change["schema"],
                        "table": change["table"],
                        "commit_timestamp": change["commit_timestamp"],
                        "record": change["record"],
                        "old_record": change["old_record"],
                        "truncated": change["truncated"],
                        "pk": change["pk"],
                    });
                    let event = Event::default().event("change").data(data.to_string());
                    return Some((
                        Ok::<_, Infallible>(event),
                        (listener, permit, schema, table),
                    ));
                }
            }
        },
    );
    Ok(event_stream(&state, &headers, changes))
}

/// A change too big for its notification carries only its key: the record
/// of an insert or update is read back (the row as it is now), and the old
/// record of an update or delete is its key, as realtime subscribers get it.
async fn read_back(db: &sqlx::PgPool, schema: &str, table: &str, change: &mut Value) {
    let Some(pk) = change["pk"].as_object().cloned() else {
        return;
    };
    let kind = change["type"].as_str().unwrap_or_default().to_owned();
    if matches!(kind.as_str(), "INSERT" | "UPDATE") {
        match plinth_realtime::row_by_key(db, schema, table, &pk).await {
            Ok(Some(row)) => change["record"] = Value::Object(row),
            Ok(None) => {}
            Err(e) => tracing::warn!(error = %e, "console: reading back a change's row failed"),
        }
    }
    if matches!(kind.as_str(), "UPDATE" | "DELETE") {
        change["old_record"] = Value::Object(pk);
    }
}

/// An event stream that lasts as long as its session: every
/// `stream_check` the session is checked as a call would check it (an open
/// tail counts as use, as its calls would), and the stream ends once the
/// session has ended (signed out, expired, idle, a new password) or cannot
/// be checked; the browser's `EventSource` then connects again and is
/// refused. Until then it is never cut, so a tail misses nothing.
fn event_stream<S>(state: &ConsoleState, headers: &HeaderMap, events: S) -> Response
where
    S: Stream<Item = std::result::Result<Event, Infallible>> + Send + 'static,
{
    let token = crate::session_cookie(headers).unwrap_or_default();
    let state = state.clone();
    let ended = async move {
        let config = &state.inner.config;
        loop {
            tokio::time::sleep(config.stream_check).await;
            let live =
                crate::operators::session(&state.inner.db.owner, &token, config.idle_timeout);
            if !matches!(live.await, Ok(Some(_))) {
                return;
            }
        }
    };
    let events = events.take_until(ended);
    let mut response = Sse::new(events)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response();
    // Through nginx and other proxies: deliver each event as it is written.
    response.headers_mut().insert(
        "x-accel-buffering",
        axum::http::HeaderValue::from_static("no"),
    );
    response
}

/// `GET /functions/invocations`.
pub(crate) async fn invocations(State(state): State<ConsoleState>) -> Result<Response> {
    let filter = Filter {
        service: Some("functions".to_owned()),
        status: None,
        level: None,
    };
    let calls: Vec<Value> = state
        .inner
        .activity
        .entries(&filter, usize::MAX)
        .iter()
        .filter(|e| e.status.is_some())
        .rev()
        .take(INVOCATIONS)
        .map(|e| {
            json!({
                "at": e.at,
                "method": e.method,
                "path": e.path,
                "route": e.route,
                "status": e.status,
                "duration_ms": e.duration_ms,
            })
        })
        .collect();
    Ok(Json(json!({ "invocations": calls })).into_response())
}

fn log_filter(query: Option<&str>) -> Result<(Filter, usize)> {
    let query = query_map(query);
    let given = |name: &str| query.get(name).map(|v| v.trim()).filter(|v| !v.is_empty());
    let level = match given("level") {
        None => None,
        Some(text) => Some(activity::parse_level(text).ok_or_else(|| {
            ConsoleError::bad_request("level is one of error, warn, info, debug")
        })?),
    };
    let status = match given("status") {
        None => None,
        Some(text) => Some(StatusFilter::parse(text).ok_or_else(|| {
            ConsoleError::bad_request("status is a class (2xx, 4xx, 5xx) or a code")
        })?),
    };
    let limit = match given("limit") {
        None => 200,
        Some(text) => text
            .parse::<usize>()
            .map_err(|_| ConsoleError::bad_request("limit is a whole number"))?
            .min(MAX_LOG_ENTRIES),
    };
    Ok((
        Filter {
            level,
            service: given("service").map(str::to_owned),
            status,
        },
        limit,
    ))
}

/// `GET /logs?level=&service=&status=&limit=`.
pub(crate) async fn logs(
    State(state): State<ConsoleState>,
    RawQuery(query): RawQuery,
) -> Result<Response> {
    let (filter, limit) = log_filter(query.as_deref())?;
    let entries = state.inner.activity.entries(&filter, limit);
    Ok(Json(json!({ "entries": entries })).into_response())
}

/// `GET /logs/stream?level=&service=&status=`: new entries as they come.
/// A tail that falls behind skips what it missed.
pub(crate) async fn log_stream(
    State(state): State<ConsoleState>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Result<Response> {
    let (filter, _) = log_filter(query.as_deref())?;
    let receiver = state.inner.activity.tail();
    let entries = stream::unfold((receiver, filter), |(mut receiver, filter)| async move {
        loop {
            match receiver.recv().await {
                Ok(entry) if filter.admits(&entry) => {
                    let event = log_event(&entry);
                    return Some((Ok::<_, Infallible>(event), (receiver, filter)));
                }
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
            }
        }
    });
    Ok(event_stream(&state, &headers, entries.boxed()))
}

fn log_event(entry: &Arc<Entry>) -> Event {
    Event::default()
        .event("log")
        .data(serde_json::to_string(&**entry).unwrap_or_default())
}

/// `GET /health`.
pub(crate) async fn health(State(state): State<ConsoleState>) -> Result<Response> {
    let started = Instant::now();
    let ping = state.inner.db.ping_within(Duration::from_secs(1)).await;
    let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
    let database = match ping {
        Ok(()) => {
            let (size, version): (i64, String) = sqlx::query_as(
                "select pg_database_size(current_database()), split_part(version(), ' on ', 1)",
            )
            .fetch_one(&state.inner.db.owner)
            .await?;
            json!({ "ok": true, "latency_ms": latency_ms, "size_bytes": size, "version": version })
        }
        Err(_) => {
            json!({ "ok": false, "latency_ms": latency_ms, "size_bytes": null, "version": null })
        }
    };
    let stats = state.inner.realtime.stats();
    Ok(Json(json!({
        "database": database,
        "uptime_seconds": state.inner.activity.uptime().as_secs(),
        "node": { "name": state.inner.config.node, "pid": std::process::id() },
        "services": state.inner.activity.services(),
        "realtime": { "sockets": stats.sockets, "topics": stats.topics, "channels": stats.channels },
    }))
    .into_response())
}

/// `GET /mailbox?to=`: the dev mailbox's messages, read from its own API
/// with the service key.
pub(crate) async fn mailbox(
    State(state): State<ConsoleState>,
    RawQuery(query): RawQuery,
) -> Result<Response> {
    let to = query_map(query.as_deref()).remove("to");
    let mut uri = "/api/messages".to_owned();
    if let Some(to) = to.filter(|t| !t.trim().is_empty()) {
        uri.push_str("?to=");
        uri.extend(form_urlencoded::byte_serialize(to.as_bytes()));
    }
    let request = Request::get(uri)
        .header("authorization", state.inner.service_authorization.clone())
        .body(Body::empty())
        .map_err(|_| ConsoleError::bad_request("A bad address"))?;
    let response = match state.inner.mailbox.clone().oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    };
    if response.status().is_success() {
        return Ok(response);
    }
    Err(ConsoleError::new(
        StatusCode::NOT_FOUND,
        "no_mailbox",
        "No dev mailbox: e-mail goes out through SMTP",
    ))
}
