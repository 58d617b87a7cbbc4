//! Reading requests: query strings, JSON bodies, the caller's token and IP.

use std::collections::HashMap;
use std::net::SocketAddr;

use axum::extract::ConnectInfo;
use axum::http::{Extensions, HeaderMap, header};
use serde::de::DeserializeOwned;
use serde_json::Value;
use uuid::Uuid;

use crate::AuthState;
use crate::error::{AuthError, Result};
use crate::users::{self, User};

/// The query string as a map (later duplicates win).
pub fn query_map(raw: Option<&str>) -> HashMap<String, String> {
    url::form_urlencoded::parse(raw.unwrap_or("").as_bytes())
        .into_owned()
        .collect()
}

/// The body as JSON; an empty body reads as `{}`.
pub fn json_body<T: DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    let bytes = if bytes.iter().all(u8::is_ascii_whitespace) {
        b"{}".as_slice()
    } else {
        bytes
    };
    serde_json::from_slice(bytes).map_err(|e| {
        AuthError::bad_request(
            "bad_json",
            format!(
                "Could not parse request body as JSON: {}",
                describe_json_error(&e)
            ),
        )
    })
}

fn describe_json_error(error: &serde_json::Error) -> String {
    // serde's message names the field and the expected type; no input echoed.
    let text = error.to_string();
    text.split(" at line ").next().unwrap_or(&text).to_owned()
}

/// The client's address: the first `X-Forwarded-For` entry (the server runs
/// behind a proxy in production), else the TCP peer.
pub fn client_ip(headers: &HeaderMap, extensions: &Extensions) -> String {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    plinth_db::client_address(
        header("x-forwarded-for"),
        header("x-real-ip"),
        extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(addr)| addr.ip()),
    )
}

pub fn user_agent(headers: &HeaderMap) -> Option<String> {
    headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// The `Authorization: Bearer` token, if any.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// Verified claims of the bearer token (signature and expiry by the
/// service's clock).
pub fn claims(state: &AuthState, headers: &HeaderMap) -> Result<Value> {
    let token = bearer(headers).ok_or_else(|| {
        AuthError::api(
            axum::http::StatusCode::UNAUTHORIZED,
            "no_authorization",
            "This endpoint requires a valid Bearer token",
        )
    })?;
    let bad_jwt = |why: &str| {
        AuthError::forbidden(
            "bad_jwt",
            format!("invalid JWT: unable to parse or verify signature, {why}"),
        )
    };
    let claims = state.jwt().verify(token).map_err(|e| match e {
        plinth_db::JwtError::Expired => bad_jwt("token has invalid claims: token is expired"),
        plinth_db::JwtError::Invalid(reason) => bad_jwt(match reason.as_str() {
            plinth_db::jwt::NO_EXP => {
                "token has invalid claims: token is missing required claim: exp"
            }
            plinth_db::jwt::NOT_YET_VALID => "token has invalid claims: token is not valid yet",
            plinth_db::jwt::URL_TOKEN => "token is a storage URL token",
            _ => "token signature is invalid",
        }),
    })?;
    if claims
        .get("exp")
        .and_then(Value::as_i64)
        .is_some_and(|exp| exp <= state.clock().timestamp())
    {
        return Err(bad_jwt("token has invalid claims: token is expired"));
    }
    Ok(claims)
}

/// A signed-in user: the token's user and session.
#[derive(Debug, Clone)]
pub struct Caller {
    pub user: User,
    pub session_id: Option<Uuid>,
}

/// The caller of a user endpoint; the session named by the token must still
/// exist and the user too.
pub async fn caller(state: &AuthState, headers: &HeaderMap) -> Result<Caller> {
    let claims = claims(state, headers)?;
    let sub = claims
        .get("sub")
        .and_then(Value::as_str)
        .and_then(|s| Uuid::parse_str(s).ok())
        .ok_or_else(|| AuthError::forbidden("bad_jwt", "invalid claim: missing sub claim"))?;
    let session_id = match claims.get("session_id").and_then(Value::as_str) {
        Some(s) => Some(Uuid::parse_str(s).map_err(|_| {
            AuthError::forbidden("bad_jwt", "invalid claim: session_id claim must be a UUID")
        })?),
        None => None,
    };
    let mut conn = state.db().owner.acquire().await?;
    if let Some(session_id) = session_id
        && !crate::sessions::exists(&mut conn, session_id).await?
    {
        return Err(AuthError::forbidden(
            "session_not_found",
            "Session from session_id claim in JWT does not exist",
        ));
    }
    let user = users::find_by_id(&mut conn, sub).await?.ok_or_else(|| {
        AuthError::forbidden(
            "user_not_found",
            "User from sub claim in JWT does not exist",
        )
    })?;
    // An access token issued before a ban no longer works here.
    if user.row.is_banned(state.now()) {
        return Err(AuthError::forbidden("user_banned", "User is banned"));
    }
    Ok(Caller { user, session_id })
}

/// GoTrue's default `GOTRUE_JWT_ADMIN_ROLES`.
pub const ADMIN_ROLES: [&str; 2] = ["service_role", "supabase_admin"];

/// Admin endpoints: the bearer must carry an admin role ([`ADMIN_ROLES`]).
pub fn require_admin(state: &AuthState, headers: &HeaderMap) -> Result<()> {
    let claims = claims(state, headers)?;
    if claims
        .get("role")
        .and_then(Value::as_str)
        .is_some_and(|role| ADMIN_ROLES.contains(&role))
    {
        Ok(())
    } else {
        Err(AuthError::forbidden("not_admin", "User not allowed"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_decode() {
        let q = query_map(Some(
            "grant_type=password&redirect_to=http%3A%2F%2Fx%2Fy%3Fa%3D1",
        ));
        assert_eq!(q["grant_type"], "password");
        assert_eq!(q["redirect_to"], "http://x/y?a=1");
        assert!(query_map(None).is_empty());
    }

    #[test]
    fn empty_bodies_are_objects_and_bad_json_is_400() {
        let v: Value = json_body(b"").unwrap();
        assert_eq!(v, serde_json::json!({}));
        let err = json_body::<Value>(b"{nope").unwrap_err();
        assert_eq!(err.parts().1, "bad_json");
    }

    #[test]
    fn forwarded_addresses_win() {
        let mut headers = HeaderMap::new();
        headers.insert("x-forwarded-for", "203.0.113.9, 10.0.0.1".parse().unwrap());
        assert_eq!(client_ip(&headers, &Extensions::new()), "203.0.113.9");
        assert_eq!(client_ip(&HeaderMap::new(), &Extensions::new()), "unknown");
    }
}
