//! Admin endpoints for the service role: `/admin/users[/{id}]`.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::AuthState;
use crate::error::{AuthError, Result};
use crate::handlers::{Input, NewUser, insert_user};
use crate::password;
use crate::request;
use crate::users;

fn user_not_found() -> AuthError {
    AuthError::not_found("user_not_found", "User not found")
}

fn parse_id(id: &str) -> Result<Uuid> {
    Uuid::parse_str(id).map_err(|_| user_not_found())
}

/// A paging parameter as the platform reads it: absent or empty is the
/// default; otherwise an unsigned number, or 400 `validation_failed` with
/// the platform's (Go's) wording.
fn page_param(
    query: &std::collections::HashMap<String, String>,
    key: &str,
    default: u64,
) -> Result<u64> {
    match query.get(key).map(String::as_str) {
        None | Some("") => Ok(default),
        Some(v) => v.parse::<u64>().map_err(|e| {
            let why = if matches!(e.kind(), std::num::IntErrorKind::PosOverflow) {
                "value out of range"
            } else {
                "invalid syntax"
            };
            AuthError::validation(format!(
                "Bad Pagination Parameters: strconv.ParseUint: parsing {v:?}: {why}"
            ))
        }),
    }
}

/// `GET /admin/users?page=&per_page=`: `{users, aud}` plus `X-Total-Count`
/// and a `Link` header (`rel="next"` while there is a next page, and
/// `rel="last"`), as supabase-js's `listUsers` reads them. Page 0 is page
/// 1 and `per_page=0` is 20, as the platform's paginator takes them.
pub async fn list(State(state): State<AuthState>, input: Input) -> Result<Response> {
    request::require_admin(&state, &input.headers)?;
    let page = page_param(&input.query, "page", 1)?.max(1);
    let per_page = match page_param(&input.query, "per_page", 50)? {
        0 => 20,
        n => n.min(1000),
    };
    let limit = i64::try_from(per_page).unwrap_or(1000);
    let offset = i64::try_from((page - 1).saturating_mul(per_page)).unwrap_or(i64::MAX);
    let mut conn = state.db().owner.acquire().await?;
    let (found, total) = users::list(&mut conn, limit, offset).await?;
    let mut response = Json(json!({
        "users": found.iter().map(users::User::to_json).collect::<Vec<_>>(),
        "aud": "authenticated",
    }))
    .into_response();
    let headers = response.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&total.to_string()) {
        headers.insert("x-total-count", v);
    }
    let total = u64::try_from(total).unwrap_or(0);
    let last = total.div_ceil(per_page);
    let base = format!("{}/admin/users", state.auth_base());
    let mut links = Vec::new();
    if last > page {
        links.push(format!(
            "<{base}?page={}&per_page={per_page}>; rel=\"next\"",
            page + 1
        ));
    }
    links.push(format!(
        "<{base}?page={last}&per_page={per_page}>; rel=\"last\""
    ));
    if let Ok(v) = HeaderValue::from_str(&links.join(", ")) {
        headers.insert("link", v);
    }
    Ok(response)
}

#[derive(Debug, Deserialize)]
struct AdminUserBody {
    email: Option<String>,
    phone: Option<String>,
    password: Option<String>,
    email_confirm: Option<bool>,
    user_metadata: Option<Value>,
    app_metadata: Option<Value>,
    role: Option<String>,
    ban_duration: Option<String>,
}

fn object(value: Option<Value>, what: &str) -> Result<Option<serde_json::Map<String, Value>>> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(map)) => Ok(Some(map)),
        Some(_) => Err(AuthError::validation(format!("{what} must be an object"))),
    }
}

/// `"24h"`, `"90m"`, `"30s"`, `"1h30m"` -> seconds; `"none"` -> None.
fn parse_ban(value: &str) -> Result<Option<i64>> {
    if value == "none" {
        return Ok(None);
    }
    let invalid = || AuthError::validation("invalid format for ban duration");
    let mut total = 0i64;
    let mut digits = String::new();
    for c in value.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let n: i64 = digits.parse().map_err(|_| invalid())?;
        digits.clear();
        total += n * match c {
            'h' => 3600,
            'm' => 60,
            's' => 1,
            _ => return Err(invalid()),
        };
    }
    if !digits.is_empty() || value.is_empty() {
        return Err(invalid());
    }
    Ok(Some(total))
}

