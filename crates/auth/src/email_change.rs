//! A change of e-mail address, as the platform makes it.
//!
//! `PUT /user` with a new address stores it as `email_change` and mails a
//! link and code to it (`email_change_token_new`). With secure e-mail change
//! (`GOTRUE_MAILER_SECURE_EMAIL_CHANGE_ENABLED`, on by default) a user who
//! has an address also gets a link and code at it
//! (`email_change_token_current`), and the change is made once both are
//! confirmed: the first answers "Confirmation link accepted…" (a redirect
//! with that `message`, or `{msg, code}` from `POST /verify`) and sets
//! `email_change_confirm_status` to 1, the second makes the change. With
//! `ENABLE_EMAIL_AUTOCONFIRM` either link makes it, and an anonymous user's
//! new address is taken at once, with no mail. `generate_link` types
//! `email_change_current` / `email_change_new` store one side each.
//!
//! Tokens are keyed hashes of the address they went to and the code, as
//! every e-mail token ([`tokens::token_hash`]), mirrored into
//! `auth.one_time_tokens`.

use chrono::{DateTime, Utc};
use sqlx::{PgConnection, Row};
use uuid::Uuid;

use crate::AuthState;
use crate::error::{AuthError, Result};
use crate::handlers::{self, Challenge, Verified};
use crate::mailer::Mail;
use crate::redirect;
use crate::tokens::{self, PKCE_PREFIX};
use crate::users::{self, User};

/// The platform's answer to the first of two confirmations.
pub(crate) const ONE_OF_TWO: &str =
    "Confirmation link accepted. Please proceed to confirm link sent to the other email";

/// The flow-state method of an e-mail change's PKCE flow.
const FLOW_METHOD: &str = "email_change";

/// Which address a token of the change went to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Current,
    New,
}

impl Side {
    /// Its column of `auth.users`, also its `auth.one_time_token_type`.
    fn column(self) -> &'static str {
        match self {
            Self::Current => "email_change_token_current",
            Self::New => "email_change_token_new",
        }
    }
}

/// What to do when a change was mailed less than `GOTRUE_SMTP_MAX_FREQUENCY`
/// ago.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TooSoon {
    /// 429, as the platform answers the signed-in user.
    Refuse,
    /// The mail sent stands; the answer is the same (`/resend`, which must
    /// not tell whether an address has an account).
    Skip,
}

/// `PUT /user` with `new_email` (valid, not the user's own, not taken).
pub(crate) async fn request(
    state: &AuthState,
    conn: &mut PgConnection,
    user: &User,
    new_email: &str,
    redirect_to: &str,
    challenge: Option<&Challenge>,
) -> Result<()> {
    if user.row.is_anonymous && state.config().mailer_autoconfirm {
        return set_email(state, conn, user.id(), new_email).await;
    }
    handlers::email_gate(state, new_email)?;
    send(
        state,
        conn,
        user,
        new_email,
        redirect_to,
        challenge,
        TooSoon::Refuse,
    )
    .await
}

/// `POST /resend` with type `email_change`: the change's mails again, for
/// the user whose address (or, failing that, whose pending new address) is
/// `email`. Nothing when there is no such change.
pub(crate) async fn resend(
    state: &AuthState,
    conn: &mut PgConnection,
    email: &str,
    redirect_to: &str,
    challenge: Option<&Challenge>,
) -> Result<()> {
    let mut user = users::find_by_email(conn, email)
        .await?
        .filter(|u| u.row.email_change.is_some());
    if user.is_none() {
        let id: Option<Uuid> = sqlx::query_scalar(
            "select id from auth.users where lower(email_change) = $1 and deleted_at is null \
             order by email_change_sent_at desc nulls last limit 1",
        )
        .bind(email)
        .fetch_optional(&mut *conn)
        .await?;
        if let Some(id) = id {
            user = users::find_by_id(conn, id).await?;
        }
    }
    let Some(user) = user else {
        return Ok(());
    };
    let Some(new_email) = user.row.email_change.clone() else {
        return Ok(());
    };
    send(
        state,
        conn,
        &user,
        &new_email,
        redirect_to,
        challenge,
        TooSoon::Skip,
    )
    .await
}

