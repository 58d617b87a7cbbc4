//! OAuth client registry: the admin CRUD (`/admin/oauth/clients`) and open
//! registration (`POST /oauth/clients/register`).

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{Value, json};
use sqlx::postgres::PgRow;
use sqlx::{PgConnection, Row};
use uuid::Uuid;

use super::{hash_secret, new_secret, require_admin, require_enabled};
use crate::AuthState;
use crate::error::{AuthError, Result};
use crate::handlers::Input;

pub const PUBLIC: &str = "public";
pub const CONFIDENTIAL: &str = "confidential";
const AUTH_NONE: &str = "none";
const AUTH_BASIC: &str = "client_secret_basic";
const AUTH_POST: &str = "client_secret_post";
const AUTH_METHODS: [&str; 3] = [AUTH_NONE, AUTH_BASIC, AUTH_POST];

/// One registered client.
#[derive(Debug, Clone)]
pub struct Client {
    pub id: Uuid,
    pub secret_hash: Option<String>,
    pub registration_type: String,
    pub client_type: String,
    pub token_endpoint_auth_method: String,
    pub redirect_uris: Vec<String>,
    pub grant_types: Vec<String>,
    pub client_name: Option<String>,
    pub client_uri: Option<String>,
    pub logo_uri: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

const COLUMNS: &str = "id, client_secret_hash, registration_type::text as registration_type, \
    client_type::text as client_type, token_endpoint_auth_method, redirect_uris, grant_types, \
    client_name, client_uri, logo_uri, created_at, updated_at";

fn split(list: &str) -> Vec<String> {
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

impl Client {
    fn from_row(row: &PgRow) -> sqlx::Result<Self> {
        Ok(Self {
            id: row.try_get("id")?,
            secret_hash: row
                .try_get::<Option<String>, _>("client_secret_hash")?
                .filter(|h| !h.is_empty()),
            registration_type: row.try_get("registration_type")?,
            client_type: row.try_get("client_type")?,
            token_endpoint_auth_method: row.try_get("token_endpoint_auth_method")?,
            redirect_uris: split(&row.try_get::<String, _>("redirect_uris")?),
            grant_types: split(&row.try_get::<String, _>("grant_types")?),
            client_name: row.try_get("client_name")?,
            client_uri: row.try_get("client_uri")?,
            logo_uri: row.try_get("logo_uri")?,
            created_at: row.try_get("created_at")?,
            updated_at: row.try_get("updated_at")?,
        })
    }

    pub fn is_public(&self) -> bool {
        self.client_type == PUBLIC
    }

    pub fn allows_grant(&self, grant: &str) -> bool {
        self.grant_types.iter().any(|g| g == grant)
    }

    /// The platform's client JSON (the secret only where it is made).
    pub fn to_json(&self, secret: Option<&str>) -> Value {
        let mut out = json!({
            "client_id": self.id,
            "client_type": self.client_type,
            "redirect_uris": self.redirect_uris,
            "token_endpoint_auth_method": self.token_endpoint_auth_method,
            "grant_types": self.grant_types,
            "response_types": ["code"],
            "registration_type": self.registration_type,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        });
        for (key, value) in [
            ("client_name", &self.client_name),
            ("client_uri", &self.client_uri),
            ("logo_uri", &self.logo_uri),
        ] {
            if let Some(value) = value.as_deref().filter(|v| !v.is_empty()) {
                out[key] = json!(value);
            }
        }
        if let Some(secret) = secret {
            out["client_secret"] = json!(secret);
        }
        out
    }
}

/// A client that is not deleted.
pub async fn find(conn: &mut PgConnection, id: Uuid) -> Result<Option<Client>> {
    let row = sqlx::query(sqlx::AssertSqlSafe(format!(
        "select {COLUMNS} from auth.oauth_clients where id = $1 and deleted_at is null"
    )))
    .bind(id)
    .fetch_optional(&mut *conn)
    .await?;
    Ok(row.as_ref().map(Client::from_row).transpose()?)
}

/// The client named in the path: 400 for a malformed id, 404 for none.
async fn load(state: &AuthState, id: &str) -> Result<Client> {
    let id = Uuid::parse_str(id).map_err(|_| AuthError::validation("invalid client_id format"))?;
    let mut conn = state.db().owner.acquire().await?;
    find(&mut conn, id)
        .await?
        .ok_or_else(|| AuthError::not_found("oauth_client_not_found", "OAuth client not found"))
}

/// An admin request's client (`/admin/oauth/clients/{client_id}`): the
/// caller must be the service role.
async fn admin_load(state: &AuthState, input: &Input, id: &str) -> Result<Client> {
    require_admin(state, &input.headers)?;
    load(state, id).await
}

fn bad_json() -> AuthError {
    AuthError::bad_request("bad_json", "Invalid JSON body")
}

/// Registration and update both check redirect URIs as OAuth 2.1 wants
/// them: absolute, no fragment, no script-ish schemes, plain HTTP only to
/// the loopback.
fn check_redirect_uri(uri: &str) -> std::result::Result<(), String> {
    if uri.is_empty() {
        return Err("redirect URI cannot be empty".into());
    }
    let parsed = url::Url::parse(uri).map_err(|_| "invalid URL format".to_owned())?;
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err("must have scheme and host".into());
    }
    let scheme = parsed.scheme();
    if ["javascript", "data", "file", "vbscript", "about", "blob"]
        .iter()
        .any(|s| scheme.eq_ignore_ascii_case(s))
    {
        return Err(format!(
            "scheme '{scheme}' is not allowed for security reasons"
        ));
    }
    if scheme == "http" {
        let host = parsed.host_str().unwrap_or("");
        if !["localhost", "127.0.0.1", "[::1]"].contains(&host) {
            return Err("HTTP scheme only allowed for localhost".into());
        }
    }
    if parsed.fragment().is_some() {
        return Err("fragment not allowed in redirect URI".into());
    }
    Ok(())
}

fn check_redirect_uris(uris: &[String], required: bool) -> Result<()> {
    if required && uris.is_empty() {
        return Err(AuthError::validation("redirect_uris is required"));
    }
    if uris.is_empty() {
        return Err(AuthError::validation("redirect_uris cannot be empty"));
    }
    if uris.len() > 10 {
        return Err(AuthError::validation(
            "redirect_uris cannot exceed 10 items",
        ));
    }
    for uri in uris {
        check_redirect_uri(uri)
            .map_err(|why| AuthError::validation(format!("invalid redirect_uri '{uri}': {why}")))?;
    }
    Ok(())
}

fn check_grant_types(grants: &[String]) -> Result<()> {
    if grants.is_empty() {
        return Err(AuthError::validation("grant_types cannot be empty"));
    }
    if grants
        .iter()
        .any(|g| g != "authorization_code" && g != "refresh_token")
    {
        return Err(AuthError::validation(
            "grant_types must only contain 'authorization_code' and/or 'refresh_token'",
        ));
    }
    Ok(())
}

fn check_uri(value: &str, what: &str) -> Result<()> {
    if value.is_empty() {
        return Ok(());
    }
    if value.len() > 2048 {
        return Err(AuthError::validation(format!(
            "{what} cannot exceed 2048 characters"
        )));
    }
    if url::Url::parse(value).is_err() {
        return Err(AuthError::validation(format!("{what} must be a valid URL")));
    }
    Ok(())
}

fn check_name(value: &str) -> Result<()> {
    if value.chars().count() > 1024 {
        return Err(AuthError::validation(
            "client_name cannot exceed 1024 characters",
        ));
    }
    Ok(())
}

fn methods_list() -> String {
    format!("[{}]", AUTH_METHODS.join(" "))
}

#[derive(Debug, Default, Deserialize)]
struct RegisterParams {
    #[serde(default)]
    redirect_uris: Vec<String>,
    client_type: Option<String>,
    token_endpoint_auth_method: Option<String>,
    #[serde(default)]
    grant_types: Vec<String>,
    client_name: Option<String>,
    client_uri: Option<String>,
    logo_uri: Option<String>,
}

impl RegisterParams {
    fn validate(&self) -> Result<()> {
        check_redirect_uris(&self.redirect_uris, true)?;
        if !self.grant_types.is_empty() {
            check_grant_types(&self.grant_types)?;
        }
        check_name(self.client_name.as_deref().unwrap_or(""))?;
        check_uri(self.client_uri.as_deref().unwrap_or(""), "client_uri")?;
        check_uri(self.logo_uri.as_deref().unwrap_or(""), "logo_uri")?;
        let client_type = self.client_type.as_deref().unwrap_or("");
        if !client_type.is_empty() && client_type != PUBLIC && client_type != CONFIDENTIAL {
            return Err(AuthError::validation(format!(
                "client_type must be '{PUBLIC}' or '{CONFIDENTIAL}'"
            )));
        }
        let method = self.token_endpoint_auth_method.as_deref().unwrap_or("");
        if !method.is_empty() && !AUTH_METHODS.contains(&method) {
            return Err(AuthError::validation(format!(
                "token_endpoint_auth_method must be one of: {}",
                methods_list()
            )));
        }
        if !client_type.is_empty() && !method.is_empty() {
            let expected = type_for_method(method);
            if client_type != expected {
                return Err(AuthError::validation(format!(
                    "client_type '{client_type}' is inconsistent with token_endpoint_auth_method '{method}' (expected client_type '{expected}')"
                )));
            }
        }
        Ok(())
    }
}

fn type_for_method(method: &str) -> &'static str {
    if method == AUTH_NONE {
        PUBLIC
    } else {
        CONFIDENTIAL
    }
}

