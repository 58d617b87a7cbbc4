//! Users: the list with search and filters, and a user's sessions. Changes
//! to users go through the auth service's admin API (mounted for the
//! console as service role); these reads and the global sign-out need what
//! that API does not offer. `auth.users` and friends carry the platform's
//! names, which the console reads through the owner pool.

use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Json, Response};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::{ConsoleError, ConsoleState, Result, query_map};

const MAX_PER_PAGE: i64 = 200;

/// `GET /users?q=&provider=&status=&page=&per_page=`.
pub(crate) async fn list(
    State(state): State<ConsoleState>,
    RawQuery(query): RawQuery,
) -> Result<Response> {
    let query = query_map(query.as_deref());
    let number = |name: &str, default: i64| -> Result<i64> {
        match query.get(name).map(|v| v.trim()) {
            None | Some("") => Ok(default),
            Some(v) => v.parse::<i64>().ok().filter(|n| *n >= 1).ok_or_else(|| {
                ConsoleError::bad_request(format!("{name} must be a whole number from 1"))
            }),
        }
    };
    let page = number("page", 1)?;
    let per_page = number("per_page", 50)?.min(MAX_PER_PAGE);
    let text = |name: &str| {
        query
            .get(name)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    };
    let status = text("status");
    if let Some(s) = &status
        && !matches!(s.as_str(), "active" | "unconfirmed" | "banned")
    {
        return Err(ConsoleError::bad_request(
            "status is one of active, unconfirmed, banned",
        ));
    }
    let search = text("q").map(|q| {
        // A plain substring: LIKE's own wildcards in it are literal.
        let escaped = q
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_");
        format!("%{escaped}%")
    });
    let provider = text("provider");
    let rows: Vec<(sqlx::types::Json<Value>, i64)> = sqlx::query_as(
        "with listed as (
           select u.id, u.email, u.phone, u.created_at, u.last_sign_in_at, u.confirmed_at,
                  u.banned_until,
                  coalesce(array(select distinct i.provider from auth.identities i
                                  where i.user_id = u.id order by 1), '{}') as providers,
                  case when u.banned_until > now() then 'banned'
                       when u.email_confirmed_at is null and u.phone_confirmed_at is null then 'unconfirmed'
                       else 'active' end as status
             from auth.users u
            where u.deleted_at is null
              and ($1::text is null or u.email ilike $1 or u.phone ilike $1 or u.id::text ilike $1)
         )
         select to_jsonb(l), count(*) over () from listed l
          where ($2::text is null or $2 = any(l.providers))
            and ($3::text is null or l.status = $3)
          order by l.created_at desc nulls last, l.id
          limit $4 offset $5",
    )
    .bind(&search)
    .bind(&provider)
    .bind(&status)
    .bind(per_page)
    .bind((page - 1).saturating_mul(per_page))
    .fetch_all(&state.inner.db.owner)
    .await?;
    let total = rows.first().map_or(0, |r| r.1);
    let users: Vec<Value> = rows.into_iter().map(|r| r.0.0).collect();
    Ok(
        Json(json!({ "users": users, "total": total, "page": page, "per_page": per_page }))
            .into_response(),
    )
}

/// `GET /users/{id}/sessions`.
pub(crate) async fn sessions(
    State(state): State<ConsoleState>,
    Path(id): Path<String>,
) -> Result<Response> {
    let id = user_id(&id)?;
    let sessions: sqlx::types::Json<Value> = sqlx::query_scalar(
        "select coalesce(jsonb_agg(to_jsonb(s) order by s.created_at desc nulls last), '[]')
           from (select id, created_at, updated_at, refreshed_at, user_agent, host(ip) as ip,
                        aal::text as aal, not_after
                   from auth.sessions where user_id = $1) s",
    )
    .bind(id)
    .fetch_one(&state.inner.db.owner)
    .await?;
    Ok(Json(json!({ "sessions": sessions.0 })).into_response())
}

/// `DELETE /users/{id}/sessions`: every session ends, and with it every
/// refresh token (they go with their session).
pub(crate) async fn sign_out_everywhere(
    State(state): State<ConsoleState>,
    Path(id): Path<String>,
) -> Result<Response> {
    let id = user_id(&id)?;
    let exists: Option<Uuid> = sqlx::query_scalar("select id from auth.users where id = $1")
        .bind(id)
        .fetch_optional(&state.inner.db.owner)
        .await?;
    if exists.is_none() {
        return Err(ConsoleError::not_found("No user has this id"));
    }
    sqlx::query("delete from auth.sessions where user_id = $1")
        .bind(id)
        .execute(&state.inner.db.owner)
        .await?;
    tracing::info!(target: "plinth_console", user = %id, "console: a user was signed out everywhere");
    Ok(StatusCode::NO_CONTENT.into_response())
}

fn user_id(text: &str) -> Result<Uuid> {
    Uuid::parse_str(text).map_err(|_| ConsoleError::bad_request("A user id is a UUID"))
}