/// Stores the change's tokens and mails them: to the new address, and with
/// secure e-mail change to the current one too.
async fn send(
    state: &AuthState,
    conn: &mut PgConnection,
    user: &User,
    new_email: &str,
    redirect_to: &str,
    challenge: Option<&Challenge>,
    too_soon: TooSoon,
) -> Result<()> {
    let now = state.now();
    let frequency = chrono::Duration::from_std(state.config().rate_limits.email_max_frequency)
        .unwrap_or(chrono::Duration::MAX);
    if let Some(at) = user.row.email_change_sent_at
        && at + frequency > now
    {
        return match too_soon {
            TooSoon::Skip => Ok(()),
            TooSoon::Refuse => Err(AuthError::email_too_soon(
                (at + frequency - now).to_std().unwrap_or_default(),
            )),
        };
    }
    let current = user.row.email.as_str();
    let both = state.config().secure_email_change && !current.is_empty();
    let prefix = if challenge.is_some() { PKCE_PREFIX } else { "" };
    let token = |address: &str, code: &str| {
        format!(
            "{prefix}{}",
            tokens::token_hash(state.email_token_key(), address, code)
        )
    };
    let new_code = tokens::otp();
    let new_token = token(new_email, &new_code);
    let current_code = both.then(tokens::otp);
    let current_token = current_code
        .as_deref()
        .map(|code| token(current, code))
        .unwrap_or_default();
    if let Some(challenge) = challenge {
        handlers::create_email_flow(state, conn, user.id(), challenge, FLOW_METHOD).await?;
    }
    sqlx::query(
        "update auth.users set email_change = $2, email_change_token_new = $3, \
           email_change_token_current = $4, email_change_confirm_status = 0, \
           email_change_sent_at = $5, updated_at = $5 where id = $1",
    )
    .bind(user.id())
    .bind(new_email)
    .bind(&new_token)
    .bind(&current_token)
    .bind(now)
    .execute(&mut *conn)
    .await?;
    users::store_one_time_token(
        conn,
        user.id(),
        Side::New.column(),
        &new_token,
        new_email,
        now,
    )
    .await?;
    if current_token.is_empty() {
        forget_one_time_token(conn, user.id(), Side::Current).await?;
    } else {
        users::store_one_time_token(
            conn,
            user.id(),
            Side::Current.column(),
            &current_token,
            current,
            now,
        )
        .await?;
    }
    let link = |token: &str| {
        redirect::with_query(
            &format!("{}/verify", state.auth_base()),
            &[
                ("token", token),
                ("type", "email_change"),
                ("redirect_to", redirect_to),
            ],
        )
    };
    let body = |opening: String, token: &str, code: &str| {
        format!(
            "{opening}\n\n{}\n\nOr enter this code: {code}\n\nIf you did not ask for this, ignore this e-mail.\n",
            link(token)
        )
    };
    handlers::deliver(
        state,
        Mail {
            to: new_email.to_owned(),
            subject: "Confirm your new e-mail address".to_owned(),
            text: body(
                format!("Follow this link to make {new_email} the e-mail address of your account:"),
                &new_token,
                &new_code,
            ),
        },
    )
    .await?;
    if let Some(code) = current_code {
        handlers::deliver(
            state,
            Mail {
                to: current.to_owned(),
                subject: "Confirm the change of your e-mail address".to_owned(),
                text: body(
                    format!(
                        "Your account's e-mail address is to change from {current} to {new_email}. \
                         Follow this link to confirm it (the new address confirms it too):"
                    ),
                    &current_token,
                    &code,
                ),
            },
        )
        .await?;
    }
    Ok(())
}

/// `generate_link` of type `email_change_current` or `_new`: `token` (for
/// the current address or for `new_email`) becomes that side's token; the
/// other side's stays as it is, and the change waits for confirmations anew.
pub(crate) async fn store_side(
    conn: &mut PgConnection,
    user: &User,
    new_email: &str,
    side: Side,
    token: &str,
    now: DateTime<Utc>,
) -> Result<()> {
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "update auth.users set email_change = $2, {} = $3, email_change_confirm_status = 0, \
           email_change_sent_at = $4, updated_at = $4 where id = $1",
        side.column()
    )))
    .bind(user.id())
    .bind(new_email)
    .bind(token)
    .bind(now)
    .execute(&mut *conn)
    .await?;
    let relates_to = match side {
        Side::Current => user.row.email.as_str(),
        Side::New => new_email,
    };
    users::store_one_time_token(conn, user.id(), side.column(), token, relates_to, now).await
}

/// The user whose change token is `candidate`, and which side it is.
async fn holder(conn: &mut PgConnection, candidate: &str) -> Result<Option<(Uuid, Side)>> {
    let new: Option<Uuid> = sqlx::query_scalar(
        "select id from auth.users where email_change_token_new = $1 and deleted_at is null",
    )
    .bind(candidate)
    .fetch_optional(&mut *conn)
    .await?;
    if let Some(id) = new {
        return Ok(Some((id, Side::New)));
    }
    // The current side has no index of its own; its one-time token has.
    let current: Option<Uuid> = sqlx::query_scalar(
        "select u.id from auth.one_time_tokens t join auth.users u on u.id = t.user_id \
         where t.token_hash = $1 and t.token_type = 'email_change_token_current' \
           and u.email_change_token_current = $1 and u.deleted_at is null limit 1",
    )
    .bind(candidate)
    .fetch_optional(&mut *conn)
    .await?;
    Ok(current.map(|id| (id, Side::Current)))
}

