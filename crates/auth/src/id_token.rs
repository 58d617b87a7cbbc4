//! `POST /token?grant_type=id_token`: sign in with an ID token a native app
//! got from Google or Apple (supabase-js `signInWithIdToken`), as the
//! platform does.
//!
//! The token must be signed by a key of the provider's published key set
//! (fetched from its JWKS URL, cached), name the provider as issuer and one
//! of the configured client ids as audience, be unexpired, and, when the app
//! passed a nonce, carry the hex SHA-256 of that nonce (replayed tokens for
//! another sign-in attempt fail). Its `sub` is the identity; an identity
//! seen before signs its owner in, a verified e-mail address links to the
//! account with that address, else a new account is made.
//!
//! Also here: [`sign_in_identity`], the account decision for any external
//! identity (the web3 grant uses it too).

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};
use std::time::{Duration, Instant};

use axum::response::{IntoResponse, Response};
use base64::Engine;
use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use sqlx::PgConnection;
use uuid::Uuid;

use crate::AuthState;
use crate::config::IdTokenProvider;
use crate::error::{AuthError, Result};
use crate::handlers::{Input, NewUser, insert_user};
use crate::sessions::{self, NewSession};
use crate::users::{self, User};

#[derive(Debug, Deserialize)]
struct IdTokenGrant {
    id_token: Option<String>,
    access_token: Option<String>,
    nonce: Option<String>,
    provider: Option<String>,
    client_id: Option<String>,
    issuer: Option<String>,
    link_identity: Option<bool>,
}

/// The platform's refusals of this grant are OAuth errors with the error
/// `invalid request` (sic, with a space).
fn invalid(description: impl Into<String>) -> AuthError {
    AuthError::oauth("invalid request", description)
}

fn bad_id_token() -> AuthError {
    invalid("Bad ID token")
}

/// The grant; answers a Session (or the refusal).
pub async fn grant(state: &AuthState, input: &Input) -> Response {
    match run(state, input).await {
        Ok(session) => axum::Json(session).into_response(),
        Err(error) => error.into_response(),
    }
}

async fn run(state: &AuthState, input: &Input) -> Result<Value> {
    let params: IdTokenGrant = input.json()?;
    let id_token = params
        .id_token
        .as_deref()
        .filter(|t| !t.is_empty())
        .ok_or_else(|| invalid("id_token required"))?;
    let provider = params.provider.as_deref().unwrap_or("");
    let issuer = params.issuer.as_deref().unwrap_or("");
    if provider.is_empty()
        && (params.client_id.as_deref().unwrap_or("").is_empty() || issuer.is_empty())
    {
        return Err(invalid("provider or client_id and issuer required"));
    }
    let link_to = if params.link_identity.unwrap_or(false) {
        if input
            .headers
            .get(axum::http::header::AUTHORIZATION)
            .is_none()
        {
            return Err(invalid(
                "Linking requires a valid user access token in Authorization",
            ));
        }
        Some(crate::request::caller(state, &input.headers).await?.user)
    } else {
        None
    };
    let config = state.config();
    let (name, provider_config) = if provider == "apple" || issuer == config.id_token_apple.issuer {
        ("apple", &config.id_token_apple)
    } else if provider == "google" || issuer == config.id_token_google.issuer {
        ("google", &config.id_token_google)
    } else {
        return Err(AuthError::validation(format!(
            "Custom OIDC provider \"{provider}\" not allowed"
        )));
    };
    if !issuer.is_empty() && issuer != provider_config.issuer {
        return Err(AuthError::validation(
            "Provided issuer does not match ID token issuer",
        ));
    }
    if !provider_config.enabled {
        return Err(AuthError::bad_request(
            "provider_disabled",
            format!(
                "Provider (issuer \"{}\") is not enabled",
                provider_config.issuer
            ),
        ));
    }
    let claims = verify(state, provider_config, id_token).await?;
    let subject = text_claim(&claims, "sub").unwrap_or_default();
    if subject.is_empty() {
        return Err(invalid("Missing sub claim in id_token"));
    }
    let audiences = audiences(&claims);
    let acceptable = provider_config
        .client_ids
        .iter()
        .filter(|id| !id.is_empty())
        .any(|id| audiences.contains(id));
    if !acceptable {
        return Err(invalid(format!(
            "Unacceptable audience in id_token: [{}]",
            audiences.join(" ")
        )));
    }
    if !provider_config.skip_nonce_check {
        let token_nonce = text_claim(&claims, "nonce").unwrap_or_default();
        let given = params.nonce.as_deref().unwrap_or("");
        if token_nonce.is_empty() != given.is_empty() {
            return Err(invalid(
                "Passed nonce and nonce in id_token should either both exist or not.",
            ));
        }
        if !given.is_empty() {
            let hash = plinth_db::hex(&Sha256::digest(given.as_bytes()));
            if !crate::tokens::constant_time_eq(hash.as_bytes(), token_nonce.as_bytes()) {
                return Err(AuthError::oauth("invalid nonce", "Nonces mismatch"));
            }
        }
    }
    if let Some(access_token) = params.access_token.as_deref().filter(|t| !t.is_empty())
        && let Some(at_hash) = text_claim(&claims, "at_hash")
        && !at_hash_matches(&at_hash, access_token)
    {
        return Err(bad_id_token());
    }

    let identity = external_identity(name, &subject, &claims);
    let mut tx = state.db().owner.begin().await?;
    let user = match link_to {
        Some(owner) => link_identity(state, &mut tx, &owner, &identity).await?,
        None => sign_in_identity(state, &mut tx, &identity).await?,
    };
    start_session(state, tx, &user, "oauth", input).await
}

