//! Sessions, refresh tokens and access tokens.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use sqlx::{PgConnection, Row};
use uuid::Uuid;

use crate::AuthState;
use crate::error::{AuthError, Result};
use crate::users::{INSTANCE_ID, User};

/// Length of opaque refresh tokens.
const REFRESH_TOKEN_LEN: usize = 40;

/// What a new session is for.
#[derive(Debug, Clone, Default)]
pub struct NewSession {
    /// The `amr` method: `password`, `otp`, `oauth`, `anonymous`, ...
    pub method: &'static str,
    pub user_agent: Option<String>,
    pub ip: Option<String>,
    /// The provider's tokens after an OAuth sign-in.
    pub provider_token: Option<String>,
    pub provider_refresh_token: Option<String>,
}

/// The OAuth client a session was issued to (the OAuth server's code
/// exchange) and the scopes granted: its access tokens carry `client_id` and
/// `scope`, and its refresh token works only with that client's credentials.
#[derive(Debug, Clone)]
pub struct OAuthGrant {
    pub client_id: Uuid,
    pub scopes: String,
}

/// Creates a session for `user` and answers the Session JSON. The writes are
/// one statement: atomic with or without a transaction around it.
pub async fn create(
    state: &AuthState,
    conn: &mut PgConnection,
    user: &User,
    new: NewSession,
) -> Result<Value> {
    create_for_client(state, conn, user, new, None).await
}

/// [`create`], for an OAuth client when `grant` is given.
pub async fn create_for_client(
    state: &AuthState,
    conn: &mut PgConnection,
    user: &User,
    new: NewSession,
    grant: Option<&OAuthGrant>,
) -> Result<Value> {
    let now = state.now();
    let session_id = Uuid::new_v4();
    let refresh_token = plinth_db::random_token(REFRESH_TOKEN_LEN);
    // One statement (atomic on its own, one round trip): the session, its
    // sign-in method, its first refresh token, and the user's last sign-in.
    sqlx::query(
        "with session as ( \
           insert into auth.sessions (id, user_id, created_at, updated_at, aal, refreshed_at, \
             user_agent, ip, oauth_client_id, scopes) \
           values ($1, $2, $3, $3, 'aal1', $4, $5, $6::inet, $7, $8) returning id), \
         claim as ( \
           insert into auth.mfa_amr_claims (session_id, created_at, updated_at, \
             authentication_method, id) \
           select id, $3, $3, $9, $10 from session), \
         token as ( \
           insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, \
             updated_at, parent, session_id) \
           select $11, $12, $13, false, $3, $3, null, id from session) \
         update auth.users set last_sign_in_at = $3, updated_at = $3 where id = $2",
    )
    .bind(session_id)
    .bind(user.id())
    .bind(now)
    .bind(now.naive_utc())
    .bind(&new.user_agent)
    .bind(
        new.ip
            .as_deref()
            .filter(|ip| ip.parse::<std::net::IpAddr>().is_ok()),
    )
    .bind(grant.map(|g| g.client_id))
    .bind(grant.map(|g| g.scopes.as_str()))
    .bind(new.method)
    .bind(Uuid::new_v4())
    .bind(INSTANCE_ID)
    .bind(&refresh_token)
    .bind(user.id().to_string())
    .execute(&mut *conn)
    .await?;
    let mut user = user.clone();
    user.row.last_sign_in_at = Some(now);
    let amr = vec![(new.method.to_owned(), now.timestamp())];
    let mut body = response(state, &user, session_id, &amr, &refresh_token, grant);
    if let Some(token) = new.provider_token {
        body["provider_token"] = json!(token);
    }
    if let Some(token) = new.provider_refresh_token {
        body["provider_refresh_token"] = json!(token);
    }
    Ok(body)
}

async fn insert_refresh_token(
    conn: &mut PgConnection,
    user_id: Uuid,
    session_id: Uuid,
    parent: Option<&str>,
    now: DateTime<Utc>,
) -> Result<String> {
    let token = plinth_db::random_token(REFRESH_TOKEN_LEN);
    sqlx::query(
        "insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id) \
         values ($1, $2, $3, false, $4, $4, $5, $6)",
    )
    .bind(INSTANCE_ID)
    .bind(&token)
    .bind(user_id.to_string())
    .bind(now)
    .bind(parent)
    .bind(session_id)
    .execute(&mut *conn)
    .await?;
    Ok(token)
}

