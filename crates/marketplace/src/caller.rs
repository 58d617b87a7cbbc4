//! Who is calling: the verified claims of the `Authorization` bearer token
//! (else the `apikey` header), as every platform service reads them.

use axum::extract::FromRequestParts;
use axum::http::HeaderMap;
use axum::http::request::Parts;
use serde_json::{Value, json};

use crate::FunctionsState;
use crate::error::FunctionError;

/// The caller of a function.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The verified JWT payload; `{}` when no token was presented.
    pub claims: Value,
}

impl Caller {
    /// The `role` claim (`anon` when absent).
    pub fn role(&self) -> &str {
        self.claims
            .get("role")
            .and_then(Value::as_str)
            .unwrap_or("anon")
    }

    /// The signed-in user's id: the `sub` of an `authenticated` token.
    pub fn user_id(&self) -> Option<uuid::Uuid> {
        if self.role() != "authenticated" {
            return None;
        }
        self.claims
            .get("sub")
            .and_then(Value::as_str)
            .and_then(|s| s.parse().ok())
    }

    /// The e-mail claim of a signed-in user.
    pub fn email(&self) -> Option<&str> {
        self.claims.get("email").and_then(Value::as_str)
    }

    fn from_headers(state: &FunctionsState, headers: &HeaderMap) -> Result<Self, FunctionError> {
        let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        let Some(token) = plinth_db::presented_token(header("authorization"), header("apikey"))
        else {
            return Ok(Self { claims: json!({}) });
        };
        state
            .jwt()
            .verify(token)
            .map(|claims| Self { claims })
            .map_err(|e| {
                FunctionError::Unauthorized(match e {
                    plinth_db::JwtError::Expired => "JWT expired".into(),
                    plinth_db::JwtError::Invalid(_) => "Invalid JWT".into(),
                })
            })
    }
}

/// The client's address as the server sees it: the connection's peer, or
/// the `X-Forwarded-For` / `X-Real-IP` of a trusted proxy (the server drops
/// those headers unless `PLINTH_TRUST_PROXY_HEADERS` is on), read as the
/// auth service reads it. Never what a request body says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientAddress(String);

impl ClientAddress {
    pub fn new(address: impl Into<String>) -> Self {
        Self(address.into())
    }

    /// The key of its limits and of an anonymous visitor
    /// (`plinth_limits::address_key`: an IPv6 address by its /64).
    pub fn key(&self) -> String {
        plinth_limits::address_key(&self.0)
    }
}

impl<S: Send + Sync> FromRequestParts<S> for ClientAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(Self(plinth_auth::client_ip(
            &parts.headers,
            &parts.extensions,
        )))
    }
}

impl FromRequestParts<FunctionsState> for Caller {
    type Rejection = FunctionError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &FunctionsState,
    ) -> Result<Self, Self::Rejection> {
        Self::from_headers(state, &parts.headers)
    }
}