/// Creates a client; answers 201 with the secret (confidential clients).
async fn register_client(
    state: &AuthState,
    input: &Input,
    registration_type: &str,
) -> Result<Response> {
    let params: RegisterParams = input.json().map_err(|_| bad_json())?;
    // The platform wraps these as "<status>: <message>".
    params.validate().map_err(|e| {
        let (status, _, message) = e.parts();
        AuthError::validation(format!("{}: {message}", status.as_u16()))
    })?;
    let method = params.token_endpoint_auth_method.as_deref().unwrap_or("");
    let client_type = match params.client_type.as_deref().unwrap_or("") {
        "" if method.is_empty() => CONFIDENTIAL,
        "" => type_for_method(method),
        PUBLIC => PUBLIC,
        _ => CONFIDENTIAL,
    };
    let method = match method {
        "" if client_type == PUBLIC => AUTH_NONE,
        "" => AUTH_BASIC,
        other => other,
    };
    let grant_types = if params.grant_types.is_empty() {
        vec!["authorization_code".to_owned(), "refresh_token".to_owned()]
    } else {
        params.grant_types.clone()
    };
    let secret = (client_type == CONFIDENTIAL).then(new_secret);
    let now = state.now();
    let mut conn = state.db().owner.acquire().await?;
    let id = Uuid::new_v4();
    sqlx::query(
        "insert into auth.oauth_clients (id, client_secret_hash, registration_type, redirect_uris, grant_types, \
           client_name, client_uri, logo_uri, created_at, updated_at, client_type, token_endpoint_auth_method) \
         values ($1, $2, $3::auth.oauth_registration_type, $4, $5, $6, $7, $8, $9, $9, $10::auth.oauth_client_type, $11)",
    )
    .bind(id)
    .bind(secret.as_deref().map(hash_secret))
    .bind(registration_type)
    .bind(params.redirect_uris.join(","))
    .bind(grant_types.join(","))
    .bind(params.client_name.as_deref().filter(|v| !v.is_empty()))
    .bind(params.client_uri.as_deref().filter(|v| !v.is_empty()))
    .bind(params.logo_uri.as_deref().filter(|v| !v.is_empty()))
    .bind(now)
    .bind(client_type)
    .bind(method)
    .execute(&mut *conn)
    .await?;
    let client = find(&mut conn, id)
        .await?
        .ok_or_else(|| AuthError::internal("new OAuth client vanished"))?;
    Ok((StatusCode::CREATED, Json(client.to_json(secret.as_deref()))).into_response())
}