/// The session of a user just signed in (or linked) in `tx`, unless banned;
/// commits `tx`.
pub(crate) async fn start_session(
    state: &AuthState,
    mut tx: sqlx::Transaction<'_, sqlx::Postgres>,
    user: &User,
    method: &'static str,
    input: &Input,
) -> Result<Value> {
    if user.row.is_banned(state.now()) {
        return Err(AuthError::forbidden("user_banned", "User is banned"));
    }
    let session = sessions::create(
        state,
        &mut tx,
        user,
        NewSession {
            method,
            user_agent: crate::request::user_agent(&input.headers),
            ip: Some(input.ip.clone()),
            ..Default::default()
        },
    )
    .await?;
    tx.commit().await?;
    Ok(session)
}

/// A string claim (Apple sends some booleans as strings, so callers read
/// `email_verified` through [`bool_claim`]).
fn text_claim(claims: &Value, key: &str) -> Option<String> {
    match claims.get(key) {
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    }
}

fn bool_claim(claims: &Value, key: &str) -> bool {
    match claims.get(key) {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s == "true",
        _ => false,
    }
}

/// `aud`: one string or a list of them.
fn audiences(claims: &Value) -> Vec<String> {
    match claims.get("aud") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(list)) => list
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// OIDC `at_hash`: the left half of the SHA-256 of the access token, base64url.
fn at_hash_matches(at_hash: &str, access_token: &str) -> bool {
    let digest = Sha256::digest(access_token.as_bytes());
    let expected = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&digest[..16]);
    crate::tokens::constant_time_eq(expected.as_bytes(), at_hash.as_bytes())
}

/// Key sets by URL, with when they were fetched.
static KEY_SETS: LazyLock<Mutex<HashMap<String, (Instant, JwkSet)>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// A key set is used this long before it is fetched again.
const KEY_SET_TTL: Duration = Duration::from_secs(600);
/// A token naming an unknown key fetches the set again, at most this often.
const KEY_SET_REFRESH: Duration = Duration::from_secs(30);