/// The `amr` entries of a session.
async fn amr_of(conn: &mut PgConnection, session_id: Uuid) -> Result<Vec<(String, i64)>> {
    let rows = sqlx::query(
        "select authentication_method, updated_at from auth.mfa_amr_claims where session_id = $1 \
         order by updated_at desc, authentication_method",
    )
    .bind(session_id)
    .fetch_all(&mut *conn)
    .await?;
    rows.iter()
        .map(|r| {
            let at: DateTime<Utc> = r.try_get("updated_at")?;
            Ok((r.try_get("authentication_method")?, at.timestamp()))
        })
        .collect::<sqlx::Result<Vec<_>>>()
        .map_err(Into::into)
}

/// The Session JSON for an existing session and refresh token.
fn response(
    state: &AuthState,
    user: &User,
    session_id: Uuid,
    amr: &[(String, i64)],
    refresh_token: &str,
    grant: Option<&OAuthGrant>,
) -> Value {
    let (access_token, expires_at) = match grant {
        None => access_token(state, user, session_id, amr),
        Some(grant) => access_token_for(state, user, session_id, amr, Some(grant)),
    };
    json!({
        "access_token": access_token,
        "token_type": "bearer",
        "expires_in": state.config().jwt_expiry,
        "expires_at": expires_at,
        "refresh_token": refresh_token,
        "user": user.to_json(),
    })
}

/// A signed access token for `user` in `session_id`, and its expiry.
pub fn access_token(
    state: &AuthState,
    user: &User,
    session_id: Uuid,
    amr: &[(String, i64)],
) -> (String, i64) {
    access_token_for(state, user, session_id, amr, None)
}

/// [`access_token`], with `client_id` and `scope` for an OAuth client's session.
pub fn access_token_for(
    state: &AuthState,
    user: &User,
    session_id: Uuid,
    amr: &[(String, i64)],
    grant: Option<&OAuthGrant>,
) -> (String, i64) {
    let iat = state.clock().timestamp();
    let exp = iat + state.config().jwt_expiry;
    let r = &user.row;
    let mut claims = json!({
        "iss": format!("{}/auth/v1", state.config().api_external_url.trim_end_matches('/')),
        "sub": r.id,
        "aud": r.token_aud(),
        "exp": exp,
        "iat": iat,
        "email": r.email,
        "phone": r.phone,
        "app_metadata": r.app_metadata,
        "user_metadata": r.user_metadata,
        "role": r.token_role(),
        "aal": crate::mfa::aal_of(amr),
        "amr": amr.iter().map(|(m, t)| json!({"method": m, "timestamp": t})).collect::<Vec<_>>(),
        "session_id": session_id,
        "is_anonymous": r.is_anonymous,
    });
    if let Some(grant) = grant {
        claims["client_id"] = json!(grant.client_id);
        claims["scope"] = json!(grant.scopes);
    }
    (state.jwt().sign(&claims), exp)
}

fn refresh_not_found() -> AuthError {
    AuthError::bad_request(
        "refresh_token_not_found",
        "Invalid Refresh Token: Refresh Token Not Found",
    )
}

/// The refresh-token grant: rotates `token` and answers a new Session.
///
/// A token already rotated is accepted again within the reuse interval (it
/// answers with the session's current token); later, its whole session is
/// revoked and the answer is `refresh_token_already_used`.
pub async fn refresh(state: &AuthState, token: &str) -> Result<Value> {
    refresh_for_client(state, token, None).await
}

