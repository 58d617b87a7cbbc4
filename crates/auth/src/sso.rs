//! SAML single sign-on, which this server does not offer: the routes answer
//! as the platform's auth server does with SAML off (`GOTRUE_SAML_ENABLED`
//! unset). `/sso` and `/sso/saml/*`: 404 `saml_provider_disabled` "SAML 2.0
//! is disabled". The admin provider routes (service role only): an empty
//! list, 404 `sso_provider_not_found` for any one provider, and a new
//! provider refused (after the platform's checks of the request) as SAML is
//! disabled.

use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use serde::Deserialize;
use serde_json::json;

use crate::AuthState;
use crate::error::{AuthError, Result};
use crate::handlers::Input;
use crate::request;

fn saml_disabled() -> AuthError {
    AuthError::not_found("saml_provider_disabled", "SAML 2.0 is disabled")
}

/// The SSO routes.
pub(crate) fn router() -> Router<AuthState> {
    Router::new()
        .route("/sso", any(disabled))
        .route("/sso/saml/acs", any(disabled))
        .route("/sso/saml/metadata", any(disabled))
        .route(
            "/admin/sso/providers",
            get(list_providers).post(create_provider),
        )
        .route("/admin/sso/providers/{id}", any(one_provider))
}

async fn disabled() -> AuthError {
    saml_disabled()
}

/// `GET /admin/sso/providers`: `{items: []}`; there are none.
async fn list_providers(State(state): State<AuthState>, input: Input) -> Result<Response> {
    request::require_admin(&state, &input.headers)?;
    Ok(Json(json!({"items": []})).into_response())
}

/// `/admin/sso/providers/{id}` (get, update, delete): never found.
async fn one_provider(State(state): State<AuthState>, input: Input) -> Result<Response> {
    request::require_admin(&state, &input.headers)?;
    Err(AuthError::not_found(
        "sso_provider_not_found",
        "SSO Identity Provider not found",
    ))
}

#[derive(Debug, Deserialize)]
struct NewProvider {
    #[serde(rename = "type")]
    kind: Option<String>,
    metadata_url: Option<String>,
    metadata_xml: Option<String>,
}

/// `POST /admin/sso/providers`: the platform's checks of the request, then
/// 404 `saml_provider_disabled`.
async fn create_provider(State(state): State<AuthState>, input: Input) -> Result<Response> {
    request::require_admin(&state, &input.headers)?;
    let body: NewProvider = input.json()?;
    let url = body.metadata_url.as_deref().unwrap_or("");
    let xml = body.metadata_xml.as_deref().unwrap_or("");
    if body.kind.as_deref() != Some("saml") {
        return Err(AuthError::validation(
            "Only 'saml' supported for SSO provider type",
        ));
    }
    if !url.is_empty() && !xml.is_empty() {
        return Err(AuthError::validation(
            "Only one of metadata_xml or metadata_url needs to be set",
        ));
    }
    if url.is_empty() && xml.is_empty() {
        return Err(AuthError::validation(
            "Either metadata_xml or metadata_url must be set",
        ));
    }
    if !url.is_empty() {
        let parsed = url::Url::parse(url)
            .map_err(|_| AuthError::validation("metadata_url is not a valid URL"))?;
        if parsed.scheme() != "https" {
            return Err(AuthError::validation("metadata_url is not a HTTPS URL"));
        }
    }
    Err(saml_disabled())
}
