//! Passkeys, as the platform offers them (supabase-js `auth.registerPasskey()`,
//! `auth.signInWithPasskey()`, `auth.passkey.*`, `auth.admin.passkey.*`):
//! `POST /passkeys/registration/options|verify` (a signed-in user adds one),
//! `POST /passkeys/authentication/options|verify` (anyone signs in with one,
//! naming nothing: the authenticator picks its credential and names the
//! user), `GET /passkeys`, `PATCH|DELETE /passkeys/{id}`, and the admin's
//! `GET /admin/users/{id}/passkeys`, `DELETE /admin/users/{id}/passkeys/{id}`.
//! The ceremonies are [`crate::mfa::webauthn`]'s (kanidm's webauthn-rs),
//! with the relying party of MFA's WebAuthn factors (`GOTRUE_WEBAUTHN_*`).
//!
//! **Invariants.**
//! * Off unless `GOTRUE_PASSKEY_ENABLED`: every `/passkeys` route answers 404
//!   `passkey_disabled` first.
//! * A ceremony's state is a row of `auth.webauthn_challenges`, deleted as
//!   its answer is read (right or wrong), so an answer is checked once;
//!   past `GOTRUE_WEBAUTHN_CHALLENGE_EXPIRY_DURATION` it is refused.
//! * A sign-in's credential is looked up by its id *and* the user its
//!   handle names; its counter must grow (a cloned authenticator is
//!   refused), and it is updated under the row's lock.
//! * A user with a verified MFA factor adds or removes passkeys only from
//!   an aal2 session. A passkey sign-in is aal1 (`amr` method `passkey`).

use std::time::Duration;

use axum::Json;
use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, patch, post};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{Value, json};
use sqlx::postgres::PgRow;
use sqlx::{PgConnection, Row};
use uuid::Uuid;

use crate::AuthState;
use crate::error::{AuthError, Result};
use crate::handlers::Input;
use crate::mfa::webauthn::{self, Refusal, RelyingParty, StoredCredential};
use crate::request::{self, Caller};
use crate::sessions::{self, NewSession};

/// The passkey settings.
#[derive(Debug, Clone)]
pub struct PasskeyConfig {
    /// `/passkeys` is served (`GOTRUE_PASSKEY_ENABLED`, default false, as on
    /// the platform); `/settings` reports it as `passkeys_enabled`.
    pub enabled: bool,
    /// Passkeys one user may have (`GOTRUE_PASSKEY_MAX_PASSKEYS_PER_USER`, 10).
    pub max_per_user: usize,
    /// How long a ceremony's options may be answered
    /// (`GOTRUE_WEBAUTHN_CHALLENGE_EXPIRY_DURATION`, default 5m).
    pub challenge_expiry: Duration,
    /// Sign-in options a client may ask for per 5 minutes
    /// (`GOTRUE_RATE_LIMIT_PASSKEY`, default 30).
    pub rate_limit: u32,
}

impl Default for PasskeyConfig {
    fn default() -> Self {
        Self {
            enabled: false,
            max_per_user: 10,
            challenge_expiry: Duration::from_secs(300),
            rate_limit: 30,
        }
    }
}

/// The routes of this module (merged into the auth router).
pub fn router(state: &AuthState) -> axum::Router<AuthState> {
    axum::Router::new()
        .route("/passkeys", get(list))
        .route("/passkeys/{passkey_id}", patch(rename).delete(remove))
        .route("/passkeys/registration/options", post(registration_options))
        .route("/passkeys/registration/verify", post(registration_verify))
        .route(
            "/passkeys/authentication/options",
            post(authentication_options),
        )
        .route(
            "/passkeys/authentication/verify",
            post(authentication_verify),
        )
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            require_enabled,
        ))
        .route("/admin/users/{id}/passkeys", get(admin_list))
        .route(
            "/admin/users/{id}/passkeys/{passkey_id}",
            delete(admin_delete),
        )
}

async fn require_enabled(State(state): State<AuthState>, request: Request, next: Next) -> Response {
    if state.config().passkeys.enabled {
        next.run(request).await
    } else {
        AuthError::not_found("passkey_disabled", "Passkeys are disabled").into_response()
    }
}