/// [`refresh`] by an OAuth client (`client`, authenticated by the caller):
/// a session issued to an OAuth client is refreshed only by that client,
/// any other only without one (`invalid_client`, as the platform).
pub async fn refresh_for_client(
    state: &AuthState,
    token: &str,
    client: Option<Uuid>,
) -> Result<Value> {
    let now = state.now();
    let mut tx = state.db().owner.begin().await?;
    let row = sqlx::query(
        "select rt.id, rt.revoked, rt.updated_at, rt.session_id, s.user_id, s.not_after, \
                s.oauth_client_id, s.scopes \
         from auth.refresh_tokens rt join auth.sessions s on s.id = rt.session_id \
         where rt.token = $1 for update of rt, s",
    )
    .bind(token)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(row) = row else {
        return Err(refresh_not_found());
    };
    let token_id: i64 = row.try_get("id")?;
    let revoked: Option<bool> = row.try_get("revoked")?;
    let updated_at: Option<DateTime<Utc>> = row.try_get("updated_at")?;
    let session_id: Uuid = row.try_get("session_id")?;
    let user_id: Uuid = row.try_get("user_id")?;
    let not_after: Option<DateTime<Utc>> = row.try_get("not_after")?;
    let session_client: Option<Uuid> = row.try_get("oauth_client_id")?;
    let grant = match (session_client, client) {
        (Some(_), None) => {
            return Err(AuthError::oauth(
                "invalid_client",
                "Client authentication required for OAuth session",
            ));
        }
        (Some(owner), Some(client)) if owner != client => {
            return Err(AuthError::oauth(
                "invalid_client",
                "Client does not match the session's OAuth client",
            ));
        }
        (None, Some(_)) => {
            return Err(AuthError::oauth(
                "invalid_client",
                "Client authentication not allowed for non-OAuth session",
            ));
        }
        (Some(client_id), Some(_)) => Some(OAuthGrant {
            client_id,
            scopes: row
                .try_get::<Option<String>, _>("scopes")?
                .unwrap_or_default(),
        }),
        (None, None) => None,
    };

    if not_after.is_some_and(|t| t <= now) {
        return Err(AuthError::bad_request(
            "session_expired",
            "Invalid Refresh Token: Session Expired",
        ));
    }
    let Some(user) = crate::users::find_by_id(&mut tx, user_id).await? else {
        return Err(refresh_not_found());
    };
    if user.row.is_banned(now) {
        return Err(AuthError::bad_request(
            "user_banned",
            "Invalid Refresh Token: User Banned",
        ));
    }

    let new_token = if revoked.unwrap_or(false) {
        let within = updated_at.is_some_and(|at| {
            now - at < chrono::Duration::seconds(state.config().refresh_token_reuse_interval)
        });
        let current: Option<String> = sqlx::query_scalar(
            "select token from auth.refresh_tokens where session_id = $1 and revoked = false \
             order by id desc limit 1",
        )
        .bind(session_id)
        .fetch_optional(&mut *tx)
        .await?;
        match current {
            Some(current) if within => current,
            _ => {
                // Reuse of a rotated token: someone else may hold it. End the session.
                sqlx::query("delete from auth.sessions where id = $1")
                    .bind(session_id)
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
                tracing::warn!(%session_id, "refresh token reused; session revoked");
                return Err(AuthError::bad_request(
                    "refresh_token_already_used",
                    "Invalid Refresh Token: Already Used",
                ));
            }
        }
    } else {
        sqlx::query("update auth.refresh_tokens set revoked = true, updated_at = $2 where id = $1")
            .bind(token_id)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        let new_token =
            insert_refresh_token(&mut tx, user_id, session_id, Some(token), now).await?;
        sqlx::query("update auth.sessions set refreshed_at = $2, updated_at = $3 where id = $1")
            .bind(session_id)
            .bind(now.naive_utc())
            .bind(now)
            .execute(&mut *tx)
            .await?;
        new_token
    };
    let amr = amr_of(&mut tx, session_id).await?;
    tx.commit().await?;
    Ok(response(
        state,
        &user,
        session_id,
        &amr,
        &new_token,
        grant.as_ref(),
    ))
}

/// A new Session for an existing session after it passed a second factor
/// (MFA verify): its current refresh token is rotated, the access token
/// carries the session's amr and aal now.
pub async fn reissue(
    state: &AuthState,
    conn: &mut PgConnection,
    user: &User,
    session_id: Uuid,
) -> Result<Value> {
    let now = state.now();
    let current: Option<String> = sqlx::query_scalar(
        "select token from auth.refresh_tokens where session_id = $1 and revoked = false \
         order by id desc limit 1",
    )
    .bind(session_id)
    .fetch_optional(&mut *conn)
    .await?;
    sqlx::query(
        "update auth.refresh_tokens set revoked = true, updated_at = $2 \
         where session_id = $1 and revoked = false",
    )
    .bind(session_id)
    .bind(now)
    .execute(&mut *conn)
    .await?;
    let token = insert_refresh_token(conn, user.id(), session_id, current.as_deref(), now).await?;
    let amr = amr_of(conn, session_id).await?;
    Ok(response(state, user, session_id, &amr, &token, None))
}

/// Whether a session exists.
pub async fn exists(conn: &mut PgConnection, session_id: Uuid) -> Result<bool> {
    Ok(
        sqlx::query_scalar("select exists (select 1 from auth.sessions where id = $1)")
            .bind(session_id)
            .fetch_one(&mut *conn)
            .await?,
    )
}
