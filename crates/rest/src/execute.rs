//! Stage 5: run the statement as the caller. The only stage that takes a
//! connection.
//!
//! One transaction per request, in PostgREST's shape (`BEGIN [READ ONLY]`,
//! the `set_config` pre-query with search path, role, claims, method, path
//! and headers, the statement, `COMMIT`/`ROLLBACK`), but sent in **one round
//! trip**: the pipelined pool's `tokio-postgres` client writes each message
//! without waiting for the answers to those before it, and the database runs
//! them in order. When the statement fails, the database skips to `COMMIT`,
//! which then rolls back. Every value is a bind parameter of a statement
//! prepared once per connection (cached per client, at most
//! [`STATEMENT_CACHE_LIMIT`]); a statement is prepared inside the
//! transaction, after the settings, so names resolve on the caller's search
//! path (a cache miss costs one more round trip).
//!
//! Checks that need the result before the transaction ends (a singular
//! response, PUT's one row, a limited write, `max-affected`) wait for the
//! statement, then send `COMMIT` or `ROLLBACK`: two round trips. A request
//! dropped mid-transaction (client gone) ends its transaction with a
//! ROLLBACK behind what was sent before its connection returns to the pool.

use std::time::Instant;

use deadpool_postgres::Object;
use plinth_db::Database;
use serde_json::Value;
use tokio_postgres::Row;
use tokio_postgres::types::{FromSql, ToSql, Type};

use crate::error::ApiError;
use crate::plan::{Action, Mutation, Plan};
use crate::request::{CountPref, MediaType};
use crate::sql::{Bind, Shape, Sql, Statement, render_count};

/// Prepared statements a pooled connection keeps; past it the connection's
/// cache is emptied and fills again with what requests use.
pub const STATEMENT_CACHE_LIMIT: usize = 256;

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

/// A text column in any of the text-like types (`text`, `json` of
/// `EXPLAIN (FORMAT JSON)`, ...), as the bytes the database sent.
struct Text(String);

impl<'a> FromSql<'a> for Text {
    fn from_sql(
        ty: &Type,
        raw: &'a [u8],
    ) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        // jsonb's binary form is a version byte, then the text.
        let raw = if *ty == Type::JSONB {
            raw.get(1..).unwrap_or_default()
        } else {
            raw
        };
        Ok(Text(std::str::from_utf8(raw)?.to_owned()))
    }

    fn accepts(ty: &Type) -> bool {
        matches!(
            *ty,
            Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::JSON | Type::JSONB
        ) || ty.name() == "unknown"
    }
}

fn text(row: &Row, i: usize) -> Result<Option<String>, tokio_postgres::Error> {
    Ok(row.try_get::<_, Option<Text>>(i)?.map(|t| t.0))
}

/// A pooled client for the length of one transaction. Dropped before the
/// transaction ended (the request was cancelled), it sends ROLLBACK behind
/// whatever was already sent and goes back to the pool once the database
/// answered it; a connection that cannot is closed, which rolls back too.
struct Held {
    client: Option<Object>,
}

impl Held {
    fn client(&self) -> &Object {
        self.client.as_ref().expect("held until released")
    }

    /// The transaction ended: the client goes back to the pool.
    fn release(mut self) {
        drop(self.client.take());
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let Some(object) = self.client.take() else {
            return;
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(async move {
                    if object.batch_execute("ROLLBACK").await.is_err() {
                        drop(Object::take(object));
                    }
                });
            }
            Err(_) => drop(Object::take(object)),
        }
    }
}

/// The parameter types of [`SET_CONFIG_TZ_SQL`] (the first six: of
/// [`SET_CONFIG_SQL`]).
const SETTING_TYPES: [Type; 7] = [
    Type::TEXT,
    Type::TEXT,
    Type::TEXT,
    Type::TEXT,
    Type::TEXT,
    Type::TEXT,
    Type::TEXT,
];

/// `text` prepared on `client`, from its cache when it was prepared before.
async fn prepare(
    client: &Object,
    text: &str,
    types: &[Type],
) -> Result<tokio_postgres::Statement, tokio_postgres::Error> {
    if client.statement_cache.size() >= STATEMENT_CACHE_LIMIT {
        client.statement_cache.clear();
    }
    client.prepare_typed_cached(text, types).await
}

/// [`prepare`] for a built statement and its binds' types.
async fn prepare_sql(
    client: &Object,
    sql: &Sql,
) -> Result<tokio_postgres::Statement, tokio_postgres::Error> {
    prepare(client, &sql.text, &param_types(sql)).await
}