fn relying_party(state: &AuthState) -> Result<RelyingParty> {
    let rp = RelyingParty::from_config(&state.config().mfa);
    if rp.is_configured() {
        Ok(rp)
    } else {
        Err(AuthError::internal(
            "passkeys need GOTRUE_WEBAUTHN_RP_ID and GOTRUE_WEBAUTHN_RP_ORIGINS",
        ))
    }
}

fn failed(message: &'static str) -> AuthError {
    AuthError::bad_request("webauthn_verification_failed", message)
}

/// A refused answer: one that does not read, or one that does not verify.
fn refused(refusal: &Refusal) -> AuthError {
    tracing::debug!(%refusal, "passkey answer refused");
    match refusal {
        Refusal::Malformed => failed("Invalid credential response"),
        _ => failed("Credential verification failed"),
    }
}

fn not_found() -> AuthError {
    AuthError::not_found("validation_failed", "Passkey not found")
}

fn aaguid_name(aaguid: Option<Uuid>) -> &'static str {
    // The names of the passkey providers users meet most (the
    // community's AAGUID list); any other is a "Passkey".
    const KNOWN: [(&str, &str); 8] = [
        (
            "ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4",
            "Google Password Manager",
        ),
        ("adce0002-35bc-c60a-648b-0b25f1f05503", "Chrome on Mac"),
        ("fbfc3007-154e-4ecc-8c0b-6e020557d7bd", "iCloud Keychain"),
        ("08987058-cadc-4b81-b6e1-30de50dcbe96", "Windows Hello"),
        ("9ddd1817-af5a-4672-a2b9-3e3dd95000a9", "Windows Hello"),
        ("bada5566-a7aa-401f-bd96-45619a55120d", "1Password"),
        ("d548826e-79b4-db40-a3d8-11116f7e8349", "Bitwarden"),
        ("531126d6-e717-415c-9320-3d9aa6981239", "Dashlane"),
    ];
    let text = aaguid.map(|a| a.to_string()).unwrap_or_default();
    KNOWN
        .iter()
        .find(|(id, _)| *id == text)
        .map_or("Passkey", |(_, name)| name)
}

// ------------------------------------------------------------ ceremonies

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct VerifyBody {
    challenge_id: String,
    credential: Option<Value>,
}

impl VerifyBody {
    fn read(input: &Input) -> Result<(Uuid, Value)> {
        let body: Self = input.json()?;
        if body.challenge_id.is_empty() {
            return Err(AuthError::validation("challenge_id is required"));
        }
        let credential = body
            .credential
            .ok_or_else(|| AuthError::validation("credential is required"))?;
        let id = Uuid::parse_str(&body.challenge_id)
            .map_err(|_| AuthError::validation("challenge_id must be a valid UUID"))?;
        Ok((id, credential))
    }
}

/// Keeps a ceremony's state; its id and deadline. Ceremonies nobody
/// finished go once they are past answering.
async fn store_challenge(
    state: &AuthState,
    user_id: Option<Uuid>,
    kind: &str,
    ceremony: Value,
) -> Result<(Uuid, DateTime<Utc>)> {
    let now = state.now();
    let expiry = chrono::Duration::from_std(state.config().passkeys.challenge_expiry)
        .unwrap_or(chrono::Duration::MAX);
    let expires_at = now + expiry;
    let id = Uuid::new_v4();
    let mut conn = state.db().owner.acquire().await?;
    sqlx::query(
        "with gone as (delete from auth.webauthn_challenges where expires_at < $5) \
         insert into auth.webauthn_challenges \
           (id, user_id, challenge_type, session_data, created_at, expires_at) \
         values ($1, $2, $3, $4, $5, $6)",
    )
    .bind(id)
    .bind(user_id)
    .bind(kind)
    .bind(ceremony)
    .bind(now)
    .bind(expires_at)
    .execute(&mut *conn)
    .await?;
    Ok((id, expires_at))
}

