//! The platform gateway's API-key check in front of `/auth/v1`.
//!
//! On the platform every auth request passes the gateway first, which
//! refuses one without a project API key: 401
//! `{"message":"No API key found in request","hint":…}`, or `"Invalid API
//! key"` for a key that is not one. The key comes as the `apikey` header
//! (supabase-js sends it on every call) or the `apikey` query parameter;
//! without one, a valid `Authorization: Bearer` token is taken instead.
//!
//! Left open, as the self-hosted gateway leaves them: the links a browser
//! follows from an e-mail or a provider (`/verify`, `/callback`,
//! `/authorize`), the public keys (`/.well-known/…`), SAML's ACS and
//! metadata, and the OAuth server's endpoints for third-party clients,
//! which know nothing of API keys (`/oauth/authorize`, `/oauth/token`,
//! `/oauth/clients/register`). Preflight `OPTIONS` requests carry no key.
//!
//! With `PLINTH_AUTH_REQUIRE_APIKEY=false` the check is off, as in the
//! platform's local development stack, whose gateway lets `/auth/v1`
//! through without a key (`/health` included, as GoTrue itself answers it).

use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::AuthState;

/// The roles an API key carries (the gateway knows the anon and the
/// service-role keys; `supabase_admin` is the platform's own admin role).
const API_KEY_ROLES: [&str; 3] = ["anon", "service_role", "supabase_admin"];

/// Paths (under `/auth/v1`) that need no API key, with everything below
/// them.
const OPEN: [&str; 9] = [
    "/verify",
    "/callback",
    "/authorize",
    "/.well-known",
    "/sso/saml/acs",
    "/sso/saml/metadata",
    "/oauth/authorize",
    "/oauth/token",
    "/oauth/clients/register",
];

fn is_open(path: &str) -> bool {
    OPEN.iter().any(|open| {
        path.strip_prefix(open)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

/// The gateway's check; see the module documentation.
pub async fn gate(State(state): State<AuthState>, request: Request, next: Next) -> Response {
    if !state.config().require_apikey
        || request.method() == Method::OPTIONS
        || is_open(request.uri().path())
    {
        return next.run(request).await;
    }
    let headers = request.headers();
    let from_header = headers
        .get("apikey")
        .map(|v| v.to_str().unwrap_or_default());
    let from_query = || {
        url::form_urlencoded::parse(request.uri().query().unwrap_or("").as_bytes())
            .find(|(name, _)| name == "apikey")
            .map(|(_, value)| value.into_owned())
    };
    let key = from_header.map(str::to_owned).or_else(from_query);
    match key.as_deref().map(str::trim) {
        Some(key) if !key.is_empty() => {
            let role = state.jwt().verify(key).ok().and_then(|claims| {
                claims
                    .get("role")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            });
            if role.is_some_and(|r| API_KEY_ROLES.contains(&r.as_str())) {
                next.run(request).await
            } else {
                refusal(
                    "Invalid API key",
                    "Double check your Supabase `anon` or `service_role` API key.",
                )
            }
        }
        _ => {
            let bearer = headers
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| plinth_db::presented_token(Some(v), None));
            if bearer.is_some_and(|token| state.jwt().verify(token).is_ok()) {
                next.run(request).await
            } else {
                refusal(
                    "No API key found in request",
                    "No `apikey` request header or url param was found.",
                )
            }
        }
    }
}

/// 401 in the gateway's shape (not GoTrue's: the request never reached it).
fn refusal(message: &str, hint: &str) -> Response {
    (
        StatusCode::UNAUTHORIZED,
        axum::Json(json!({ "message": message, "hint": hint })),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn browser_and_discovery_paths_are_open_and_nothing_else() {
        for open in [
            "/verify",
            "/callback",
            "/authorize",
            "/.well-known/jwks.json",
            "/.well-known/openid-configuration",
            "/sso/saml/acs",
            "/oauth/token",
        ] {
            assert!(is_open(open), "{open}");
        }
        for gated in [
            "/token",
            "/verifyx",
            "/user",
            "/admin/users",
            "/signup",
            "/health",
            "/settings",
            "/oauth/authorizations/x/consent",
            "/sso",
            "/",
        ] {
            assert!(!is_open(gated), "{gated}");
        }
    }
}
