//! `POST /admin/generate_link` and `POST /invite`, for the service role, as
//! the platform answers them: links are made (and, for an invite, mailed)
//! without the caller's own sign-up or sign-in.

use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{Value, json};
use sqlx::PgConnection;

use crate::AuthState;
use crate::email_address;
use crate::email_change::{self, Side};
use crate::error::{AuthError, Result};
use crate::handlers::{Input, NewUser, deliver, insert_user};
use crate::mailer::Mail;
use crate::password;
use crate::redirect;
use crate::request;
use crate::tokens;
use crate::users::{self, TokenColumn, User};

fn email_exists() -> AuthError {
    AuthError::unprocessable(
        "email_exists",
        "A user with this email address has already been registered",
    )
}

fn metadata(value: Option<Value>) -> Result<Value> {
    match value {
        None | Some(Value::Null) => Ok(json!({})),
        Some(Value::Object(map)) => Ok(Value::Object(map)),
        Some(_) => Err(AuthError::validation("data must be an object")),
    }
}

/// Where a link leads after verification: an allowed `redirect_to` (body,
/// then query), else the site URL.
fn referrer(state: &AuthState, input: &Input, from_body: Option<&str>) -> String {
    let config = state.config();
    let requested = from_body
        .filter(|r| !r.is_empty())
        .or_else(|| input.query.get("redirect_to").map(String::as_str));
    redirect::choose(requested, &config.site_url, &config.uri_allow_list)
}

/// `<auth>/verify?token=&type=&redirect_to=`, as the platform's mails link.
fn action_link(state: &AuthState, token: &str, kind: &str, redirect_to: &str) -> String {
    redirect::with_query(
        &format!("{}/verify", state.auth_base()),
        &[
            ("token", token),
            ("type", kind),
            ("redirect_to", redirect_to),
        ],
    )
}

/// A new unconfirmed e-mail user (with its `email` identity).
async fn new_email_user(
    state: &AuthState,
    conn: &mut PgConnection,
    email: &str,
    password_hash: Option<String>,
    user_metadata: Value,
) -> Result<User> {
    insert_user(
        state,
        conn,
        NewUser {
            email: Some(email),
            password_hash,
            user_metadata,
            app_metadata: json!({"provider": "email", "providers": ["email"]}),
            confirmed_at: None,
            is_anonymous: false,
            role: "authenticated",
            email_identity: true,
        },
    )
    .await
}

/// Who an invite to `email` goes to: the unconfirmed user `found`, else a
/// new one; a confirmed user: `email_exists`.
async fn invitee(
    state: &AuthState,
    conn: &mut PgConnection,
    found: Option<User>,
    email: &str,
    user_metadata: Value,
) -> Result<User> {
    match found {
        Some(user) if user.row.email_confirmed_at.is_some() => Err(email_exists()),
        Some(user) => Ok(user),
        None => new_email_user(state, conn, email, None, user_metadata).await,
    }
}