/// Takes a ceremony's state (its row goes: an answer is checked once).
async fn take_challenge(
    state: &AuthState,
    id: Uuid,
    kind: &str,
    user_id: Option<Uuid>,
) -> Result<Value> {
    let mut conn = state.db().owner.acquire().await?;
    let row = sqlx::query(
        "delete from auth.webauthn_challenges \
         where id = $1 and challenge_type = $2 and user_id is not distinct from $3 \
         returning session_data, expires_at",
    )
    .bind(id)
    .bind(kind)
    .bind(user_id)
    .fetch_optional(&mut *conn)
    .await?
    .ok_or_else(|| {
        AuthError::bad_request(
            "webauthn_challenge_not_found",
            "Challenge not found or already used",
        )
    })?;
    let expires_at: DateTime<Utc> = row.try_get("expires_at")?;
    if expires_at < state.now() {
        return Err(AuthError::bad_request(
            "webauthn_challenge_expired",
            "Challenge has expired",
        ));
    }
    Ok(row.try_get("session_data")?)
}

// ---------------------------------------------------------- registration

/// A signed-in user who may add or remove passkeys: not anonymous, and at
/// aal2 when they have a verified factor.
async fn manager(state: &AuthState, input: &Input) -> Result<Caller> {
    let caller = request::caller(state, &input.headers).await?;
    if caller.user.row.is_anonymous {
        return Err(AuthError::forbidden(
            "no_authorization",
            "Anonymous user not allowed to perform these actions",
        ));
    }
    require_management_aal(state, &caller).await?;
    Ok(caller)
}

async fn require_management_aal(state: &AuthState, caller: &Caller) -> Result<()> {
    let mut conn = state.db().owner.acquire().await?;
    if crate::mfa::needs_aal2(&mut conn, caller.user.id(), caller.session_id).await? {
        return Err(AuthError::forbidden(
            "insufficient_aal",
            "AAL2 session is required to manage passkeys when MFA is enabled",
        ));
    }
    Ok(())
}

/// SSO users keep their identity provider's sign-in: no passkeys.
async fn refuse_sso(conn: &mut PgConnection, user: Uuid) -> Result<()> {
    let sso: Option<bool> = sqlx::query_scalar("select is_sso_user from auth.users where id = $1")
        .bind(user)
        .fetch_optional(&mut *conn)
        .await?;
    if sso == Some(true) {
        return Err(AuthError::unprocessable(
            "validation_failed",
            "SSO users cannot register passkeys",
        ));
    }
    Ok(())
}

/// The user's passkeys' credential ids; 422 `too_many_passkeys` at the limit.
async fn below_limit(
    state: &AuthState,
    conn: &mut PgConnection,
    user: Uuid,
) -> Result<Vec<Vec<u8>>> {
    let ids: Vec<Vec<u8>> = sqlx::query_scalar(
        "select credential_id from auth.webauthn_credentials where user_id = $1 \
         order by created_at",
    )
    .bind(user)
    .fetch_all(&mut *conn)
    .await?;
    if ids.len() >= state.config().passkeys.max_per_user {
        return Err(AuthError::unprocessable(
            "too_many_passkeys",
            "Maximum number of passkeys reached",
        ));
    }
    Ok(ids)
}

/// `POST /passkeys/registration/options`.
async fn registration_options(State(state): State<AuthState>, input: Input) -> Result<Response> {
    let caller = manager(&state, &input).await?;
    let user = &caller.user;
    let mut conn = state.db().owner.acquire().await?;
    refuse_sso(&mut conn, user.id()).await?;
    let exclude = below_limit(&state, &mut conn, user.id()).await?;
    drop(conn);
    let rp = relying_party(&state)?;
    // The platform's user entity: the id's text as handle, the e-mail (or
    // phone) as name, `user_metadata.name` as display name.
    let handle = user.id().to_string();
    let name = [&user.row.email, &user.row.phone]
        .into_iter()
        .find(|n| !n.is_empty())
        .unwrap_or(&handle);
    let display_name = user.row.user_metadata["name"]
        .as_str()
        .filter(|n| !n.is_empty())
        .unwrap_or(name);
    let entity = webauthn::UserEntity {
        handle: handle.as_bytes(),
        name,
        display_name,
    };
    let expiry = state.config().passkeys.challenge_expiry;
    let (options, ceremony) = webauthn::start_registration(&rp, expiry, &entity, exclude, true)
        .map_err(|e| AuthError::internal(e.to_string()))?;
    let (id, expires_at) =
        store_challenge(&state, Some(user.id()), "registration", ceremony).await?;
    Ok(Json(json!({
        "challenge_id": id,
        "options": options,
        "expires_at": expires_at.timestamp(),
    }))
    .into_response())
}