fn ban_until(state: &AuthState, ban: Option<&str>) -> Result<Option<Option<DateTime<Utc>>>> {
    match ban {
        None => Ok(None),
        Some(b) => Ok(Some(
            parse_ban(b)?.map(|secs| state.now() + chrono::Duration::seconds(secs)),
        )),
    }
}

/// `POST /admin/users`.
pub async fn create(State(state): State<AuthState>, input: Input) -> Result<Response> {
    request::require_admin(&state, &input.headers)?;
    let body: AdminUserBody = input.json()?;
    if body.phone.as_deref().is_some_and(|p| !p.is_empty()) && body.email.is_none() {
        return Err(AuthError::unprocessable(
            "phone_provider_disabled",
            "Phone signups are disabled",
        ));
    }
    let email = crate::email_address::validate(body.email.as_deref().unwrap_or("").trim())?;
    let hash = match body.password {
        Some(p) if !p.is_empty() => {
            password::check_strength(&p, state.config().password_min_length)?;
            Some(password::hash(p, state.config().password_hash).await?)
        }
        _ => None,
    };
    let mut app_metadata = json!({"provider": "email", "providers": ["email"]});
    if let Some(extra) = object(body.app_metadata, "app_metadata")? {
        app_metadata = users::merge_metadata(&app_metadata, &extra);
    }
    let user_metadata =
        Value::Object(object(body.user_metadata, "user_metadata")?.unwrap_or_default());
    let banned = ban_until(&state, body.ban_duration.as_deref())?;
    let role = body.role.unwrap_or_else(|| "authenticated".into());
    let mut tx = state.db().owner.begin().await?;
    if users::find_by_email(&mut tx, &email).await?.is_some() {
        return Err(AuthError::unprocessable(
            "email_exists",
            "A user with this email address has already been registered",
        ));
    }
    let user = insert_user(
        &state,
        &mut tx,
        NewUser {
            email: Some(&email),
            password_hash: hash,
            user_metadata,
            app_metadata,
            confirmed_at: body.email_confirm.unwrap_or(false).then(|| state.now()),
            is_anonymous: false,
            role: &role,
            email_identity: true,
        },
    )
    .await?;
    if let Some(until) = banned {
        sqlx::query("update auth.users set banned_until = $2 where id = $1")
            .bind(user.id())
            .bind(until)
            .execute(&mut *tx)
            .await?;
    }
    let user = users::find_by_id(&mut tx, user.id())
        .await?
        .ok_or_else(user_not_found)?;
    tx.commit().await?;
    Ok(Json(user.to_json()).into_response())
}

/// `GET /admin/users/{id}`.
pub async fn get(
    State(state): State<AuthState>,
    Path(id): Path<String>,
    input: Input,
) -> Result<Response> {
    request::require_admin(&state, &input.headers)?;
    let id = parse_id(&id)?;
    let mut conn = state.db().owner.acquire().await?;
    let user = users::find_by_id(&mut conn, id)
        .await?
        .ok_or_else(user_not_found)?;
    Ok(Json(user.to_json()).into_response())
}

