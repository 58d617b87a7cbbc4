//! Manual identity linking, as the platform's (`GOTRUE_SECURITY_MANUAL_LINKING_ENABLED`):
//! `GET /user/identities/authorize` starts an OAuth sign-in whose callback
//! links the provider's identity to the signed-in user (supabase-js
//! `linkIdentity`), and `DELETE /user/identities/{identity_id}` unlinks one
//! (`unlinkIdentity`), never the last. `getUserIdentities` reads `GET /user`.
//!
//! Linking an identity with a verified e-mail address to an anonymous user
//! gives the user that address and makes it permanent (`is_anonymous`
//! false).

use axum::Json;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use sqlx::PgConnection;
use uuid::Uuid;

use crate::AuthState;
use crate::error::{AuthError, Result};
use crate::handlers::Input;
use crate::request::{self, Caller};
use crate::users::{self, User};

fn linking_disabled() -> AuthError {
    AuthError::not_found("manual_linking_disabled", "Manual linking is disabled")
}

/// `GET /user/identities/authorize?provider=&redirect_to=&skip_http_redirect=true`:
/// the provider's URL (`{"url"}`, or a 302 without `skip_http_redirect`).
pub async fn authorize(State(state): State<AuthState>, input: Input) -> Result<Response> {
    let Caller { user, .. } = request::caller(&state, &input.headers).await?;
    if !state.config().manual_linking_enabled {
        return Err(linking_disabled());
    }
    crate::external::start(state, input, Some(user.id())).await
}

/// `DELETE /user/identities/{identity_id}`: `{}`.
pub async fn unlink(
    State(state): State<AuthState>,
    headers: HeaderMap,
    Path(identity_id): Path<String>,
) -> Result<Response> {
    let Caller { user, .. } = request::caller(&state, &headers).await?;
    if !state.config().manual_linking_enabled {
        return Err(linking_disabled());
    }
    let identity_id = Uuid::parse_str(&identity_id)
        .map_err(|_| AuthError::not_found("validation_failed", "identity_id must be an UUID"))?;
    if user.identities.len() <= 1 {
        return Err(AuthError::unprocessable(
            "single_identity_not_deletable",
            "User must have at least 1 identity after unlinking",
        ));
    }
    let Some(identity) = user.identities.iter().find(|i| i.id == identity_id) else {
        return Err(AuthError::unprocessable(
            "identity_not_found",
            "Identity doesn't exist",
        ));
    };
    let mut tx = state.db().owner.begin().await?;
    sqlx::query("delete from auth.identities where id = $1 and user_id = $2")
        .bind(identity.id)
        .bind(user.id())
        .execute(&mut *tx)
        .await?;
    if identity.provider == "phone" {
        sqlx::query(
            "update auth.users set phone = null, phone_confirmed_at = null, updated_at = $2 where id = $1",
        )
        .bind(user.id())
        .bind(state.now())
        .execute(&mut *tx)
        .await?;
    } else {
        email_from_identities(&state, &mut tx, &user).await?;
    }
    crate::phone::update_providers(&mut tx, user.id()).await?;
    tx.commit().await?;
    Ok(Json(json!({})).into_response())
}