/// `POST /passkeys/registration/verify`: the new passkey.
async fn registration_verify(State(state): State<AuthState>, input: Input) -> Result<Response> {
    let caller = manager(&state, &input).await?;
    let user_id = caller.user.id();
    let mut conn = state.db().owner.acquire().await?;
    refuse_sso(&mut conn, user_id).await?;
    drop(conn);
    let (challenge_id, response) = VerifyBody::read(&input)?;
    let ceremony = take_challenge(&state, challenge_id, "registration", Some(user_id)).await?;
    let rp = relying_party(&state)?;
    let registered = match webauthn::finish_registration(&rp, &ceremony, &response) {
        Ok(credential) => credential,
        Err(refusal) => {
            // The library refuses a credential the options excluded (one
            // of this user's): say it is registered, as the platform does.
            if matches!(refusal, Refusal::Failed(_))
                && let Some(id) = webauthn::raw_id(&response)
                && credential_exists(&state, &id).await?
            {
                return Err(already_registered());
            }
            return Err(refused(&refusal));
        }
    };
    let friendly_name = aaguid_name(registered.aaguid);
    let mut tx = state.db().owner.begin().await?;
    // The limit again, under a lock of the user's row: two registrations at
    // once cannot both pass it.
    sqlx::query("select 1 from auth.users where id = $1 for update")
        .bind(user_id)
        .execute(&mut *tx)
        .await?;
    below_limit(&state, &mut tx, user_id).await?;
    let now = state.now();
    let inserted = sqlx::query(
        "insert into auth.webauthn_credentials (id, user_id, credential_id, public_key, \
           attestation_type, aaguid, sign_count, transports, backup_eligible, backed_up, \
           friendly_name, created_at, updated_at, user_verified) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $13)",
    )
    .bind(Uuid::new_v4())
    .bind(user_id)
    .bind(&registered.id)
    .bind(&registered.public_key)
    .bind(&registered.attestation_type)
    .bind(registered.aaguid)
    .bind(i64::from(registered.sign_count))
    .bind(json!(registered.transports))
    .bind(registered.backup_eligible)
    .bind(registered.backed_up)
    .bind(friendly_name)
    .bind(now)
    .bind(registered.user_verified)
    .execute(&mut *tx)
    .await;
    match inserted {
        Err(e) if is_unique_violation(&e) => return Err(already_registered()),
        other => other?,
    };
    let row = sqlx::query(sqlx::AssertSqlSafe(format!(
        "select {ITEM_COLUMNS} from auth.webauthn_credentials where credential_id = $1"
    )))
    .bind(&registered.id)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    let mut reply = item(&row)?;
    if let Some(reply) = reply.as_object_mut() {
        reply.remove("last_used_at");
    }
    Ok(Json(reply).into_response())
}

fn already_registered() -> AuthError {
    AuthError::unprocessable(
        "webauthn_credential_exists",
        "This credential is already registered",
    )
}

fn is_unique_violation(error: &sqlx::Error) -> bool {
    error
        .as_database_error()
        .is_some_and(|e| e.code().as_deref() == Some("23505"))
}

async fn credential_exists(state: &AuthState, id: &[u8]) -> Result<bool> {
    let mut conn = state.db().owner.acquire().await?;
    Ok(sqlx::query_scalar(
        "select exists (select 1 from auth.webauthn_credentials where credential_id = $1)",
    )
    .bind(id)
    .fetch_one(&mut *conn)
    .await?)
}

// -------------------------------------------------------- authentication

/// `POST /passkeys/authentication/options`: a discoverable sign-in (no
/// credentials named), counted per client.
async fn authentication_options(State(state): State<AuthState>, input: Input) -> Result<Response> {
    crate::ratelimit::limit_request(&state, &input, crate::ratelimit::Limited::Passkey)?;
    let rp = relying_party(&state)?;
    let expiry = state.config().passkeys.challenge_expiry;
    let (options, ceremony) = webauthn::start_authentication(&rp, expiry, &[])
        .map_err(|e| AuthError::internal(e.to_string()))?;
    let (id, expires_at) = store_challenge(&state, None, "authentication", ceremony).await?;
    Ok(Json(json!({
        "challenge_id": id,
        "options": options,
        "expires_at": expires_at.timestamp(),
    }))
    .into_response())
}

