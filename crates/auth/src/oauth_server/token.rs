//! `POST /oauth/token`: an authenticated client exchanges an authorization
//! code (with its PKCE verifier) or a refresh token for tokens.

use std::collections::HashMap;

use axum::Json;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use base64::Engine;
use serde_json::{Value, json};
use uuid::Uuid;

use super::authorize::{Authorization, COLUMNS};
use super::clients::{self, Client};
use super::{require_enabled, secret_matches};
use crate::AuthState;
use crate::error::{AuthError, Result};
use crate::handlers::Input;
use crate::sessions::{self, NewSession, OAuthGrant};
use crate::tokens::{ChallengeMethod, pkce_matches};

/// The request's parameters, from a JSON or a form body.
fn params(input: &Input) -> Result<HashMap<String, String>> {
    let json = input
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("application/json"));
    if json {
        let value: Value = input
            .json()
            .map_err(|_| AuthError::oauth("invalid_request", "Invalid JSON body"))?;
        let Value::Object(map) = value else {
            return Err(AuthError::oauth("invalid_request", "Invalid JSON body"));
        };
        return Ok(map
            .into_iter()
            .filter_map(|(k, v)| match v {
                Value::String(s) => Some((k, s)),
                _ => None,
            })
            .collect());
    }
    Ok(url::form_urlencoded::parse(&input.body)
        .into_owned()
        .collect())
}

fn bad_credentials(why: impl Into<String>) -> AuthError {
    AuthError::bad_request("invalid_credentials", why)
}

/// The client, authenticated as it registered: `client_secret_basic`
/// (Authorization: Basic), `client_secret_post` (secret in the body) or
/// `none` (public clients, no secret).
async fn authenticate(
    state: &AuthState,
    input: &Input,
    params: &HashMap<String, String>,
) -> Result<Client> {
    let basic = input
        .headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "));
    let (client_id, secret, method) = match basic {
        Some(encoded) => {
            let decoded = base64::engine::general_purpose::STANDARD
                .decode(encoded.trim())
                .map_err(|_| {
                    bad_credentials("Invalid client credentials: invalid basic auth encoding")
                })?;
            let text = String::from_utf8(decoded).map_err(|_| {
                bad_credentials("Invalid client credentials: invalid basic auth format")
            })?;
            let (id, secret) = text.split_once(':').ok_or_else(|| {
                bad_credentials("Invalid client credentials: invalid basic auth format")
            })?;
            (id.to_owned(), secret.to_owned(), "client_secret_basic")
        }
        None => {
            let id = params.get("client_id").cloned().unwrap_or_default();
            let secret = params.get("client_secret").cloned().unwrap_or_default();
            let method = if secret.is_empty() {
                "none"
            } else {
                "client_secret_post"
            };
            (id, secret, method)
        }
    };
    if client_id.is_empty() {
        return Err(bad_credentials(
            "Invalid client credentials: client_id is required",
        ));
    }
    let id =
        Uuid::parse_str(&client_id).map_err(|_| bad_credentials("Invalid client_id format"))?;
    let mut conn = state.db().owner.acquire().await?;
    let client = clients::find(&mut conn, id)
        .await?
        .ok_or_else(|| bad_credentials("Invalid client credentials"))?;
    if method != client.token_endpoint_auth_method {
        return Err(bad_credentials(format!(
            "invalid authentication method: client is registered for '{}' but '{method}' was used",
            client.token_endpoint_auth_method
        )));
    }
    if client.is_public() {
        if !secret.is_empty() {
            return Err(bad_credentials(
                "public clients must not provide client_secret",
            ));
        }
    } else if secret.is_empty() {
        return Err(bad_credentials(
            "confidential clients must provide client_secret",
        ));
    } else if !client
        .secret_hash
        .as_deref()
        .is_some_and(|hash| secret_matches(&secret, hash))
    {
        return Err(bad_credentials("invalid client credentials"));
    }
    Ok(client)
}

/// The OAuth token answer (no `user`, unlike `/token`).
fn token_response(session: &Value) -> Response {
    Json(json!({
        "access_token": session["access_token"],
        "token_type": session["token_type"],
        "expires_in": session["expires_in"],
        "refresh_token": session["refresh_token"],
    }))
    .into_response()
}

