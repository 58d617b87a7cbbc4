//! Stage 5: run the statement as the caller. The only stage that takes a
//! connection.
//!
//! One transaction per request, in PostgREST's shape (`BEGIN [READ ONLY]`,
//! the `set_config` pre-query with search path, role, claims, method, path
//! and headers, the statement, `COMMIT`/`ROLLBACK`), but sent in **one round
//! trip** and answered in one: the pool's connections
//! ([`plinth_db::pipeline`]) write the whole transaction as one batch of
//! extended-protocol messages with a single `Sync`, and the database runs
//! them in order. When the statement fails, the database skips the rest of
//! the batch, and the transaction it left open is rolled back. Every value
//! is a bind parameter of a statement prepared once per connection (a new
//! statement is prepared inside the batch, after the settings, so names
//! resolve on the caller's search path).
//!
//! Checks that need the result before the transaction ends (a singular
//! response, PUT's one row, a limited write, `max-affected`) wait for the
//! statement, then send `COMMIT` or `ROLLBACK`: two round trips. A request
//! dropped mid-transaction (client gone) leaves its connection to
//! [`Pooled`], which settles it (answer read, `ROLLBACK`) before reuse.

use std::time::Instant;

use plinth_db::Database;
use plinth_db::pipeline::{Pooled, Reply, WireError};
use postgres_types::{ToSql, Type};
use serde_json::Value;

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

/// The parameter types of `sql`'s binds, as the statement is prepared.
fn param_types(sql: &Sql) -> Vec<Type> {
    sql.binds
        .iter()
        .map(|b| match b {
            Bind::Text(_) => Type::TEXT,
            Bind::TextArray(_) => Type::TEXT_ARRAY,
            Bind::Int(_) => Type::INT8,
        })
        .collect()
}

fn params(sql: &Sql) -> Vec<&(dyn ToSql + Sync)> {
    sql.binds
        .iter()
        .map(|b| match b {
            Bind::Text(t) => t as &(dyn ToSql + Sync),
            Bind::TextArray(v) => v as &(dyn ToSql + Sync),
            Bind::Int(i) => i as &(dyn ToSql + Sync),
        })
        .collect()
}