/// `POST /admin/oauth/clients`.
pub async fn create(State(state): State<AuthState>, input: Input) -> Result<Response> {
    require_admin(&state, &input.headers)?;
    register_client(&state, &input, "manual").await
}

/// `POST /oauth/clients/register`: open registration, when allowed.
pub async fn register(State(state): State<AuthState>, input: Input) -> Result<Response> {
    require_enabled(&state)?;
    if !state.config().oauth_server.allow_dynamic_registration {
        return Err(AuthError::forbidden(
            "oauth_dynamic_client_registration_disabled",
            "Dynamic client registration is not enabled",
        ));
    }
    crate::ratelimit::limit_request(&state, &input, crate::ratelimit::Limited::OAuthRegister)?;
    register_client(&state, &input, "dynamic").await
}

/// `GET /admin/oauth/clients`: `{clients}`, newest first.
pub async fn list(State(state): State<AuthState>, input: Input) -> Result<Response> {
    require_admin(&state, &input.headers)?;
    let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
        "select {COLUMNS} from auth.oauth_clients where deleted_at is null order by created_at desc, id"
    )))
    .fetch_all(&state.db().owner)
    .await?;
    let clients = rows
        .iter()
        .map(Client::from_row)
        .collect::<sqlx::Result<Vec<_>>>()?;
    Ok(Json(json!({
        "clients": clients.iter().map(|c| c.to_json(None)).collect::<Vec<_>>(),
    }))
    .into_response())
}