/// `PUT /admin/users/{id}`: e-mail, password, confirmation, metadata
/// (merged), role, ban.
pub async fn update(
    State(state): State<AuthState>,
    Path(id): Path<String>,
    input: Input,
) -> Result<Response> {
    request::require_admin(&state, &input.headers)?;
    let id = parse_id(&id)?;
    let body: AdminUserBody = input.json()?;
    let now = state.now();
    let hash = match body.password {
        Some(p) if !p.is_empty() => {
            password::check_strength(&p, state.config().password_min_length)?;
            Some(password::hash(p, state.config().password_hash).await?)
        }
        _ => None,
    };
    let banned = ban_until(&state, body.ban_duration.as_deref())?;
    let user_patch = object(body.user_metadata, "user_metadata")?;
    let app_patch = object(body.app_metadata, "app_metadata")?;
    let mut tx = state.db().owner.begin().await?;
    let user = users::find_by_id(&mut tx, id)
        .await?
        .ok_or_else(user_not_found)?;
    if let Some(email) = body
        .email
        .as_deref()
        .map(str::trim)
        .filter(|e| !e.is_empty())
    {
        let email = crate::email_address::validate(email)?;
        if let Some(other) = users::find_by_email(&mut tx, &email).await?
            && other.id() != id
        {
            return Err(AuthError::unprocessable(
                "email_exists",
                "A user with this email address has already been registered",
            ));
        }
        sqlx::query("update auth.users set email = $2, updated_at = $3 where id = $1")
            .bind(id)
            .bind(&email)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "update auth.identities set identity_data = identity_data || jsonb_build_object('email', $2::text) \
             where user_id = $1 and provider = 'email'",
        )
        .bind(id)
        .bind(&email)
        .execute(&mut *tx)
        .await?;
    }
    if let Some(hash) = hash {
        sqlx::query("update auth.users set encrypted_password = $2, updated_at = $3 where id = $1")
            .bind(id)
            .bind(hash)
            .bind(now)
            .execute(&mut *tx)
            .await?;
    }
    if body.email_confirm == Some(true) {
        sqlx::query(
            "update auth.users set email_confirmed_at = coalesce(email_confirmed_at, $2), updated_at = $2 where id = $1",
        )
        .bind(id)
        .bind(now)
        .execute(&mut *tx)
        .await?;
    }
    if let Some(patch) = user_patch {
        sqlx::query("update auth.users set raw_user_meta_data = $2, updated_at = $3 where id = $1")
            .bind(id)
            .bind(users::merge_metadata(&user.row.user_metadata, &patch))
            .bind(now)
            .execute(&mut *tx)
            .await?;
    }
    if let Some(patch) = app_patch {
        sqlx::query("update auth.users set raw_app_meta_data = $2, updated_at = $3 where id = $1")
            .bind(id)
            .bind(users::merge_metadata(&user.row.app_metadata, &patch))
            .bind(now)
            .execute(&mut *tx)
            .await?;
    }
    if let Some(role) = body.role.filter(|r| !r.is_empty()) {
        sqlx::query("update auth.users set role = $2, updated_at = $3 where id = $1")
            .bind(id)
            .bind(role)
            .bind(now)
            .execute(&mut *tx)
            .await?;
    }
    if let Some(until) = banned {
        sqlx::query("update auth.users set banned_until = $2, updated_at = $3 where id = $1")
            .bind(id)
            .bind(until)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        // Sessions stay (as on the platform): refreshing them and using
        // their access tokens here answer `user_banned` until unbanned.
    }
    let user = users::find_by_id(&mut tx, id)
        .await?
        .ok_or_else(user_not_found)?;
    tx.commit().await?;
    Ok(Json(user.to_json()).into_response())
}

#[derive(Debug, Deserialize, Default)]
struct DeleteBody {
    should_soft_delete: Option<bool>,
}

/// `DELETE /admin/users/{id}`: `{}`. Soft delete keeps the row (with
/// `deleted_at`) but ends its sessions and frees its e-mail address.
pub async fn delete(
    State(state): State<AuthState>,
    Path(id): Path<String>,
    input: Input,
) -> Result<Response> {
    request::require_admin(&state, &input.headers)?;
    let id = parse_id(&id)?;
    let body: DeleteBody = input.json()?;
    let pool = &state.db().owner;
    let affected = if body.should_soft_delete.unwrap_or(false) {
        let mut tx = pool.begin().await?;
        let n = sqlx::query(
            "update auth.users set deleted_at = $2, email = null, phone = null, encrypted_password = '', \
               updated_at = $2 where id = $1 and deleted_at is null",
        )
        .bind(id)
        .bind(state.now())
        .execute(&mut *tx)
        .await?
        .rows_affected();
        sqlx::query("delete from auth.sessions where user_id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("delete from auth.identities where user_id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        n
    } else {
        sqlx::query("delete from auth.users where id = $1")
            .bind(id)
            .execute(pool)
            .await?
            .rows_affected()
    };
    if affected == 0 {
        return Err(user_not_found());
    }
    Ok((StatusCode::OK, Json(json!({}))).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ban_durations() {
        assert_eq!(parse_ban("none").unwrap(), None);
        assert_eq!(parse_ban("24h").unwrap(), Some(86_400));
        assert_eq!(parse_ban("1h30m5s").unwrap(), Some(5405));
        for bad in ["", "12", "3d", "h", "-1h"] {
            assert!(parse_ban(bad).is_err(), "{bad}");
        }
    }
}