/// The parameter types of [`SET_CONFIG_TZ_SQL`] (the first six: of
/// [`SET_CONFIG_SQL`]).
const SETTING_TYPES: [Type; 7] = [Type::TEXT; 7];

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
    let pg = |e: WireError| ApiError::from_pg(e, authed);

    let search_path = search_path_value(ctx);
    let mut pre_params: Vec<&(dyn ToSql + Sync)> = vec![
        &search_path,
        &ctx.role,
        &ctx.claims,
        &ctx.method,
        &ctx.path,
        &ctx.headers,
    ];
    let pre_text = match &plan.timezone {
        Some(tz) => {
            pre_params.push(tz);
            SET_CONFIG_TZ_SQL
        }
        None => SET_CONFIG_SQL,
    };

    // Execution plans instead of results (PostgREST SqlFragment.hs
    // `explainF`, MainTx.hs): the options in PostgREST's order; each row of
    // the plan followed by a newline; the transaction ends as any other
    // (so, as PostgreSQL's EXPLAIN ANALYZE, an analysed write is committed
    // unless `Prefer: tx=rollback` or the configuration rolls it back).
    let explain = if let MediaType::Plan { json, options, .. } = &plan.media {
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
        Some(explain)
    } else {
        None
    };
    let main_sql = explain.as_ref().unwrap_or(&statement.sql);
    // Planned (and large estimated) counts come from the planner.
    let count_sql = match plan.count {
        Some(CountPref::Planned) | Some(CountPref::Estimated) if explain.is_none() => {
            render_count(plan)
        }
        _ => None,
    };
    let end = if plan.tx_rollback {
        "ROLLBACK"
    } else {
        "COMMIT"
    };
    // Whether the transaction's end waits for the result.
    let checked = explain.is_none() && needs_checks(plan);

    // BEGIN, the settings, the statement (and the planner's count), and
    // unless a check waits for the result, the end: one batch.
    const MAIN: usize = 2;
    const COUNT: usize = 3;
    let mut retried = false;
    let (mut conn, mut replies, error) = loop {
        let mut conn = Pooled::get(&db.pipelined)
            .await
            .map_err(ApiError::from_pool)?;
        let mut batch = conn.batch();
        batch.push(begin_statement(ctx), &[], &[]);
        batch.push(pre_text, &SETTING_TYPES[..pre_params.len()], &pre_params);
        batch.push(&main_sql.text, &param_types(main_sql), &params(main_sql));
        if let Some(count) = &count_sql {
            batch.push(&count.text, &param_types(count), &params(count));
        }
        if !checked {
            batch.push(end, &[], &[]);
        }
        let (replies, error) = batch.run().await;
        // A pooled connection the database dropped in a way the pool could
        // not see before the batch was written: a read-only transaction
        // runs once more on another connection (nothing it did is kept); a
        // write that may have reached the server never does.
        if let Some(e) = &error
            && ctx.read_only
            && !retried
            && conn.reused()
            && e.is_unavailable()
        {
            tracing::debug!(%e, "a read is retried on another connection");
            retried = true;
            continue;
        }
        break (conn, replies, error);
    };
    if let Some(e) = error {
        // The planner's count of a read failed after the statement: the
        // result stands without it (nothing was written to keep).
        let count_failed = count_sql.is_some()
            && ctx.read_only
            && matches!(replies.get(MAIN), Some(Reply::Rows(..)))
            && matches!(replies.get(COUNT), Some(Reply::Skipped) | None);
        let _ = conn.settle().await;
        if !count_failed || e.as_db_error().is_none() {
            return Err(pg(e));
        }
    }
    let count = match count_sql {
        Some(_) if replies.len() > COUNT => Some(replies.swap_remove(COUNT)),
        _ => None,
    };
    let answer = replies.swap_remove(MAIN);

    if explain.is_some() {
        let mut body = String::new();
        for row in answer.rows() {
            // `json` for FORMAT JSON, `text` otherwise: the text as sent.
            body.push_str(row.text(0).unwrap_or_default());
            body.push('\n');
        }
        return Ok(Outcome {
            body: Some(body),
            transaction_ms: ms(started),
            ..Default::default()
        });
    }

    let mut outcome = if statement.shape == Shape::Result {
        match answer.rows().first() {
            None => Outcome::default(),
            Some(row) => Outcome {
                total: row.int(0),
                page_total: row.int(1).unwrap_or(0),
                body: row.text(2).map(str::to_owned),
                response_headers: row.text(3).map(str::to_owned),
                response_status: row.text(4).map(str::to_owned),
                inserted: if row.len() > 5 { row.int(5) } else { None },
                transaction_ms: 0.0,
            },
        }
    } else {
        Outcome {
            page_total: answer.affected() as i64,
            ..Default::default()
        }
    };

    let planned = count
        .as_ref()
        .and_then(|r| r.rows().first())
        .and_then(|row| row.text(0))
        .and_then(|t| serde_json::from_str::<Value>(t).ok())
        .and_then(|v| v.pointer("/0/Plan/Plan Rows").and_then(Value::as_f64))
        .map(|f| f as i64);
    match plan.count {
        Some(CountPref::Planned) => outcome.total = planned,
        Some(CountPref::Estimated) => {
            if let (Some(p), Some(max)) = (planned, max_rows)
                && outcome.total.is_some_and(|t| t > max)
            {
                outcome.total = Some(p);
            }
        }
        _ => {}
    }
    if matches!(plan.action, Action::Mutate { .. })
        && plan.count.is_some()
        && outcome.total.is_none()
    {
        outcome.total = Some(outcome.page_total);
    }

    if checked {
        if let Err(refused) = check(plan, &outcome) {
            let _ = conn.settle().await;
            return Err(refused);
        }
        let mut batch = conn.batch();
        batch.push(end, &[], &[]);
        if let (_, Some(e)) = batch.run().await {
            let _ = conn.settle().await;
            return Err(pg(e));
        }
    }
    outcome.transaction_ms = ms(started);
    Ok(outcome)
}

/// A singular response of rows (not of a scalar or void function).
fn singular(plan: &Plan) -> bool {
    plan.media == MediaType::SingleObject
        && !matches!(
            plan.action,
            Action::Call {
                result: crate::plan::CallResult::Scalar { .. } | crate::plan::CallResult::Void,
                ..
            }
        )
}

/// `max-affected` applies to PATCH, DELETE and RPC (Response.hs).
fn max_affected_applies(plan: &Plan) -> bool {
    plan.prefer.strict
        && plan.prefer.max_affected.is_some()
        && match &plan.action {
            Action::Mutate { mutation, .. } => {
                matches!(mutation, Mutation::Update { .. } | Mutation::Delete { .. })
            }
            _ => !plan.method.is_read(),
        }
}

/// Whether [`check`] can refuse `plan`'s result: then the transaction ends
/// only once the result is known.
fn needs_checks(plan: &Plan) -> bool {
    let put = matches!(
        &plan.action,
        Action::Mutate {
            mutation: Mutation::Insert { put_key, .. },
            ..
        } if !put_key.is_empty()
    );
    let limited = matches!(
        &plan.action,
        Action::Mutate {
            mutation: Mutation::Update { limited: Some(l), .. } | Mutation::Delete { limited: Some(l), .. },
            ..
        } if l.by_order && l.range.limit.is_some()
    );
    singular(plan) || put || limited || max_affected_applies(plan)
}

/// Checks that undo the transaction.
fn check(plan: &Plan, outcome: &Outcome) -> Result<(), ApiError> {
    if singular(plan) && outcome.page_total != 1 {
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
    if max_affected_applies(plan)
        && let Some(max) = plan.prefer.max_affected
        && outcome.page_total > max
    {
        return Err(ApiError::new(
            axum::http::StatusCode::BAD_REQUEST,
            "PGRST124",
            "Query result exceeds max-affected preference constraint",
        )
        .details(format!("The query affects {} rows", outcome.page_total)));
    }
    Ok(())
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}