/// Consumes a change token (`verify` of type `email_change`): `None` when it
/// was the first of the two confirmations, else the user with the new
/// address (and the PKCE auth code, for a PKCE flow's link).
pub(crate) async fn consume(
    state: &AuthState,
    conn: &mut PgConnection,
    candidates: &[String],
) -> Result<Option<Verified>> {
    for candidate in candidates {
        let Some((id, side)) = holder(conn, candidate).await? else {
            continue;
        };
        let row = sqlx::query(
            "select email, email_change, email_change_sent_at, email_change_confirm_status \
             from auth.users where id = $1 for update",
        )
        .bind(id)
        .fetch_one(&mut *conn)
        .await?;
        let sent_at: Option<DateTime<Utc>> = row.try_get("email_change_sent_at")?;
        let expired = sent_at.is_none_or(|at| {
            at + chrono::Duration::seconds(state.config().otp_expiry) < state.now()
        });
        if expired {
            return Err(handlers::otp_invalid());
        }
        let email: String = row
            .try_get::<Option<String>, _>("email")?
            .unwrap_or_default();
        let confirmations: i16 = row
            .try_get::<Option<i16>, _>("email_change_confirm_status")?
            .unwrap_or(0);
        let config = state.config();
        if config.secure_email_change
            && !config.mailer_autoconfirm
            && confirmations == 0
            && !email.is_empty()
        {
            sqlx::query(sqlx::AssertSqlSafe(format!(
                "update auth.users set email_change_confirm_status = 1, {} = '', updated_at = $2 \
                 where id = $1",
                side.column()
            )))
            .bind(id)
            .bind(state.now())
            .execute(&mut *conn)
            .await?;
            forget_one_time_token(conn, id, side).await?;
            return Ok(None);
        }
        let new_email = row
            .try_get::<Option<String>, _>("email_change")?
            .filter(|e| !e.is_empty())
            .ok_or_else(handlers::otp_invalid)?;
        set_email(state, conn, id, &new_email).await?;
        let auth_code = if candidate.starts_with(PKCE_PREFIX) {
            handlers::issue_email_flow_code(state, conn, id, FLOW_METHOD).await?
        } else {
            None
        };
        let user = users::find_by_id(conn, id)
            .await?
            .ok_or_else(handlers::otp_invalid)?;
        return Ok(Some(Verified {
            user,
            auth_code,
            method: "otp",
        }));
    }
    Err(handlers::otp_invalid())
}

/// Where `GET /verify` sends the browser after the first of two
/// confirmations: the redirect target with `message` in the fragment (and
/// in the query too, for a PKCE flow).
pub(crate) fn pending_redirect(redirect_to: &str, pkce: bool) -> String {
    let target = if pkce {
        redirect::with_query(redirect_to, &[("message", ONE_OF_TWO)])
    } else {
        redirect_to.to_owned()
    };
    redirect::with_fragment(&target, &[("message", ONE_OF_TWO)])
}

async fn forget_one_time_token(conn: &mut PgConnection, user_id: Uuid, side: Side) -> Result<()> {
    sqlx::query(
        "delete from auth.one_time_tokens where user_id = $1 and token_type = $2::auth.one_time_token_type",
    )
    .bind(user_id)
    .bind(side.column())
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Gives the user a new (confirmed) e-mail address, on the row and its
/// e-mail identity, and ends the change.
pub(crate) async fn set_email(
    state: &AuthState,
    conn: &mut PgConnection,
    user_id: Uuid,
    email: &str,
) -> Result<()> {
    let now = state.now();
    let result = sqlx::query(
        "update auth.users set email = $2, email_change = '', email_change_token_new = '', \
           email_change_token_current = '', email_change_confirm_status = 0, \
           email_confirmed_at = coalesce(email_confirmed_at, $3), updated_at = $3, is_anonymous = false \
         where id = $1",
    )
    .bind(user_id)
    .bind(email)
    .bind(now)
    .execute(&mut *conn)
    .await
    .map_err(AuthError::from);
    if let Err(e) = result {
        return Err(if handlers::is_unique_violation(&e) {
            handlers::email_exists()
        } else {
            e
        });
    }
    for side in [Side::Current, Side::New] {
        forget_one_time_token(conn, user_id, side).await?;
    }
    let inserted = users::upsert_identity(
        conn,
        user_id,
        "email",
        serde_json::json!({"email": email, "email_verified": true}),
        serde_json::json!({"sub": user_id.to_string(), "email": email, "email_verified": true, "phone_verified": false}),
        now,
    )
    .await?;
    if inserted {
        let app: Option<serde_json::Value> =
            sqlx::query_scalar("select raw_app_meta_data from auth.users where id = $1")
                .bind(user_id)
                .fetch_one(&mut *conn)
                .await?;
        sqlx::query("update auth.users set raw_app_meta_data = $2 where id = $1")
            .bind(user_id)
            .bind(users::add_provider(
                &app.unwrap_or(serde_json::Value::Null),
                "email",
            ))
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}
