//! Stage 5: run the statement as the caller. The only stage that takes a
//! connection.
//!
//! One transaction per request, in PostgREST's shape but with fewer round
//! trips: `BEGIN [READ ONLY]` and the one `set_config` pre-query (search
//! path, role, claims, method, path, headers) travel together as a single
//! simple-query message (values escaped as string constants; no request
//! value is ever part of the *statement*), then the prepared statement
//! (cached per connection by sqlx), then `COMMIT`/`ROLLBACK`. Dropping the
//! transaction (client gone) rolls back.

use std::time::Instant;

use plinth_db::Database;
use serde_json::Value;
use sqlx::{AssertSqlSafe, Postgres, Row, Transaction};

use crate::error::ApiError;
use crate::plan::{Action, Mutation, Plan};
use crate::request::{CountPref, MediaType};
use crate::sql::{Bind, Shape, Sql, Statement, render_count};

/// Who runs the transaction, as PostgREST sets it.
#[derive(Debug, Clone)]
pub struct TxContext {
    pub role: String,
    /// The verified claims as JSON text.
    pub claims: String,
    pub method: String,
    pub path: String,
    /// Request headers as a JSON object text (lower-case names).
    pub headers: String,
    pub search_path: Vec<String>,
    pub read_only: bool,
    /// The role is not the anonymous one (401 vs 403 for 42501).
    pub authenticated: bool,
}

/// What the statement returned.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub total: Option<i64>,
    pub page_total: i64,
    pub body: Option<String>,
    pub response_headers: Option<String>,
    pub response_status: Option<String>,
    /// A merging upsert: how many of the rows written were inserted (the
    /// rest were merged into existing rows).
    pub inserted: Option<i64>,
    /// Milliseconds spent in the transaction.
    pub transaction_ms: f64,
}

/// The transaction's opening statement.
fn begin_statement(ctx: &TxContext) -> &'static str {
    if ctx.read_only {
        "BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY"
    } else {
        "BEGIN ISOLATION LEVEL READ COMMITTED READ WRITE"
    }
}

/// The request's settings for the transaction, every value a bind
/// parameter: one prepared statement, parsed and planned once per
/// connection (PostgREST's pre-request shape).
const SET_CONFIG_SQL: &str = "SELECT set_config('search_path', $1, true), set_config('role', $2, true), \
     set_config('request.jwt.claims', $3, true), set_config('request.method', $4, true), \
     set_config('request.path', $5, true), set_config('request.headers', $6, true)";

/// [`SET_CONFIG_SQL`] plus the `timezone` of `Prefer: timezone=`.
const SET_CONFIG_TZ_SQL: &str = "SELECT set_config('search_path', $1, true), set_config('role', $2, true), \
     set_config('request.jwt.claims', $3, true), set_config('request.method', $4, true), \
     set_config('request.path', $5, true), set_config('request.headers', $6, true), \
     set_config('timezone', $7, true)";