/// `GET /admin/oauth/clients/{client_id}`.
pub async fn get(
    State(state): State<AuthState>,
    Path(id): Path<String>,
    input: Input,
) -> Result<Response> {
    let client = admin_load(&state, &input, &id).await?;
    Ok(Json(client.to_json(None)).into_response())
}

#[derive(Debug, Default, Deserialize)]
struct UpdateParams {
    redirect_uris: Option<Vec<String>>,
    grant_types: Option<Vec<String>>,
    client_name: Option<String>,
    client_uri: Option<String>,
    logo_uri: Option<String>,
    token_endpoint_auth_method: Option<String>,
}

/// `PUT /admin/oauth/clients/{client_id}`: the fields given.
pub async fn update(
    State(state): State<AuthState>,
    Path(id): Path<String>,
    input: Input,
) -> Result<Response> {
    let client = admin_load(&state, &input, &id).await?;
    let params: UpdateParams = input.json().map_err(|_| bad_json())?;
    if params.redirect_uris.is_none()
        && params.grant_types.is_none()
        && params.client_name.is_none()
        && params.client_uri.is_none()
        && params.logo_uri.is_none()
        && params.token_endpoint_auth_method.is_none()
    {
        return Err(AuthError::validation("No fields provided for update"));
    }
    if let Some(uris) = &params.redirect_uris {
        check_redirect_uris(uris, false)?;
    }
    if let Some(grants) = &params.grant_types {
        check_grant_types(grants)?;
    }
    if let Some(name) = &params.client_name {
        check_name(name)?;
    }
    if let Some(uri) = &params.client_uri {
        check_uri(uri, "client_uri")?;
    }
    if let Some(uri) = &params.logo_uri {
        check_uri(uri, "logo_uri")?;
    }
    if let Some(method) = &params.token_endpoint_auth_method {
        if !AUTH_METHODS.contains(&method.as_str()) {
            return Err(AuthError::validation(format!(
                "invalid token_endpoint_auth_method: must be one of {}",
                methods_list()
            )));
        }
        if type_for_method(method) != client.client_type {
            let valid = if client.is_public() {
                format!("[{AUTH_NONE}]")
            } else {
                format!("[{AUTH_BASIC} {AUTH_POST}]")
            };
            return Err(AuthError::validation(format!(
                "token_endpoint_auth_method '{method}' is not valid for client_type '{}'; valid methods: {valid}",
                client.client_type
            )));
        }
    }
    let mut conn = state.db().owner.acquire().await?;
    sqlx::query(
        "update auth.oauth_clients set \
           redirect_uris = coalesce($2, redirect_uris), grant_types = coalesce($3, grant_types), \
           client_name = case when $4::text is null then client_name else nullif($4, '') end, \
           client_uri = case when $5::text is null then client_uri else nullif($5, '') end, \
           logo_uri = case when $6::text is null then logo_uri else nullif($6, '') end, \
           token_endpoint_auth_method = coalesce($7, token_endpoint_auth_method), updated_at = $8 \
         where id = $1",
    )
    .bind(client.id)
    .bind(params.redirect_uris.as_ref().map(|u| u.join(",")))
    .bind(params.grant_types.as_ref().map(|g| g.join(",")))
    .bind(&params.client_name)
    .bind(&params.client_uri)
    .bind(&params.logo_uri)
    .bind(&params.token_endpoint_auth_method)
    .bind(state.now())
    .execute(&mut *conn)
    .await?;
    let client = find(&mut conn, client.id)
        .await?
        .ok_or_else(|| AuthError::not_found("oauth_client_not_found", "OAuth client not found"))?;
    Ok(Json(client.to_json(None)).into_response())
}