/// `POST /passkeys/authentication/verify`: a session (aal1, `amr` `passkey`).
async fn authentication_verify(State(state): State<AuthState>, input: Input) -> Result<Response> {
    let (challenge_id, response) = VerifyBody::read(&input)?;
    let ceremony = take_challenge(&state, challenge_id, "authentication", None).await?;
    let (credential_id, handle) = webauthn::assertion_ids(&response).map_err(|e| refused(&e))?;
    // The user the authenticator names; the credential must be theirs.
    let user_id = handle
        .and_then(|h| String::from_utf8(h).ok())
        .and_then(|h| Uuid::parse_str(&h).ok())
        .ok_or_else(|| failed("Credential verification failed"))?;
    let rp = relying_party(&state)?;
    let mut tx = state.db().owner.begin().await?;
    let row = sqlx::query(
        "select id, credential_id, public_key, attestation_type, aaguid, sign_count, \
           transports, backup_eligible, backed_up, user_verified \
         from auth.webauthn_credentials where credential_id = $1 and user_id = $2 for update",
    )
    .bind(&credential_id)
    .bind(user_id)
    .fetch_optional(&mut *tx)
    .await?
    .ok_or_else(|| failed("Credential verification failed"))?;
    let passkey_id: Uuid = row.try_get("id")?;
    let stored = stored_of(&row)?;
    let user = crate::users::find_by_id(&mut tx, user_id)
        .await?
        .ok_or_else(|| failed("Credential verification failed"))?;
    let asserted = webauthn::finish_authentication(&rp, &ceremony, &stored, &response)
        .map_err(|e| refused(&e))?;
    let row = &user.row;
    if !row.email.is_empty() && row.email_confirmed_at.is_none() {
        return Err(AuthError::forbidden(
            "email_not_confirmed",
            "Email not confirmed",
        ));
    }
    if !row.phone.is_empty() && row.phone_confirmed_at.is_none() {
        return Err(AuthError::forbidden(
            "phone_not_confirmed",
            "Phone not confirmed",
        ));
    }
    if row.is_banned(state.now()) {
        return Err(AuthError::forbidden("user_banned", "User is banned"));
    }
    let now = state.now();
    sqlx::query(
        "update auth.webauthn_credentials set sign_count = $2, backup_eligible = $3, \
           backed_up = $4, last_used_at = $5, updated_at = $5 where id = $1",
    )
    .bind(passkey_id)
    .bind(i64::from(asserted.sign_count))
    .bind(asserted.backup_eligible)
    .bind(asserted.backed_up)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    let new = NewSession {
        method: "passkey",
        user_agent: request::user_agent(&input.headers),
        ip: Some(input.ip.clone()),
        ..Default::default()
    };
    let session = sessions::create(&state, &mut tx, &user, new).await?;
    tx.commit().await?;
    Ok(Json(session).into_response())
}

fn stored_of(row: &PgRow) -> Result<StoredCredential> {
    let transports: Value = row.try_get("transports")?;
    let sign_count: i64 = row.try_get("sign_count")?;
    Ok(StoredCredential {
        id: row.try_get("credential_id")?,
        public_key: row.try_get("public_key")?,
        attestation_type: row.try_get("attestation_type")?,
        aaguid: row.try_get("aaguid")?,
        sign_count: u32::try_from(sign_count).unwrap_or(u32::MAX),
        transports: transports
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|t| t.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default(),
        backup_eligible: row.try_get("backup_eligible")?,
        backed_up: row.try_get("backed_up")?,
        user_verified: row.try_get("user_verified")?,
    })
}

// ----------------------------------------------------------- management

const ITEM_COLUMNS: &str = "id, friendly_name, created_at, last_used_at";

/// A passkey as the list shows it (no key material).
fn item(row: &PgRow) -> Result<Value> {
    let mut out = json!({
        "id": row.try_get::<Uuid, _>("id")?,
        "created_at": row.try_get::<DateTime<Utc>, _>("created_at")?,
    });
    let name: String = row.try_get("friendly_name")?;
    if !name.is_empty() {
        out["friendly_name"] = json!(name);
    }
    if let Some(at) = row.try_get::<Option<DateTime<Utc>>, _>("last_used_at")? {
        out["last_used_at"] = json!(at);
    }
    Ok(out)
}