/// `"public", "extensions"`: the search path value, identifiers quoted.
fn search_path_value(ctx: &TxContext) -> String {
    ctx.search_path
        .iter()
        .map(|s| {
            let mut q = String::new();
            crate::sql::builder::push_ident(&mut q, s);
            q
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn bound(sql: &Sql) -> sqlx::query::Query<'static, Postgres, sqlx::postgres::PgArguments> {
    let mut q = sqlx::query(AssertSqlSafe(sql.text.clone()));
    for b in &sql.binds {
        q = match b {
            Bind::Text(t) => q.bind(t.clone()),
            Bind::TextArray(v) => q.bind(v.clone()),
            Bind::Int(i) => q.bind(*i),
        };
    }
    q
}

/// Runs `statement` for `plan` as `ctx`; checks singular responses and
/// `max-affected` before committing.
pub async fn run(
    db: &Database,
    ctx: &TxContext,
    plan: &Plan,
    statement: &Statement,
    max_rows: Option<i64>,
) -> Result<Outcome, ApiError> {
    let started = Instant::now();
    let authed = ctx.authenticated;
    let mut tx: Transaction<'static, Postgres> = db
        .api
        .begin_with(begin_statement(ctx))
        .await
        .map_err(|e| ApiError::from_sqlx(e, authed))?;
    let pre = sqlx::query(if plan.timezone.is_some() {
        SET_CONFIG_TZ_SQL
    } else {
        SET_CONFIG_SQL
    })
    .bind(search_path_value(ctx))
    .bind(&ctx.role)
    .bind(&ctx.claims)
    .bind(&ctx.method)
    .bind(&ctx.path)
    .bind(&ctx.headers);
    let pre = match &plan.timezone {
        Some(tz) => pre.bind(tz),
        None => pre,
    };
    pre.execute(&mut *tx)
        .await
        .map_err(|e| ApiError::from_sqlx(e, authed))?;

    // Execution plans instead of results (PostgREST SqlFragment.hs
    // `explainF`, MainTx.hs): the options in PostgREST's order; each row of
    // the plan followed by a newline; the transaction ends as any other
    // (so, as PostgreSQL's EXPLAIN ANALYZE, an analysed write is committed
    // unless `Prefer: tx=rollback` or the configuration rolls it back).
    if let MediaType::Plan { json, options, .. } = &plan.media {
        let mut explain = Sql::new();
        explain.push("EXPLAIN (FORMAT ");
        explain.push(if *json { "JSON" } else { "TEXT" });
        for (on, option) in [
            (options.analyze, ", ANALYZE"),
            (options.verbose, ", VERBOSE"),
            (options.settings, ", SETTINGS"),
            (options.buffers, ", BUFFERS"),
            (options.wal, ", WAL"),
        ] {
            if on {
                explain.push(option);
            }
        }
        explain.push(") ");
        explain.text.push_str(&statement.sql.text);
        explain.binds = statement.sql.binds.clone();
        let rows = bound(&explain)
            .fetch_all(&mut *tx)
            .await
            .map_err(|e| ApiError::from_sqlx(e, authed))?;
        let mut body = String::new();
        for row in &rows {
            // `json` for FORMAT JSON, `text` otherwise: the text as sent.
            let line: String = row
                .try_get_unchecked(0)
                .map_err(|e| ApiError::from_sqlx(e, authed))?;
            body.push_str(&line);
            body.push('\n');
        }
        let finish = if plan.tx_rollback {
            tx.rollback().await
        } else {
            tx.commit().await
        };
        finish.map_err(|e| ApiError::from_sqlx(e, authed))?;
        return Ok(Outcome {
            body: Some(body),
            transaction_ms: ms(started),
            ..Default::default()
        });
    }

    let mut outcome = match statement.shape {
        Shape::Affected => {
            let done = bound(&statement.sql)
                .execute(&mut *tx)
                .await
                .map_err(|e| ApiError::from_sqlx(e, authed))?;
            let n = done.rows_affected() as i64;
            Outcome {
                total: None,
                page_total: n,
                ..Default::default()
            }
        }
        Shape::Result => {
            let row = bound(&statement.sql)
                .fetch_one(&mut *tx)
                .await
                .map_err(|e| ApiError::from_sqlx(e, authed))?;
            let get = |e: sqlx::Error| ApiError::from_sqlx(e, authed);
            Outcome {
                total: row.try_get::<Option<i64>, _>(0).map_err(get)?,
                page_total: row.try_get::<i64, _>(1).map_err(get)?,
                body: row.try_get::<Option<String>, _>(2).map_err(get)?,
                response_headers: row.try_get::<Option<String>, _>(3).map_err(get)?,
                response_status: row.try_get::<Option<String>, _>(4).map_err(get)?,
                inserted: if row.len() > 5 {
                    row.try_get::<Option<i64>, _>(5).map_err(get)?
                } else {
                    None
                },
                transaction_ms: 0.0,
            }
        }
    };

    // Planned (and large estimated) counts come from the planner.
    if matches!(
        plan.count,
        Some(CountPref::Planned) | Some(CountPref::Estimated)
    ) && let Some(count_sql) = render_count(plan)
    {
        let planned = bound(&count_sql)
            .fetch_one(&mut *tx)
            .await
            .ok()
            .and_then(|r| r.try_get::<Value, _>(0).ok())
            .and_then(|v| v.pointer("/0/Plan/Plan Rows").and_then(Value::as_f64))
            .map(|f| f as i64);
        match plan.count {
            Some(CountPref::Planned) => outcome.total = planned,
            _ => {
                if let (Some(p), Some(max)) = (planned, max_rows)
                    && outcome.total.is_some_and(|t| t > max)
                {
                    outcome.total = Some(p);
                }
            }
        }
    }
    if matches!(plan.action, Action::Mutate { .. })
        && plan.count.is_some()
        && outcome.total.is_none()
    {
        outcome.total = Some(outcome.page_total);
    }

    // Checks that undo the transaction.
    let singular = plan.media == MediaType::SingleObject
        && !matches!(
            plan.action,
            Action::Call {
                result: crate::plan::CallResult::Scalar { .. } | crate::plan::CallResult::Void,
                ..
            }
        );
    if singular && outcome.page_total != 1 {
        let _ = tx.rollback().await;
        return Err(ApiError::singular(outcome.page_total));
    }
    // PUT writes exactly the row its URL names (PostgREST MainTx.hs failPut).
    if let Action::Mutate {
        mutation: Mutation::Insert { put_key, .. },
        ..
    } = &plan.action
        && !put_key.is_empty()
        && outcome.page_total != 1
    {
        let _ = tx.rollback().await;
        return Err(ApiError::new(
            axum::http::StatusCode::BAD_REQUEST,
            "PGRST115",
            "Payload values do not match URL in primary key column(s)",
        ));
    }
    // A limited write on a view without a key picked rows by its `order`
    // columns; more rows than the limit is refused (PostgREST before v13,
    // Error.hs OffLimitsChangesError; v13 dropped limited writes).
    if let Action::Mutate {
        mutation:
            Mutation::Update {
                limited: Some(limited),
                ..
            }
            | Mutation::Delete {
                limited: Some(limited),
                ..
            },
        ..
    } = &plan.action
        && limited.by_order
        && let Some(limit) = limited.range.limit
        && outcome.page_total > limit
    {
        let _ = tx.rollback().await;
        return Err(ApiError::new(
            axum::http::StatusCode::BAD_REQUEST,
            "PGRST110",
            "The maximum number of rows allowed to change was surpassed",
        )
        .details(format!(
            "Results contain {} rows changed but the maximum number allowed is {limit}",
            outcome.page_total
        )));
    }
    // max-affected applies to PATCH, DELETE and RPC (Response.hs).
    let max_affected_applies = match &plan.action {
        Action::Mutate { mutation, .. } => {
            matches!(mutation, Mutation::Update { .. } | Mutation::Delete { .. })
        }
        _ => !plan.method.is_read(),
    };
    if plan.prefer.strict
        && let Some(max) = plan.prefer.max_affected
        && outcome.page_total > max
        && max_affected_applies
    {
        let _ = tx.rollback().await;
        return Err(ApiError::new(
            axum::http::StatusCode::BAD_REQUEST,
            "PGRST124",
            "Query result exceeds max-affected preference constraint",
        )
        .details(format!("The query affects {} rows", outcome.page_total)));
    }

    let finish = if plan.tx_rollback {
        tx.rollback().await
    } else {
        tx.commit().await
    };
    finish.map_err(|e| ApiError::from_sqlx(e, authed))?;
    outcome.transaction_ms = ms(started);
    Ok(outcome)
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}
