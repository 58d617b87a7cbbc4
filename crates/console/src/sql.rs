//! The SQL editor: an operator's query, run as `project_admin`.
//!
//! `project_admin` is the project's own powerful login (the platform's
//! `postgres`, which is no superuser there): it reads and writes the
//! project's tables, makes objects of its own and may act as the API roles, but cannot run programs on the host, read
//! the server's files, change its settings or reach Plinth's private
//! schemas (the console's operators and sessions, sealed secrets). Each
//! run logs in as it, never as the database owner: a real login, so no
//! `reset role` or `set session authorization` in the query can take it
//! back to the owner.
//!
//! Each run takes a connection of its own, opened for it and closed after,
//! so nothing a query sets (`set role`, `search_path`, an open transaction)
//! reaches the pools. A statement timeout bounds it. Read-only runs take
//! exactly one statement (the extended protocol parses one, so `commit;
//! delete ...` cannot leave the transaction) inside `BEGIN READ ONLY`, and
//! always roll back.

use std::time::Instant;

use axum::Extension;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Json, Response};
use futures_util::TryStreamExt;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sqlx::postgres::{PgConnection, PgDatabaseError, PgErrorPosition};
use sqlx::{
    AssertSqlSafe, Column, Connection, Either, Executor, Row, SqlSafeStr, Statement, TypeInfo,
};
use uuid::Uuid;

use crate::{ConsoleError, ConsoleState, Result, Signed};

/// Rows returned per result; the rest are counted, not sent.
const MAX_ROWS: usize = 1000;
/// The longest query taken (characters).
const MAX_QUERY: usize = 100_000;
const STATEMENT_TIMEOUT: &str = "60s";
/// History entries kept (the newest).
const HISTORY: i64 = 100;

#[derive(Deserialize)]
struct RunSql {
    query: String,
    #[serde(default)]
    read_only: bool,
}

#[derive(Serialize, Default)]
struct ResultSet {
    command: String,
    columns: Vec<ColumnInfo>,
    rows: Vec<Vec<Option<String>>>,
    row_count: u64,
    truncated: bool,
}

#[derive(Serialize, Clone)]
struct ColumnInfo {
    name: String,
    #[serde(rename = "type")]
    ty: String,
}

/// `POST /sql`.
pub(crate) async fn run(
    State(state): State<ConsoleState>,
    Extension(Signed(operator)): Extension<Signed>,
    body: Bytes,
) -> Result<Response> {
    let RunSql { query, read_only } = serde_json::from_slice(&body).map_err(|_| {
        ConsoleError::bad_request("Send {\"query\": \"...\", \"read_only\": true|false}")
    })?;
    if query.trim().is_empty() {
        return Err(ConsoleError::bad_request("The query is empty"));
    }
    if query.chars().count() > MAX_QUERY {
        return Err(ConsoleError::bad_request(format!(
            "The query is longer than {MAX_QUERY} characters"
        )));
    }
    let started = Instant::now();
    let outcome = execute(&state, &query, read_only).await;
    let duration_ms = started.elapsed().as_secs_f64() * 1000.0;
    remember(
        &state,
        operator.id,
        &query,
        read_only,
        outcome.is_ok(),
        duration_ms,
    )
    .await;
    match outcome {
        Ok(results) => {
            Ok(Json(json!({ "results": results, "duration_ms": duration_ms })).into_response())
        }
        Err(Failure::Sql(body)) => Ok((StatusCode::BAD_REQUEST, Json(body)).into_response()),
        Err(Failure::Console(e)) => Err(e),
    }
}

enum Failure {
    /// The database refused the query: shown to the operator as it is.
    Sql(Value),
    Console(ConsoleError),
}

impl From<sqlx::Error> for Failure {
    fn from(error: sqlx::Error) -> Self {
        match error
            .as_database_error()
            .and_then(|e| e.try_downcast_ref::<PgDatabaseError>())
        {
            Some(pg) => {
                let position = match pg.position() {
                    Some(PgErrorPosition::Original(p)) => Some(p),
                    _ => None,
                };
                Self::Sql(json!({
                    "error": "sql_error",
                    "message": pg.message(),
                    "code": pg.code(),
                    "position": position,
                    "detail": pg.detail(),
                    "hint": pg.hint(),
                }))
            }
            None => Self::Console(ConsoleError::from(error)),
        }
    }
}

async fn execute(
    state: &ConsoleState,
    query: &str,
    read_only: bool,
) -> Result<Vec<ResultSet>, Failure> {
    let options = state.inner.db.project_admin_options();
    let mut conn = PgConnection::connect_with(&options).await?;
    let outcome = run_on(&mut conn, query, read_only).await;
    // The connection is the query's alone: closed whatever it left behind.
    let _ = conn.close().await;
    outcome
}