/// Stores `hash` as `user`'s invite token (`invited_at` now).
async fn store_invite(
    conn: &mut PgConnection,
    user: &User,
    email: &str,
    hash: &str,
    now: DateTime<Utc>,
) -> Result<()> {
    users::set_token(conn, user.id(), TokenColumn::Confirmation, hash, email, now).await?;
    sqlx::query("update auth.users set invited_at = $2 where id = $1")
        .bind(user.id())
        .bind(now)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

#[derive(Debug, Deserialize)]
struct GenerateLinkBody {
    #[serde(rename = "type")]
    kind: Option<String>,
    email: Option<String>,
    new_email: Option<String>,
    password: Option<String>,
    data: Option<Value>,
    redirect_to: Option<String>,
}

/// `POST /admin/generate_link`: the user plus `action_link`, `email_otp`,
/// `hashed_token`, `verification_type` and `redirect_to`; no mail is sent.
/// Types `signup`, `invite`, `magiclink` (a `signup` link for an unknown
/// address), `recovery`, `email_change_current` (with secure e-mail change)
/// and `email_change_new`: with secure e-mail change the change needs the
/// links of both, as the platform's mails would.
pub async fn generate_link(State(state): State<AuthState>, input: Input) -> Result<Response> {
    request::require_admin(&state, &input.headers)?;
    let body: GenerateLinkBody = input.json()?;
    let email = email_address::validate(body.email.as_deref().unwrap_or(""))?;
    let redirect_to = referrer(&state, &input, body.redirect_to.as_deref());
    let mut kind = body.kind.clone().unwrap_or_default();
    let user_metadata = metadata(body.data.clone())?;

    // A password for a new `signup` user is hashed before the transaction.
    let existing = {
        let mut conn = state.db().owner.acquire().await?;
        users::find_by_email(&mut conn, &email).await?
    };
    if existing.is_none() {
        match kind.as_str() {
            "magiclink" => kind = "signup".into(),
            "recovery" | "email_change_current" | "email_change_new" => {
                return Err(AuthError::not_found(
                    "user_not_found",
                    "User with this email not found",
                ));
            }
            _ => {}
        }
    }
    let signup_hash = if kind == "signup" && existing.is_none() {
        let config = state.config();
        match body.password.as_deref().filter(|p| !p.is_empty()) {
            Some(p) => {
                password::check_strength(p, config.password_min_length)?;
                Some(password::hash(p.to_owned(), config.password_hash).await?)
            }
            // A magic link to an unknown address: a user without a password.
            None if body.kind.as_deref() == Some("magiclink") => None,
            None => {
                return Err(AuthError::unprocessable(
                    "validation_failed",
                    "Signup requires a valid password",
                ));
            }
        }
    } else {
        None
    };

    let code = tokens::otp();
    let hashed = tokens::token_hash(state.email_token_key(), &email, &code);
    let now = state.now();
    let mut tx = state.db().owner.begin().await?;
    // Looked up again inside the transaction: it may have changed.
    let found = users::find_by_email(&mut tx, &email).await?;
    let (user, link_token, link_type, hashed_token) = match kind.as_str() {
        "magiclink" | "recovery" => {
            let user = found.ok_or_else(|| {
                AuthError::not_found("user_not_found", "User with this email not found")
            })?;
            users::set_token(
                &mut tx,
                user.id(),
                TokenColumn::Recovery,
                &hashed,
                &email,
                now,
            )
            .await?;
            (user, hashed.clone(), kind.clone(), hashed.clone())
        }
        "invite" => {
            let user = invitee(&state, &mut tx, found, &email, user_metadata).await?;
            store_invite(&mut tx, &user, &email, &hashed, now).await?;
            (user, hashed.clone(), kind.clone(), hashed.clone())
        }
        "signup" => {
            let user = match found {
                Some(user) if user.row.email_confirmed_at.is_some() => {
                    return Err(email_exists());
                }
                Some(user) => {
                    if let Some(patch) = user_metadata.as_object().filter(|m| !m.is_empty()) {
                        sqlx::query(
                            "update auth.users set raw_user_meta_data = $2, updated_at = $3 where id = $1",
                        )
                        .bind(user.id())
                        .bind(users::merge_metadata(&user.row.user_metadata, patch))
                        .bind(now)
                        .execute(&mut *tx)
                        .await?;
                    }
                    user
                }
                None => new_email_user(&state, &mut tx, &email, signup_hash, user_metadata).await?,
            };
            users::set_token(
                &mut tx,
                user.id(),
                TokenColumn::Confirmation,
                &hashed,
                &email,
                now,
            )
            .await?;
            (user, hashed.clone(), kind.clone(), hashed.clone())
        }
        "email_change_current" | "email_change_new" => {
            let current = kind == "email_change_current";
            if current && !state.config().secure_email_change {
                return Err(AuthError::validation(
                    "Enable secure email change to generate link for current email",
                ));
            }
            let user = found.ok_or_else(|| {
                AuthError::not_found("user_not_found", "User with this email not found")
            })?;
            let new_email =
                email_address::validate(body.new_email.as_deref().unwrap_or("").trim())?;
            if let Some(other) = users::find_by_email(&mut tx, &new_email).await?
                && other.id() != user.id()
            {
                return Err(email_exists());
            }
            // Each side's token is keyed on its own address, so
            // `verifyOtp({email, token: email_otp})` works with either.
            let (side, token) = if current {
                (Side::Current, hashed.clone())
            } else {
                let token = tokens::token_hash(state.email_token_key(), &new_email, &code);
                (Side::New, token)
            };
            email_change::store_side(&mut tx, &user, &new_email, side, &token, now).await?;
            (user, token.clone(), "email_change".to_owned(), token)
        }
        other => {
            return Err(AuthError::validation(format!(
                "Invalid email action link type requested: {other}"
            )));
        }
    };
    let user = users::find_by_id(&mut tx, user.id())
        .await?
        .ok_or_else(|| AuthError::internal("user vanished"))?;
    tx.commit().await?;

    let mut response = user.to_json();
    if let Some(map) = response.as_object_mut() {
        map.insert(
            "action_link".into(),
            json!(action_link(&state, &link_token, &link_type, &redirect_to)),
        );
        map.insert("email_otp".into(), json!(code));
        map.insert("hashed_token".into(), json!(hashed_token));
        map.insert("verification_type".into(), json!(kind));
        map.insert("redirect_to".into(), json!(redirect_to));
    }
    Ok(Json(response).into_response())
}

#[derive(Debug, Deserialize)]
struct InviteBody {
    email: Option<String>,
    data: Option<Value>,
}

/// `POST /invite`: creates the user (unless an unconfirmed one exists) and
/// mails an invite link; following it signs the user in, who then sets a
/// password with `PUT /user`. A confirmed address: 422 `email_exists`.
pub async fn invite(State(state): State<AuthState>, input: Input) -> Result<Response> {
    request::require_admin(&state, &input.headers)?;
    let body: InviteBody = input.json()?;
    let email = email_address::validate(body.email.as_deref().unwrap_or(""))?;
    let user_metadata = metadata(body.data)?;
    let redirect_to = referrer(&state, &input, None);
    crate::ratelimit::email_sent(&state)?;
    let mut tx = state.db().owner.begin().await?;
    let found = users::find_by_email(&mut tx, &email).await?;
    let user = invitee(&state, &mut tx, found, &email, user_metadata).await?;
    let code = tokens::otp();
    let hash = tokens::token_hash(state.email_token_key(), &email, &code);
    store_invite(&mut tx, &user, &email, &hash, state.now()).await?;
    let user = users::find_by_id(&mut tx, user.id())
        .await?
        .ok_or_else(|| AuthError::internal("user vanished"))?;
    let link = action_link(&state, &hash, "invite", &redirect_to);
    deliver(
        &state,
        Mail {
            to: email.clone(),
            subject: "You have been invited".into(),
            text: format!(
                "You have been invited to create a user. Follow this link to accept the invite:\n\n\
                 {link}\n\nOr enter this code: {code}\n"
            ),
        },
    )
    .await?;
    tx.commit().await?;
    Ok(Json(user.to_json()).into_response())
}