/// What the pipelined statements answered.
enum Answer {
    Rows(Vec<Row>),
    Affected(u64),
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
    let pg = |e| ApiError::from_pg(e, authed);
    let held = Held {
        client: Some(db.pipelined.get().await.map_err(ApiError::from_pool)?),
    };
    let client = held.client();

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
    // Prepared outside the transaction: it names only pg_catalog functions.
    let pre = prepare(client, pre_text, &SETTING_TYPES[..pre_params.len()])
        .await
        .map_err(pg)?;

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
    let returns_rows = explain.is_some() || statement.shape == Shape::Result;
    let end = if plan.tx_rollback {
        "ROLLBACK"
    } else {
        "COMMIT"
    };
    // Whether the transaction's end waits for the result.
    let checked = explain.is_none() && needs_checks(plan);

    let main_params = params(main_sql);
    let count_params = count_sql.as_ref().map(params).unwrap_or_default();
    let begin = client.batch_execute(begin_statement(ctx));
    let settings = client.execute(&pre, &pre_params);
    let work = async {
        let main = prepare_sql(client, main_sql).await?;
        let count = match &count_sql {
            Some(sql) => Some(prepare_sql(client, sql).await?),
            None => None,
        };
        let main = async {
            if returns_rows {
                client.query(&main, &main_params).await.map(Answer::Rows)
            } else {
                client
                    .execute(&main, &main_params)
                    .await
                    .map(Answer::Affected)
            }
        };
        let count = async {
            match &count {
                Some(count) => client.query_opt(count, &count_params).await.ok().flatten(),
                None => None,
            }
        };
        let finish = async {
            if checked {
                Ok(())
            } else {
                client.batch_execute(end).await
            }
        };
        let (main, count, finish) = tokio::join!(main, count, finish);
        Ok::<_, tokio_postgres::Error>((main, count, finish))
    };
    let (begun, set, work) = tokio::join!(begin, settings, work);
    let outcome = (|| {
        begun?;
        set?;
        let (main, count, finish) = work?;
        Ok::<_, tokio_postgres::Error>((main?, count, finish))
    })();
    let (answer, count, finished) = match outcome {
        Ok((answer, count, finish)) => (answer, count, finish),
        Err(e) => {
            // The transaction may still be open: the statement failed to
            // prepare (so nothing after it was sent), or the end waits for
            // the result. Outside a transaction this is only a warning.
            let _ = client.batch_execute("ROLLBACK").await;
            held.release();
            return Err(pg(e));
        }
    };
    if let Err(e) = finished {
        held.release();
        return Err(pg(e));
    }

    if explain.is_some() {
        held.release();
        let Answer::Rows(rows) = answer else {
            unreachable!("an explanation returns rows")
        };
        let mut body = String::new();
        for row in &rows {
            // `json` for FORMAT JSON, `text` otherwise: the text as sent.
            body.push_str(&text(row, 0).map_err(pg)?.unwrap_or_default());
            body.push('\n');
        }
        return Ok(Outcome {
            body: Some(body),
            transaction_ms: ms(started),
            ..Default::default()
        });
    }

    let read = |answer: Answer| -> Result<Outcome, tokio_postgres::Error> {
        Ok(match answer {
            Answer::Affected(n) => Outcome {
                page_total: n as i64,
                ..Default::default()
            },
            Answer::Rows(rows) => {
                let Some(row) = rows.first() else {
                    return Ok(Outcome::default());
                };
                Outcome {
                    total: row.try_get::<_, Option<i64>>(0)?,
                    page_total: row.try_get::<_, i64>(1)?,
                    body: text(row, 2)?,
                    response_headers: text(row, 3)?,
                    response_status: text(row, 4)?,
                    inserted: if row.len() > 5 {
                        row.try_get::<_, Option<i64>>(5)?
                    } else {
                        None
                    },
                    transaction_ms: 0.0,
                }
            }
        })
    };
    let mut outcome = match read(answer) {
        Ok(outcome) => outcome,
        Err(e) => {
            if checked {
                let _ = client.batch_execute("ROLLBACK").await;
            }
            held.release();
            return Err(pg(e));
        }
    };

    let planned = count
        .and_then(|r| text(&r, 0).ok().flatten())
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
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
            let _ = client.batch_execute("ROLLBACK").await;
            held.release();
            return Err(refused);
        }
        let finished = client.batch_execute(end).await;
        held.release();
        finished.map_err(pg)?;
    } else {
        held.release();
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