/// `POST /oauth/token`.
pub async fn token(State(state): State<AuthState>, input: Input) -> Result<Response> {
    require_enabled(&state)?;
    let params = params(&input)?;
    let client = authenticate(&state, &input, &params).await?;
    let grant = params.get("grant_type").map(String::as_str).unwrap_or("");
    if grant.is_empty() {
        return Err(AuthError::oauth(
            "invalid_request",
            "grant_type is required",
        ));
    }
    if !client.allows_grant(grant) {
        return Err(AuthError::oauth(
            "unsupported_grant_type",
            format!("Client is not allowed to use grant type: {grant}"),
        ));
    }
    match grant {
        "authorization_code" => authorization_code(&state, &input, &params, &client).await,
        "refresh_token" => {
            crate::ratelimit::limit_request(&state, &input, crate::ratelimit::Limited::Refresh)?;
            let token = params
                .get("refresh_token")
                .filter(|t| !t.is_empty())
                .ok_or_else(|| {
                    AuthError::oauth(
                        "invalid_request",
                        "refresh_token is required for refresh_token grant",
                    )
                })?;
            let session = sessions::refresh_for_client(&state, token, Some(client.id)).await?;
            Ok(token_response(&session))
        }
        other => Err(AuthError::oauth(
            "unsupported_grant_type",
            format!("Unsupported grant type: {other}"),
        )),
    }
}

fn invalid_grant(description: impl Into<String>) -> AuthError {
    AuthError::oauth("invalid_grant", description)
}

async fn authorization_code(
    state: &AuthState,
    input: &Input,
    params: &HashMap<String, String>,
    client: &Client,
) -> Result<Response> {
    let code = params
        .get("code")
        .filter(|c| !c.is_empty())
        .ok_or_else(|| {
            AuthError::oauth(
                "invalid_request",
                "code is required for authorization_code grant",
            )
        })?;
    let mut tx = state.db().owner.begin().await?;
    let row = sqlx::query(sqlx::AssertSqlSafe(format!(
        "select {COLUMNS} from auth.oauth_authorizations \
         where authorization_code = $1 and status = 'approved' for update"
    )))
    .bind(code)
    .fetch_optional(&mut *tx)
    .await?;
    let auth =
        Authorization::from_row(&row.ok_or_else(|| invalid_grant("Invalid authorization code"))?)?;
    if state.now() > auth.expires_at {
        return Err(invalid_grant("Authorization code has expired"));
    }
    if auth.client_id != client.id {
        return Err(invalid_grant(
            "Authorization code was not issued for this client",
        ));
    }
    if let Some(resource) = params.get("resource").filter(|r| !r.is_empty())
        && Some(resource) != auth.resource.as_ref()
    {
        return Err(invalid_grant(
            "Authorization code resource does not match the resource parameter",
        ));
    }
    if let Some(uri) = params.get("redirect_uri").filter(|r| !r.is_empty())
        && *uri != auth.redirect_uri
    {
        return Err(invalid_grant("Invalid redirect_uri"));
    }
    if let Some(challenge) = auth.code_challenge.as_deref().filter(|c| !c.is_empty()) {
        let verifier = params
            .get("code_verifier")
            .map(String::as_str)
            .unwrap_or("");
        if verifier.is_empty() {
            return Err(invalid_grant(
                "PKCE verification failed: code_verifier is required when PKCE challenge is present",
            ));
        }
        let Some(method) = auth
            .code_challenge_method
            .as_deref()
            .and_then(ChallengeMethod::parse)
        else {
            return Err(invalid_grant(
                "PKCE verification failed: code challenge method not supported",
            ));
        };
        if !pkce_matches(method, challenge, verifier) {
            return Err(invalid_grant(
                "PKCE verification failed: code challenge does not match previously saved code verifier",
            ));
        }
    }
    let user_id = auth
        .user_id
        .ok_or_else(|| invalid_grant("Authorization code has no associated user"))?;
    let user = crate::users::find_by_id(&mut tx, user_id)
        .await?
        .ok_or_else(|| invalid_grant("User not found for authorization code"))?;
    if user.row.is_banned(state.now()) {
        return Err(AuthError::oauth("access_denied", "User is banned"));
    }
    // Single use: the code goes with the session it makes.
    sqlx::query("delete from auth.oauth_authorizations where id = $1")
        .bind(auth.id)
        .execute(&mut *tx)
        .await?;
    let grant = OAuthGrant {
        client_id: client.id,
        scopes: auth.scope.clone(),
    };
    let session = sessions::create_for_client(
        state,
        &mut tx,
        &user,
        NewSession {
            method: "oauth_provider/authorization_code",
            user_agent: crate::request::user_agent(&input.headers),
            ip: Some(input.ip.clone()),
            ..Default::default()
        },
        Some(&grant),
    )
    .await?;
    tx.commit().await?;
    Ok(token_response(&session))
}