async fn items(conn: &mut PgConnection, user_id: Uuid) -> Result<Value> {
    let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
        "select {ITEM_COLUMNS} from auth.webauthn_credentials where user_id = $1 \
         order by created_at, id"
    )))
    .bind(user_id)
    .fetch_all(&mut *conn)
    .await?;
    Ok(Value::Array(rows.iter().map(item).collect::<Result<_>>()?))
}

/// `GET /passkeys`.
async fn list(State(state): State<AuthState>, input: Input) -> Result<Response> {
    let caller = request::caller(&state, &input.headers).await?;
    let mut conn = state.db().owner.acquire().await?;
    Ok(Json(items(&mut conn, caller.user.id()).await?).into_response())
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RenameBody {
    friendly_name: String,
}

/// `PATCH /passkeys/{id}`: a new friendly name.
async fn rename(
    State(state): State<AuthState>,
    Path(passkey_id): Path<String>,
    input: Input,
) -> Result<Response> {
    let caller = request::caller(&state, &input.headers).await?;
    let passkey_id = Uuid::parse_str(&passkey_id).map_err(|_| not_found())?;
    let body: RenameBody = input.json()?;
    if body.friendly_name.is_empty() {
        return Err(AuthError::validation("friendly_name is required"));
    }
    if body.friendly_name.len() > 120 {
        return Err(AuthError::validation(
            "friendly_name must be 120 characters or less",
        ));
    }
    let mut conn = state.db().owner.acquire().await?;
    let row = sqlx::query(sqlx::AssertSqlSafe(format!(
        "update auth.webauthn_credentials set friendly_name = $3, updated_at = $4 \
         where id = $1 and user_id = $2 returning {ITEM_COLUMNS}"
    )))
    .bind(passkey_id)
    .bind(caller.user.id())
    .bind(&body.friendly_name)
    .bind(state.now())
    .fetch_optional(&mut *conn)
    .await?
    .ok_or_else(not_found)?;
    Ok(Json(item(&row)?).into_response())
}

/// Deletes passkey `id` of `user_id`: 204, or 404 when there is none.
async fn delete_passkey(conn: &mut PgConnection, user_id: Uuid, id: &str) -> Result<Response> {
    let id = Uuid::parse_str(id).map_err(|_| not_found())?;
    let gone = sqlx::query("delete from auth.webauthn_credentials where id = $1 and user_id = $2")
        .bind(id)
        .bind(user_id)
        .execute(&mut *conn)
        .await?
        .rows_affected();
    if gone == 0 {
        return Err(not_found());
    }
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `DELETE /passkeys/{id}`.
async fn remove(
    State(state): State<AuthState>,
    Path(passkey_id): Path<String>,
    input: Input,
) -> Result<Response> {
    let caller = request::caller(&state, &input.headers).await?;
    require_management_aal(&state, &caller).await?;
    let mut conn = state.db().owner.acquire().await?;
    delete_passkey(&mut conn, caller.user.id(), &passkey_id).await
}

// ---------------------------------------------------------------- admin

/// `GET /admin/users/{id}/passkeys`.
async fn admin_list(
    State(state): State<AuthState>,
    Path(id): Path<String>,
    input: Input,
) -> Result<Response> {
    request::require_admin(&state, &input.headers)?;
    let mut conn = state.db().owner.acquire().await?;
    let user_id = crate::users::admin_path_user(&mut conn, &id).await?;
    Ok(Json(items(&mut conn, user_id).await?).into_response())
}

/// `DELETE /admin/users/{id}/passkeys/{passkey_id}`.
async fn admin_delete(
    State(state): State<AuthState>,
    Path((id, passkey_id)): Path<(String, String)>,
    input: Input,
) -> Result<Response> {
    request::require_admin(&state, &input.headers)?;
    let mut conn = state.db().owner.acquire().await?;
    let user_id = crate::users::admin_path_user(&mut conn, &id).await?;
    delete_passkey(&mut conn, user_id, &passkey_id).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_providers_are_named_and_others_are_passkeys() {
        let google = Uuid::parse_str("ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4").ok();
        assert_eq!(aaguid_name(google), "Google Password Manager");
        assert_eq!(aaguid_name(Some(Uuid::nil())), "Passkey");
        assert_eq!(aaguid_name(None), "Passkey");
    }
}