/// `DELETE /admin/oauth/clients/{client_id}`: 204; the client is gone for
/// good (soft-deleted), and so are its sessions.
pub async fn delete(
    State(state): State<AuthState>,
    Path(id): Path<String>,
    input: Input,
) -> Result<Response> {
    let client = admin_load(&state, &input, &id).await?;
    let mut tx = state.db().owner.begin().await?;
    sqlx::query("update auth.oauth_clients set deleted_at = $2, updated_at = $2 where id = $1")
        .bind(client.id)
        .bind(state.now())
        .execute(&mut *tx)
        .await?;
    sqlx::query("delete from auth.sessions where oauth_client_id = $1")
        .bind(client.id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `POST /admin/oauth/clients/{client_id}/regenerate_secret`: a new secret
/// (the old one stops working at once); confidential clients only.
pub async fn regenerate_secret(
    State(state): State<AuthState>,
    Path(id): Path<String>,
    input: Input,
) -> Result<Response> {
    let client = admin_load(&state, &input, &id).await?;
    if client.is_public() {
        return Err(AuthError::validation(
            "Cannot regenerate secret for public client",
        ));
    }
    let secret = new_secret();
    let mut conn = state.db().owner.acquire().await?;
    sqlx::query(
        "update auth.oauth_clients set client_secret_hash = $2, updated_at = $3 where id = $1",
    )
    .bind(client.id)
    .bind(hash_secret(&secret))
    .bind(state.now())
    .execute(&mut *conn)
    .await?;
    let client = find(&mut conn, client.id)
        .await?
        .ok_or_else(|| AuthError::not_found("oauth_client_not_found", "OAuth client not found"))?;
    Ok(Json(client.to_json(Some(&secret))).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirect_uris_as_oauth_2_1_wants_them() {
        for ok in [
            "https://app.example.com/callback",
            "http://localhost:3000/cb",
            "http://127.0.0.1/cb",
            "myapp://callback",
        ] {
            assert!(check_redirect_uri(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "/relative",
            "http://evil.example.com/cb",
            "javascript://x/alert(1)",
            "https://app.example.com/cb#frag",
        ] {
            assert!(check_redirect_uri(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn client_type_follows_the_auth_method() {
        let params = RegisterParams {
            redirect_uris: vec!["https://a.example.com/cb".into()],
            client_type: Some("public".into()),
            token_endpoint_auth_method: Some("client_secret_post".into()),
            ..Default::default()
        };
        let error = params.validate().unwrap_err();
        assert!(error.parts().2.contains("inconsistent"), "{error}");
        assert_eq!(type_for_method("none"), PUBLIC);
        assert_eq!(type_for_method("client_secret_basic"), CONFIDENTIAL);
    }
}
