//! The OAuth 2.1 server (`GOTRUE_OAUTH_SERVER_ENABLED`): a Plinth project as
//! an OAuth provider for other apps, with the platform's paths and shapes.
//!
//! * Admin client registry (`/admin/oauth/clients`, service role): create,
//!   list, get, update, delete, `regenerate_secret`; open registration at
//!   `POST /oauth/clients/register` when allowed.
//! * `GET /oauth/authorize`: a client sends the browser here; the request
//!   (PKCE required) is stored and the browser goes to the app's consent
//!   page (`<site url><authorization path>?authorization_id=`).
//! * The consent page, signed in, reads `GET /oauth/authorizations/{id}`
//!   (which binds the request to the user, or approves at once when the user
//!   already granted these scopes) and posts approve/deny to
//!   `/oauth/authorizations/{id}/consent`; both answer where to send the
//!   browser (`redirect_url`, with `?code=&state=` or `?error=`).
//! * `POST /oauth/token` (client authenticated: secret by Basic or body, or
//!   none for public clients): `authorization_code` with the PKCE verifier,
//!   and `refresh_token`; sessions belong to the client (`client_id`,
//!   `scope` claims) and refresh only through it.
//! * `GET /user/oauth/grants`, `DELETE /user/oauth/grants?client_id=`: the
//!   user's consents; revoking ends the client's sessions.
//! * Discovery: `/.well-known/openid-configuration` and, while on,
//!   `/.well-known/oauth-authorization-server`.
//!
//! Secrets are stored only as SHA-256; codes are single-use and live as long
//! as the authorization request (`GOTRUE_OAUTH_SERVER_AUTHORIZATION_TTL`).

mod authorize;
mod clients;
mod token;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine;
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::AuthState;
use crate::error::{AuthError, Result};

/// The routes, merged into the auth router.
pub fn router() -> Router<AuthState> {
    Router::new()
        .route(
            "/admin/oauth/clients",
            get(clients::list).post(clients::create),
        )
        .route(
            "/admin/oauth/clients/{client_id}",
            get(clients::get)
                .put(clients::update)
                .delete(clients::delete),
        )
        .route(
            "/admin/oauth/clients/{client_id}/regenerate_secret",
            post(clients::regenerate_secret),
        )
        .route("/oauth/clients/register", post(clients::register))
        .route("/oauth/token", post(token::token))
        .route("/oauth/authorize", get(authorize::authorize))
        .route(
            "/oauth/authorizations/{authorization_id}",
            get(authorize::details),
        )
        .route(
            "/oauth/authorizations/{authorization_id}/consent",
            post(authorize::consent),
        )
        .route("/oauth/userinfo", get(authorize::userinfo))
        .route(
            "/user/oauth/grants",
            get(authorize::list_grants).delete(authorize::revoke_grant),
        )
        .route(
            "/.well-known/openid-configuration",
            get(openid_configuration),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            get(authorization_server_metadata),
        )
}

/// `GET /.well-known/openid-configuration`: the platform's discovery
/// document (OIDC Discovery, a superset of RFC 8414's metadata).
async fn openid_configuration(State(state): State<AuthState>) -> Response {
    discovery(&state)
}

/// `GET /.well-known/oauth-authorization-server` (RFC 8414): the same
/// document, while the OAuth server is on.
async fn authorization_server_metadata(State(state): State<AuthState>) -> Result<Response> {
    require_enabled(&state)?;
    Ok(discovery(&state))
}

fn discovery(state: &AuthState) -> Response {
    let issuer = state.auth_base();
    let config = &state.config().oauth_server;
    let mut body = json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/oauth/authorize"),
        "token_endpoint": format!("{issuer}/oauth/token"),
        "jwks_uri": format!("{issuer}/.well-known/jwks.json"),
        "userinfo_endpoint": format!("{issuer}/oauth/userinfo"),
        "scopes_supported": SUPPORTED_SCOPES,
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256", "HS256", "ES256"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
        "claims_supported": [
            "sub", "aud", "iss", "exp", "iat", "auth_time", "nonce", "email", "email_verified",
            "phone_number", "phone_number_verified", "name", "picture", "preferred_username",
            "updated_at",
        ],
        "code_challenge_methods_supported": ["S256", "plain"],
    });
    if config.enabled && config.allow_dynamic_registration {
        body["registration_endpoint"] = json!(format!("{issuer}/oauth/clients/register"));
    }
    (
        [(header::CACHE_CONTROL, "public, max-age=600")],
        axum::Json(body),
    )
        .into_response()
}

/// 404 `feature_disabled` while the OAuth server is off.
fn require_enabled(state: &AuthState) -> Result<()> {
    if state.config().oauth_server.enabled {
        Ok(())
    } else {
        Err(AuthError::not_found(
            "feature_disabled",
            "OAuth server is disabled",
        ))
    }
}

/// Admin endpoints: the service role first, then the feature switch (the
/// platform's order).
fn require_admin(state: &AuthState, headers: &HeaderMap) -> Result<()> {
    crate::request::require_admin(state, headers)?;
    require_enabled(state)
}

/// A new client secret: 32 random bytes, base64url.
fn new_secret() -> String {
    let mut bytes = [0u8; 32];
    rand::Rng::fill(&mut rand::rng(), &mut bytes);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// What is stored of a secret: its SHA-256, base64url.
fn hash_secret(secret: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(secret.as_bytes()))
}

/// Whether `secret` is the one `stored` is the hash of (in constant time).
fn secret_matches(secret: &str, stored: &str) -> bool {
    crate::tokens::constant_time_eq(hash_secret(secret).as_bytes(), stored.as_bytes())
}

/// Space-separated scopes, without empties.
fn scope_list(scopes: &str) -> Vec<&str> {
    scopes
        .split(' ')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

const SUPPORTED_SCOPES: [&str; 5] = ["openid", "profile", "email", "phone", "offline_access"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_checked_against_their_hash() {
        let secret = new_secret();
        assert_eq!(secret.len(), 43);
        let stored = hash_secret(&secret);
        assert_ne!(stored, secret);
        assert!(secret_matches(&secret, &stored));
        assert!(!secret_matches("guess", &stored));
        assert_ne!(new_secret(), secret);
    }

    #[test]
    fn scopes_split_on_spaces() {
        assert_eq!(scope_list(" openid  email "), vec!["openid", "email"]);
        assert!(scope_list("").is_empty());
    }
}