async fn run_on(
    conn: &mut PgConnection,
    query: &str,
    read_only: bool,
) -> Result<Vec<ResultSet>, Failure> {
    sqlx::raw_sql(AssertSqlSafe(format!(
        "set statement_timeout = '{STATEMENT_TIMEOUT}'; set application_name = 'plinth console'"
    )))
    .execute(&mut *conn)
    .await?;
    if read_only {
        sqlx::raw_sql("begin read only").execute(&mut *conn).await?;
    }
    // One statement parses; its columns are known even when no row comes.
    let described = match (&mut *conn)
        .prepare(AssertSqlSafe(query.to_owned()).into_sql_str())
        .await
    {
        Ok(statement) => Some(
            statement
                .columns()
                .iter()
                .map(|c| ColumnInfo {
                    name: c.name().to_owned(),
                    ty: c.type_info().name().to_ascii_lowercase(),
                })
                .collect::<Vec<_>>(),
        ),
        Err(e) if read_only || !is_several_statements(&e) => return Err(e.into()),
        Err(_) => None,
    };
    let mut results = Vec::new();
    let mut current = ResultSet::default();
    {
        let mut stream = sqlx::raw_sql(AssertSqlSafe(query.to_owned())).fetch_many(&mut *conn);
        while let Some(item) = stream.try_next().await? {
            match item {
                Either::Left(done) => {
                    // A statement that returned no rows counts what it changed.
                    if current.row_count == 0 {
                        current.row_count = done.rows_affected();
                    }
                    results.push(std::mem::take(&mut current));
                }
                Either::Right(row) => {
                    if current.columns.is_empty() {
                        current.columns = row
                            .columns()
                            .iter()
                            .map(|c| ColumnInfo {
                                name: c.name().to_owned(),
                                ty: c.type_info().name().to_ascii_lowercase(),
                            })
                            .collect();
                    }
                    current.row_count += 1;
                    if current.rows.len() == MAX_ROWS {
                        current.truncated = true;
                        continue;
                    }
                    let mut values = Vec::with_capacity(row.len());
                    for i in 0..row.len() {
                        let raw = row.try_get_raw(i)?;
                        values.push(if sqlx::ValueRef::is_null(&raw) {
                            None
                        } else {
                            Some(raw.as_str().map_err(sqlx::Error::Decode)?.to_owned())
                        });
                    }
                    current.rows.push(values);
                }
            }
        }
    }
    if read_only {
        sqlx::raw_sql("rollback").execute(&mut *conn).await?;
    }
    if let Some(columns) = described
        && results.len() == 1
        && let Some(only) = results.last_mut()
    {
        if only.columns.is_empty() {
            only.columns = columns;
        }
        only.command = command_of(query);
    }
    Ok(results)
}

/// PostgreSQL's refusal to prepare several statements at once.
fn is_several_statements(error: &sqlx::Error) -> bool {
    error.as_database_error().is_some_and(|e| {
        e.code().as_deref() == Some("42601") && e.message().contains("multiple commands")
    })
}

/// The statement's first keyword (`SELECT`, `CREATE`, ...), past comments.
fn command_of(query: &str) -> String {
    let mut rest = query.trim_start();
    loop {
        if let Some(after) = rest.strip_prefix("--") {
            rest = after.split_once('\n').map_or("", |(_, r)| r).trim_start();
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.split_once("*/").map_or("", |(_, r)| r).trim_start();
        } else {
            break;
        }
    }
    rest.split(|c: char| !c.is_ascii_alphabetic())
        .next()
        .unwrap_or("")
        .to_ascii_uppercase()
}

async fn remember(
    state: &ConsoleState,
    operator: Uuid,
    query: &str,
    read_only: bool,
    ok: bool,
    duration_ms: f64,
) {
    let db = &state.inner.db.owner;
    let saved = sqlx::query(
        "with added as (
           insert into plinth_console.sql_history (operator_id, query, read_only, ok, duration_ms)
           values ($1, $2, $3, $4, $5) returning id
         )
         delete from plinth_console.sql_history
          where id <= (select id from added) - $6",
    )
    .bind(operator)
    .bind(query)
    .bind(read_only)
    .bind(ok)
    .bind(duration_ms)
    .bind(HISTORY * 10)
    .execute(db)
    .await;
    if let Err(error) = saved {
        tracing::warn!(target: "plinth_console", %error, "console: the SQL history was not saved");
    }
}

/// `GET /sql/history`: the newest first.
pub(crate) async fn history(State(state): State<ConsoleState>) -> Result<Response> {
    let history: sqlx::types::Json<Value> = sqlx::query_scalar(
        "select coalesce(jsonb_agg(to_jsonb(h) order by h.id desc), '[]')
           from (select h.id, h.query, h.read_only, h.ok, h.duration_ms, h.ran_at, o.email as operator
                   from plinth_console.sql_history h
                   left join plinth_console.operators o on o.id = h.operator_id
                  order by h.id desc limit $1) h",
    )
    .bind(HISTORY)
    .fetch_one(&state.inner.db.owner)
    .await?;
    Ok(Json(json!({ "history": history.0 })).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_is_the_first_keyword_past_comments() {
        assert_eq!(command_of("select 1"), "SELECT");
        assert_eq!(
            command_of("  -- note\n/* x */ insert into t values (1)"),
            "INSERT"
        );
        assert_eq!(command_of("with x as (select 1) select * from x"), "WITH");
        assert_eq!(command_of("-- only a comment"), "");
    }
}
