//! Reauthentication, as the platform's: `GET /reauthenticate` sends a
//! one-time nonce to the signed-in user's e-mail address (or, for users with
//! only a number, by SMS); with
//! `GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION` a new password
//! through `PUT /user` needs that `nonce` unless the session was made less
//! than a day ago.
//!
//! The nonce is stored only as a keyed hash (`reauthentication_token`,
//! mirrored into `auth.one_time_tokens`) and works once.

use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use serde_json::json;
use sqlx::Row;
use uuid::Uuid;

use crate::AuthState;
use crate::error::{AuthError, Result};
use crate::handlers::{deliver, email_gate};
use crate::mailer::Mail;
use crate::request::{self, Caller};
use crate::sms;
use crate::tokens;
use crate::users::User;

/// How recent a session must be to change the password without a nonce.
const RECENT_SESSION: chrono::Duration = chrono::Duration::hours(24);

fn nonce_invalid() -> AuthError {
    AuthError::unprocessable(
        "reauthentication_not_valid",
        "Nonce has expired or is invalid",
    )
}

/// `GET /reauthenticate`: `{}` (or `{"message_id"}` after an SMS).
pub async fn reauthenticate(
    State(state): State<AuthState>,
    headers: HeaderMap,
) -> Result<Response> {
    let Caller { user, .. } = request::caller(&state, &headers).await?;
    let email = user.row.email.trim().to_lowercase();
    let phone = user.row.phone.clone();
    if email.is_empty() && phone.is_empty() {
        return Err(AuthError::validation(
            "Reauthentication requires the user to have an email or a phone number",
        ));
    }
    if !email.is_empty() {
        if user.row.email_confirmed_at.is_none() {
            return Err(AuthError::unprocessable(
                "email_not_confirmed",
                "Please verify your email first.",
            ));
        }
    } else if user.row.phone_confirmed_at.is_none() {
        return Err(AuthError::unprocessable(
            "phone_not_confirmed",
            "Please verify your phone first.",
        ));
    }
    let sent_at: Option<DateTime<Utc>> =
        sqlx::query_scalar("select reauthentication_sent_at from auth.users where id = $1")
            .bind(user.id())
            .fetch_one(&state.db().owner)
            .await?;
    let (recipient, code, message_id) = if !email.is_empty() {
        email_gate(&state, &email)?;
        (email.clone(), tokens::otp(), None)
    } else {
        sms::frequency_gate(&state, sent_at)?;
        if sms::test_otp(&state, &phone).is_none() {
            crate::ratelimit::sms_sent(&state)?;
        }
        let sent = sms::send_code(&state, &phone, "sms", "reauthentication").await?;
        (phone.clone(), sent.code, sent.message_id)
    };
    let hash = tokens::token_hash(state.email_token_key(), &recipient, &code);
    let now = state.now();
    let mut tx = state.db().owner.begin().await?;
    sqlx::query(
        "update auth.users set reauthentication_token = $2, reauthentication_sent_at = $3 where id = $1",
    )
    .bind(user.id())
    .bind(&hash)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "insert into auth.one_time_tokens (id, user_id, token_type, token_hash, relates_to, created_at, updated_at) \
         values ($1, $2, 'reauthentication_token', $3, $4, $5, $5) \
         on conflict (user_id, token_type) do update \
           set token_hash = excluded.token_hash, relates_to = excluded.relates_to, updated_at = excluded.updated_at",
    )
    .bind(Uuid::new_v4())
    .bind(user.id())
    .bind(&hash)
    .bind(&recipient)
    .bind(now.naive_utc())
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    if !email.is_empty() {
        deliver(
            &state,
            Mail {
                to: email,
                subject: "Confirm reauthentication".into(),
                text: format!(
                    "Enter this code to confirm it is you:\n\n{code}\n\nIf you did not ask for this, ignore this e-mail.\n"
                ),
            },
        )
        .await?;
    }
    Ok(match message_id {
        Some(id) => Json(json!({ "message_id": id })).into_response(),
        None => Json(json!({})).into_response(),
    })
}

/// The checks of `PUT /user` that come before anything changes: an
/// anonymous user may not set a password without an address or number, and
/// a new password may need the reauthentication nonce.
pub(crate) async fn check_update(
    state: &AuthState,
    user: &User,
    session_id: Option<Uuid>,
    password: Option<&str>,
    nonce: Option<&str>,
    adds_contact: bool,
) -> Result<()> {
    if user.row.is_anonymous && password.is_some_and(|p| !p.is_empty()) && !adds_contact {
        return Err(AuthError::unprocessable(
            "validation_failed",
            "Updating password of an anonymous user without an email or phone is not allowed",
        ));
    }
    if password.is_none() || !state.config().update_password_require_reauthentication {
        return Ok(());
    }
    let session_created: Option<DateTime<Utc>> = match session_id {
        Some(id) => sqlx::query_scalar("select created_at from auth.sessions where id = $1")
            .bind(id)
            .fetch_optional(&state.db().owner)
            .await?
            .flatten(),
        None => None,
    };
    let recent = session_created.is_some_and(|at| state.now() <= at + RECENT_SESSION);
    if recent {
        return Ok(());
    }
    let Some(nonce) = nonce.map(str::trim).filter(|n| !n.is_empty()) else {
        return Err(AuthError::bad_request(
            "reauthentication_needed",
            "Password update requires reauthentication",
        ));
    };
    verify_nonce(state, user, nonce).await
}

/// Checks and uses up the nonce. Wrong nonces are counted per user.
async fn verify_nonce(state: &AuthState, user: &User, nonce: &str) -> Result<()> {
    let tries = ("reauthentication", user.id());
    crate::ratelimit::count_guess(&state.limits().code_failures, tries)?;
    let row = sqlx::query(
        "select reauthentication_token, reauthentication_sent_at from auth.users where id = $1",
    )
    .bind(user.id())
    .fetch_one(&state.db().owner)
    .await?;
    let stored: Option<String> = row.try_get("reauthentication_token")?;
    let sent_at: Option<DateTime<Utc>> = row.try_get("reauthentication_sent_at")?;
    let (Some(stored), Some(sent_at)) = (stored.filter(|s| !s.is_empty()), sent_at) else {
        return Err(nonce_invalid());
    };
    let email = user.row.email.trim().to_lowercase();
    let (recipient, lifetime) = if !email.is_empty() {
        (email, state.config().otp_expiry)
    } else if !user.row.phone.is_empty() {
        (user.row.phone.clone(), state.config().sms.otp_exp)
    } else {
        return Err(AuthError::unprocessable(
            "reauthentication_not_valid",
            "Reauthentication requires an email or a phone number",
        ));
    };
    let hash = tokens::token_hash(state.email_token_key(), &recipient, nonce);
    let fresh = sent_at + chrono::Duration::seconds(lifetime) >= state.now();
    if !fresh || !tokens::constant_time_eq(hash.as_bytes(), stored.as_bytes()) {
        return Err(nonce_invalid());
    }
    state.limits().code_failures.refund(tries);
    // Used once: cleared with the user's other outstanding one-time tokens.
    let cleared = sqlx::query(
        "update auth.users set reauthentication_token = '' where id = $1 and reauthentication_token = $2",
    )
    .bind(user.id())
    .bind(&stored)
    .execute(&state.db().owner)
    .await?;
    if cleared.rows_affected() == 0 {
        return Err(nonce_invalid());
    }
    sqlx::query("delete from auth.one_time_tokens where user_id = $1")
        .bind(user.id())
        .execute(&state.db().owner)
        .await?;
    Ok(())
}