/// After an identity went away: when no remaining identity carries the
/// user's address, the address of the best remaining one (verified first,
/// then unverified, then none) that no other account uses becomes the
/// user's; its confirmation goes unless the provider verified it.
async fn email_from_identities(
    state: &AuthState,
    conn: &mut PgConnection,
    user: &User,
) -> Result<()> {
    let current = user.row.email.to_lowercase();
    let rows: Vec<(Option<String>, Value)> = sqlx::query_as(
        "select email, identity_data from auth.identities where user_id = $1 order by created_at, id",
    )
    .bind(user.id())
    .fetch_all(&mut *conn)
    .await?;
    let email_of = |(email, _): &(Option<String>, Value)| email.clone().unwrap_or_default();
    if rows.iter().any(|r| email_of(r) == current) {
        return Ok(());
    }
    let verified = |(_, data): &(Option<String>, Value)| {
        data.get("email_verified").and_then(Value::as_bool) == Some(true)
    };
    let mut ranked: Vec<&(Option<String>, Value)> = rows.iter().collect();
    ranked.sort_by_key(|r| match (email_of(r).is_empty(), verified(r)) {
        (true, _) => 2,
        (false, false) => 1,
        (false, true) => 0,
    });
    for candidate in ranked {
        let email = email_of(candidate);
        if !email.is_empty()
            && users::find_by_email(conn, &email)
                .await?
                .is_some_and(|other| other.id() != user.id())
        {
            continue;
        }
        let confirmed =
            !email.is_empty() && (verified(candidate) || state.config().mailer_autoconfirm);
        sqlx::query(
            "update auth.users set email = nullif($2, ''), \
               email_confirmed_at = case when $3 then email_confirmed_at else null end, \
               confirmation_token = '', recovery_token = '', email_change_token_new = '', email_change = '', \
               email_change_token_current = '', email_change_confirm_status = 0, \
               reauthentication_token = '', updated_at = $4 where id = $1",
        )
        .bind(user.id())
        .bind(&email)
        .bind(confirmed)
        .bind(state.now())
        .execute(&mut *conn)
        .await?;
        return Ok(());
    }
    Err(AuthError::unprocessable(
        "email_conflict_identity_not_deletable",
        "Unable to unlink identity due to email conflict",
    ))
}

/// What the provider said about the identity being linked.
pub(crate) struct Linked<'a> {
    pub provider: &'a str,
    pub provider_id: &'a str,
    pub identity_data: &'a Value,
    pub email: Option<&'a str>,
    pub email_verified: bool,
}

/// The OAuth callback of a linking flow: adds the provider's identity to
/// `target`. Refused when the identity belongs to anyone already.
pub(crate) async fn link(
    state: &AuthState,
    conn: &mut PgConnection,
    target: Uuid,
    linked: Linked<'_>,
) -> Result<User> {
    let Linked {
        provider,
        provider_id,
        identity_data,
        email,
        email_verified,
    } = linked;
    let user = users::find_by_id(conn, target)
        .await?
        .ok_or_else(|| AuthError::not_found("user_not_found", "User not found"))?;
    let owner: Option<Uuid> = sqlx::query_scalar(
        "select user_id from auth.identities where provider = $1 and provider_id = $2",
    )
    .bind(provider)
    .bind(provider_id)
    .fetch_optional(&mut *conn)
    .await?;
    if let Some(owner) = owner {
        return Err(AuthError::unprocessable(
            "identity_already_exists",
            if owner == target {
                "Identity is already linked"
            } else {
                "Identity is already linked to another user"
            },
        ));
    }
    let now = state.now();
    sqlx::query(
        "insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at) \
         values ($1, $2, $3, $4, $5, $5, $5)",
    )
    .bind(provider_id)
    .bind(target)
    .bind(identity_data)
    .bind(provider)
    .bind(now)
    .execute(&mut *conn)
    .await?;
    if user.row.email.is_empty()
        && let Some(email) = email.filter(|e| !e.is_empty())
    {
        if users::find_by_email(conn, email).await?.is_some() {
            return Err(AuthError::bad_request(
                "email_exists",
                "A user with this email address has already been registered",
            ));
        }
        if !email_verified {
            return Err(AuthError::unprocessable(
                "email_not_confirmed",
                format!(
                    "Unverified email with {provider}. Verify the email with {provider} and try again"
                ),
            ));
        }
        sqlx::query(
            "update auth.users set email = $2, email_confirmed_at = coalesce(email_confirmed_at, $3), \
               is_anonymous = false, updated_at = $3 where id = $1",
        )
        .bind(target)
        .bind(email)
        .bind(now)
        .execute(&mut *conn)
        .await?;
    }
    crate::phone::update_providers(conn, target).await?;
    users::find_by_id(conn, target)
        .await?
        .ok_or_else(|| AuthError::internal("user vanished while linking"))
}