async fn key_set(state: &AuthState, url: &str, kid: Option<&str>) -> Result<JwkSet> {
    let cached = KEY_SETS.lock().ok().and_then(|sets| sets.get(url).cloned());
    if let Some((at, set)) = &cached {
        let knows_kid = kid.is_none_or(|kid| set.find(kid).is_some());
        if at.elapsed() < KEY_SET_TTL && (knows_kid || at.elapsed() < KEY_SET_REFRESH) {
            return Ok(set.clone());
        }
    }
    let response = state
        .http()
        .get(url)
        .header(axum::http::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(AuthError::internal)?;
    if !response.status().is_success() {
        return Err(AuthError::internal(format!(
            "JWKS {url} answered {}",
            response.status()
        )));
    }
    let set: JwkSet = response.json().await.map_err(AuthError::internal)?;
    if let Ok(mut sets) = KEY_SETS.lock() {
        sets.insert(url.to_owned(), (Instant::now(), set.clone()));
    }
    Ok(set)
}

/// The token's claims, once its signature (by a key of the provider's set),
/// issuer and lifetime are checked.
async fn verify(state: &AuthState, provider: &IdTokenProvider, token: &str) -> Result<Value> {
    let header = jsonwebtoken::decode_header(token).map_err(|_| bad_id_token())?;
    if !matches!(
        header.alg,
        Algorithm::RS256
            | Algorithm::RS384
            | Algorithm::RS512
            | Algorithm::ES256
            | Algorithm::ES384
            | Algorithm::PS256
            | Algorithm::EdDSA
    ) {
        return Err(bad_id_token());
    }
    let set = key_set(state, &provider.jwks_url, header.kid.as_deref()).await?;
    let jwk = match header.kid.as_deref() {
        Some(kid) => set.find(kid),
        None if set.keys.len() == 1 => set.keys.first(),
        None => None,
    }
    .ok_or_else(bad_id_token)?;
    let key = DecodingKey::from_jwk(jwk).map_err(|_| bad_id_token())?;
    let mut validation = Validation::new(header.alg);
    // Audience, expiry and issue time are checked below by the service's
    // clock and with the platform's messages.
    validation.validate_aud = false;
    validation.validate_exp = false;
    validation.validate_nbf = false;
    validation.required_spec_claims.clear();
    validation.set_issuer(&[provider.issuer.as_str()]);
    let data =
        jsonwebtoken::decode::<Value>(token, &key, &validation).map_err(|_| bad_id_token())?;
    let claims = data.claims;
    let now = state.clock().timestamp();
    let exp = claims.get("exp").and_then(Value::as_f64);
    if exp.is_none_or(|exp| exp < now as f64 - 30.0) {
        return Err(bad_id_token());
    }
    if claims
        .get("nbf")
        .and_then(Value::as_f64)
        .is_some_and(|nbf| nbf > now as f64 + 30.0)
    {
        return Err(bad_id_token());
    }
    Ok(claims)
}

/// An identity at a provider, as the account decision needs it.
#[derive(Debug, Clone)]
pub(crate) struct ExternalIdentity {
    pub provider: String,
    /// The provider's id of its user (`sub`).
    pub provider_id: String,
    pub identity_data: Value,
    pub email: Option<String>,
    pub email_verified: bool,
}

fn external_identity(provider: &str, subject: &str, claims: &Value) -> ExternalIdentity {
    let email = text_claim(claims, "email")
        .filter(|e| !e.is_empty())
        .map(|e| e.to_lowercase());
    let email_verified = email.is_some() && bool_claim(claims, "email_verified");
    let mut data = json!({
        "iss": claims.get("iss"),
        "sub": subject,
        "provider_id": subject,
        "email_verified": email_verified,
        "phone_verified": false,
    });
    if let Some(email) = &email {
        data["email"] = json!(email);
    }
    for (claim, keys) in [
        ("name", &["name", "full_name"][..]),
        ("picture", &["picture", "avatar_url"][..]),
        ("given_name", &["given_name"][..]),
        ("family_name", &["family_name"][..]),
    ] {
        if let Some(value) = text_claim(claims, claim).filter(|v| !v.is_empty()) {
            for key in keys {
                data[*key] = json!(value);
            }
        }
    }
    if claims.get("is_private_email").is_some() {
        data["custom_claims"] =
            json!({ "is_private_email": bool_claim(claims, "is_private_email") });
    }
    ExternalIdentity {
        provider: provider.to_owned(),
        provider_id: subject.to_owned(),
        identity_data: data,
        email,
        email_verified,
    }
}

/// Merges the identity's data into the user's metadata and adds the provider
/// to `app_metadata.providers`, as the platform does at each sign-in.
async fn refresh_user_metadata(
    state: &AuthState,
    conn: &mut PgConnection,
    user: &User,
    identity: &ExternalIdentity,
) -> Result<()> {
    let patch = identity
        .identity_data
        .as_object()
        .cloned()
        .unwrap_or_default();
    sqlx::query(
        "update auth.users set raw_user_meta_data = $2, raw_app_meta_data = $3, updated_at = $4 where id = $1",
    )
    .bind(user.id())
    .bind(users::merge_metadata(&user.row.user_metadata, &patch))
    .bind(users::add_provider(
        &user.row.app_metadata,
        &identity.provider,
    ))
    .bind(state.now())
    .execute(&mut *conn)
    .await?;
    Ok(())
}

async fn insert_identity(
    state: &AuthState,
    conn: &mut PgConnection,
    user_id: Uuid,
    identity: &ExternalIdentity,
) -> Result<()> {
    sqlx::query(
        "insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at) \
         values ($1, $2, $3, $4, $5, $5, $5)",
    )
    .bind(&identity.provider_id)
    .bind(user_id)
    .bind(&identity.identity_data)
    .bind(&identity.provider)
    .bind(state.now())
    .execute(&mut *conn)
    .await?;
    Ok(())
}

async fn reload(conn: &mut PgConnection, user_id: Uuid) -> Result<User> {
    users::find_by_id(conn, user_id)
        .await?
        .ok_or_else(|| AuthError::internal("user vanished while signing in"))
}

/// The account an external identity signs in to: the identity's owner;
/// else the account with the same verified e-mail address (linked); else a
/// new account (with that address confirmed, or with none, as for web3
/// wallets). An unverified address is refused rather than trusted.
pub(crate) async fn sign_in_identity(
    state: &AuthState,
    conn: &mut PgConnection,
    identity: &ExternalIdentity,
) -> Result<User> {
    let now = state.now();
    let owner: Option<Uuid> = sqlx::query_scalar(
        "update auth.identities set identity_data = $3, last_sign_in_at = $4, updated_at = $4 \
         where provider = $1 and provider_id = $2 returning user_id",
    )
    .bind(&identity.provider)
    .bind(&identity.provider_id)
    .bind(&identity.identity_data)
    .bind(now)
    .fetch_optional(&mut *conn)
    .await?;
    if let Some(user_id) = owner
        && let Some(user) = users::find_by_id(conn, user_id).await?
    {
        refresh_user_metadata(state, conn, &user, identity).await?;
        return reload(conn, user_id).await;
    }
    if let Some(email) = &identity.email {
        if !identity.email_verified {
            return Err(AuthError::unprocessable(
                "provider_email_needs_verification",
                format!(
                    "Unverified email with {}. Verify the email with {} and try again",
                    identity.provider, identity.provider
                ),
            ));
        }
        if let Some(existing) = users::find_by_email(conn, email).await? {
            users::claim_unconfirmed(conn, &existing, now).await?;
            insert_identity(state, conn, existing.id(), identity).await?;
            refresh_user_metadata(state, conn, &existing, identity).await?;
            return reload(conn, existing.id()).await;
        }
    }
    if state.config().disable_signup {
        return Err(AuthError::unprocessable(
            "signup_disabled",
            "Signups not allowed for this instance",
        ));
    }
    let user = insert_user(
        state,
        conn,
        NewUser {
            email: identity.email.as_deref(),
            password_hash: None,
            user_metadata: identity.identity_data.clone(),
            app_metadata: json!({"provider": identity.provider, "providers": [identity.provider]}),
            confirmed_at: identity.email.as_ref().map(|_| now),
            is_anonymous: false,
            role: "authenticated",
            email_identity: false,
        },
    )
    .await?;
    insert_identity(state, conn, user.id(), identity).await?;
    reload(conn, user.id()).await
}

/// `link_identity: true`: adds the identity to the signed-in caller, unless
/// another account holds it.
async fn link_identity(
    state: &AuthState,
    conn: &mut PgConnection,
    owner: &User,
    identity: &ExternalIdentity,
) -> Result<User> {
    let holder: Option<Uuid> = sqlx::query_scalar(
        "select user_id from auth.identities where provider = $1 and provider_id = $2",
    )
    .bind(&identity.provider)
    .bind(&identity.provider_id)
    .fetch_optional(&mut *conn)
    .await?;
    match holder {
        Some(holder) if holder != owner.id() => {
            return Err(AuthError::unprocessable(
                "identity_already_exists",
                "Identity is already linked to another user",
            ));
        }
        Some(_) => {}
        None => insert_identity(state, conn, owner.id(), identity).await?,
    }
    if owner.row.is_anonymous {
        sqlx::query("update auth.users set is_anonymous = false where id = $1")
            .bind(owner.id())
            .execute(&mut *conn)
            .await?;
    }
    refresh_user_metadata(state, conn, owner, identity).await?;
    reload(conn, owner.id()).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_hash_is_the_left_half_of_the_sha256() {
        // OIDC Core, appendix A.3/A.4 example: access token and its at_hash.
        assert!(at_hash_matches(
            "77QmUPtjPfzWtF2AnpK9RQ",
            "jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y"
        ));
        assert!(!at_hash_matches("77QmUPtjPfzWtF2AnpK9RQ", "another-token"));
    }

    #[test]
    fn audiences_are_a_string_or_a_list() {
        assert_eq!(audiences(&json!({"aud": "a"})), vec!["a"]);
        assert_eq!(audiences(&json!({"aud": ["a", "b"]})), vec!["a", "b"]);
        assert!(audiences(&json!({})).is_empty());
    }

    #[test]
    fn apple_string_booleans_count() {
        let claims =
            json!({"email": "A@B.co", "email_verified": "true", "is_private_email": "true"});
        let identity = external_identity("apple", "001", &claims);
        assert_eq!(identity.email.as_deref(), Some("a@b.co"));
        assert!(identity.email_verified);
        assert_eq!(
            identity.identity_data["custom_claims"]["is_private_email"],
            true
        );
        let unverified = external_identity("google", "1", &json!({"email": "a@b.co"}));
        assert!(!unverified.email_verified);
    }
}
