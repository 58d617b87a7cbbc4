//! The authorization request and the user's consent: `GET /oauth/authorize`,
//! `GET /oauth/authorizations/{id}`, `POST /oauth/authorizations/{id}/consent`,
//! the user's grants, and `GET /oauth/userinfo`.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{Value, json};
use sqlx::postgres::PgRow;
use sqlx::{PgConnection, Row};
use uuid::Uuid;

use super::clients::{self, Client};
use super::{SUPPORTED_SCOPES, require_enabled, scope_list};
use crate::AuthState;
use crate::error::{AuthError, Result};
use crate::handlers::Input;
use crate::request;
use crate::tokens::ChallengeMethod;

/// One authorization request.
#[derive(Debug, Clone)]
pub struct Authorization {
    pub id: Uuid,
    pub authorization_id: String,
    pub client_id: Uuid,
    pub user_id: Option<Uuid>,
    pub redirect_uri: String,
    pub scope: String,
    pub state: Option<String>,
    pub resource: Option<String>,
    pub code_challenge: Option<String>,
    pub code_challenge_method: Option<String>,
    pub status: String,
    pub authorization_code: Option<String>,
    pub expires_at: DateTime<Utc>,
}

pub const COLUMNS: &str = "id, authorization_id, client_id, user_id, redirect_uri, scope, state, resource, \
    code_challenge, code_challenge_method::text as code_challenge_method, status::text as status, \
    authorization_code, expires_at";

impl Authorization {
    pub fn from_row(row: &PgRow) -> sqlx::Result<Self> {
        Ok(Self {
            id: row.try_get("id")?,
            authorization_id: row.try_get("authorization_id")?,
            client_id: row.try_get("client_id")?,
            user_id: row.try_get("user_id")?,
            redirect_uri: row.try_get("redirect_uri")?,
            scope: row.try_get("scope")?,
            state: row.try_get("state")?,
            resource: row.try_get("resource")?,
            code_challenge: row.try_get("code_challenge")?,
            code_challenge_method: row.try_get("code_challenge_method")?,
            status: row.try_get("status")?,
            authorization_code: row.try_get("authorization_code")?,
            expires_at: row.try_get("expires_at")?,
        })
    }

    /// Where to send the browser after approval: `?code=&state=`.
    fn success_url(&self) -> String {
        let mut params = Vec::new();
        if let Some(code) = &self.authorization_code {
            params.push(("code", code.as_str()));
        }
        if let Some(state) = self.state.as_deref().filter(|s| !s.is_empty()) {
            params.push(("state", state));
        }
        with_params(&self.redirect_uri, &params)
    }
}

/// `uri` with `params` set in its query (existing keys replaced).
fn with_params(uri: &str, params: &[(&str, &str)]) -> String {
    let Ok(mut url) = url::Url::parse(uri) else {
        return uri.to_owned();
    };
    let kept: Vec<(String, String)> = url
        .query_pairs()
        .filter(|(k, _)| !params.iter().any(|(p, _)| p == k))
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    {
        let mut query = url.query_pairs_mut();
        query.clear();
        for (k, v) in &kept {
            query.append_pair(k, v);
        }
        for (k, v) in params {
            query.append_pair(k, v);
        }
    }
    url.to_string()
}

fn error_url(redirect_uri: &str, error: &str, description: &str, state: &str) -> String {
    let mut params = vec![("error", error), ("error_description", description)];
    if !state.is_empty() {
        params.push(("state", state));
    }
    with_params(redirect_uri, &params)
}

fn found(location: String) -> Response {
    (StatusCode::FOUND, [(header::LOCATION, location)]).into_response()
}

/// The checks that can be told to the client through its redirect URI.
fn check_request(
    q: &std::collections::HashMap<String, String>,
    default_scope: &str,
) -> std::result::Result<(String, ChallengeMethod, String), String> {
    let response_type = q.get("response_type").map(String::as_str).unwrap_or("");
    if !response_type.is_empty() && response_type != "code" {
        return Err("only response_type=code is supported".into());
    }
    let scope = q
        .get("scope")
        .map(String::as_str)
        .filter(|s| !s.is_empty())
        .unwrap_or(default_scope);
    let scopes = scope_list(scope);
    if scopes.is_empty() {
        return Err("scope parameter cannot be empty".into());
    }
    if let Some(bad) = scopes.iter().find(|s| !SUPPORTED_SCOPES.contains(s)) {
        return Err(format!("unsupported scope: {bad}"));
    }
    if let Some(resource) = q.get("resource").filter(|r| !r.is_empty()) {
        let parsed =
            url::Url::parse(resource).map_err(|_| "resource must be an absolute URI".to_owned())?;
        if parsed.fragment().is_some() {
            return Err("resource must not include a fragment component".into());
        }
        if parsed.query().is_some() {
            return Err("resource must not include a query component".into());
        }
    }
    let challenge = q.get("code_challenge").map(String::as_str).unwrap_or("");
    let method = q
        .get("code_challenge_method")
        .map(String::as_str)
        .unwrap_or("");
    if challenge.is_empty() || method.is_empty() {
        return Err("PKCE flow requires both code_challenge and code_challenge_method".into());
    }
    let method = ChallengeMethod::parse(method)
        .ok_or_else(|| "code_challenge_method must be 'S256' or 'plain'".to_owned())?;
    if !(43..=128).contains(&challenge.len()) {
        return Err("code_challenge must be between 43 and 128 characters".into());
    }
    Ok((scope.to_owned(), method, challenge.to_owned()))
}

/// `GET /oauth/authorize?client_id=&redirect_uri=&response_type=code&scope=&state=&code_challenge=&code_challenge_method=`.
///
/// A bad client or redirect URI answers JSON (the redirect URI cannot be
/// trusted); anything else wrong goes back to the client's redirect URI as
/// `?error=invalid_request`. A good request is stored and the browser sent
/// to the app's consent page.
pub async fn authorize(State(state): State<AuthState>, input: Input) -> Result<Response> {
    require_enabled(&state)?;
    let q = &input.query;
    let client_id = q.get("client_id").map(String::as_str).unwrap_or("");
    let redirect_uri = q.get("redirect_uri").map(String::as_str).unwrap_or("");
    if client_id.is_empty() {
        return Err(AuthError::validation("client_id is required"));
    }
    if redirect_uri.is_empty() {
        return Err(AuthError::validation("redirect_uri is required"));
    }
    let client_id = Uuid::parse_str(client_id).map_err(|_| {
        AuthError::bad_request("oauth_client_not_found", "invalid client_id format")
    })?;
    let mut conn = state.db().owner.acquire().await?;
    let client = clients::find(&mut conn, client_id)
        .await?
        .ok_or_else(|| AuthError::bad_request("oauth_client_not_found", "invalid client_id"))?;
    if !client.redirect_uris.iter().any(|u| u == redirect_uri) {
        return Err(AuthError::validation("invalid redirect_uri"));
    }
    let client_state = q.get("state").map(String::as_str).unwrap_or("");
    let config = &state.config().oauth_server;
    let (scope, method, challenge) = match check_request(q, &config.default_scope) {
        Ok(checked) => checked,
        Err(why) => {
            return Ok(found(error_url(
                redirect_uri,
                "invalid_request",
                &why,
                client_state,
            )));
        }
    };
    let now = state.now();
    let ttl = chrono::Duration::from_std(config.authorization_ttl)
        .unwrap_or(chrono::Duration::minutes(10));
    let authorization_id = plinth_db::random_token(32);
    let nonce = q.get("nonce").filter(|n| !n.is_empty());
    let stored = sqlx::query(
        "insert into auth.oauth_authorizations (id, authorization_id, client_id, redirect_uri, scope, state, \
           resource, code_challenge, code_challenge_method, created_at, expires_at, nonce) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9::auth.code_challenge_method, $10, $11, $12)",
    )
    .bind(Uuid::new_v4())
    .bind(&authorization_id)
    .bind(client.id)
    .bind(redirect_uri)
    .bind(&scope)
    .bind(Some(client_state).filter(|s| !s.is_empty()))
    .bind(q.get("resource").filter(|r| !r.is_empty()))
    .bind(&challenge)
    .bind(method.as_str())
    .bind(now)
    .bind(now + ttl)
    .bind(nonce)
    .execute(&mut *conn)
    .await;
    if let Err(error) = stored {
        tracing::warn!(%error, "storing an OAuth authorization failed");
        return Ok(found(error_url(
            redirect_uri,
            "server_error",
            "error creating authorization",
            client_state,
        )));
    }
    if config.authorization_path.is_empty() {
        return Ok(found(error_url(
            redirect_uri,
            "server_error",
            "oauth authorization path not configured",
            client_state,
        )));
    }
    let path = if config.authorization_path.starts_with('/') {
        config.authorization_path.clone()
    } else {
        format!("/{}", config.authorization_path)
    };
    Ok(found(format!(
        "{}{path}?authorization_id={authorization_id}",
        state.config().site_url.trim_end_matches('/')
    )))
}

/// The signed-in user behind a consent-page request (`details`,
/// `consent`): the server enabled, the origin allowed, then the caller.
async fn consent_caller(state: &AuthState, input: &Input) -> Result<request::Caller> {
    require_enabled(state)?;
    check_origin(state, &input.headers)?;
    request::caller(state, &input.headers).await
}

/// A request from a browser must come from the app (an allowed origin).
fn check_origin(state: &AuthState, headers: &HeaderMap) -> Result<()> {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
        return Ok(());
    };
    if origin.is_empty()
        || crate::redirect::is_allowed(
            origin,
            &state.config().site_url,
            &state.config().uri_allow_list,
        )
    {
        Ok(())
    } else {
        Err(AuthError::validation("unauthorized request origin"))
    }
}

fn authorization_not_found() -> AuthError {
    AuthError::not_found("oauth_authorization_not_found", "authorization not found")
}

/// The request, locked; an expired pending one is marked so (and is "not
/// found").
/// [`lock`] in `tx`, for a request still pending: what `lock` refuses is
/// committed (as `lock` leaves it) before the error; a request no longer
/// pending is refused with `not_pending` (and `tx` rolled back).
async fn lock_pending<'c>(
    state: &AuthState,
    mut tx: sqlx::Transaction<'c, sqlx::Postgres>,
    authorization_id: &str,
    not_pending: &str,
) -> Result<(sqlx::Transaction<'c, sqlx::Postgres>, Authorization)> {
    let auth = match lock(state, &mut tx, authorization_id).await? {
        Ok(auth) => auth,
        Err(error) => {
            tx.commit().await?;
            return Err(error);
        }
    };
    if auth.status != "pending" {
        return Err(AuthError::validation(not_pending));
    }
    Ok((tx, auth))
}

async fn lock(
    state: &AuthState,
    conn: &mut PgConnection,
    authorization_id: &str,
) -> Result<std::result::Result<Authorization, AuthError>> {
    let row = sqlx::query(sqlx::AssertSqlSafe(format!(
        "select {COLUMNS} from auth.oauth_authorizations where authorization_id = $1 \
         limit 1 for update skip locked"
    )))
    .bind(authorization_id)
    .fetch_optional(&mut *conn)
    .await?;
    let Some(row) = row else {
        return Ok(Err(authorization_not_found()));
    };
    let authorization = Authorization::from_row(&row)?;
    if state.now() > authorization.expires_at {
        sqlx::query(
            "update auth.oauth_authorizations set status = 'expired' where id = $1 and status = 'pending'",
        )
        .bind(authorization.id)
        .execute(&mut *conn)
        .await?;
        return Ok(Err(authorization_not_found()));
    }
    Ok(Ok(authorization))
}

/// The user's active consent to the client covers every requested scope.
async fn consent_covers(
    conn: &mut PgConnection,
    user_id: Uuid,
    client_id: Uuid,
    scope: &str,
) -> Result<bool> {
    let granted: Option<String> = sqlx::query_scalar(
        "select scopes from auth.oauth_consents where user_id = $1 and client_id = $2 and revoked_at is null",
    )
    .bind(user_id)
    .bind(client_id)
    .fetch_optional(&mut *conn)
    .await?;
    Ok(granted.is_some_and(|granted| {
        let granted = scope_list(&granted);
        scope_list(scope).iter().all(|s| granted.contains(s))
    }))
}

async fn approve(
    state: &AuthState,
    conn: &mut PgConnection,
    auth: &mut Authorization,
) -> Result<()> {
    let code = Uuid::new_v4().to_string();
    sqlx::query(
        "update auth.oauth_authorizations set status = 'approved', approved_at = $2, authorization_code = $3 \
         where id = $1",
    )
    .bind(auth.id)
    .bind(state.now())
    .bind(&code)
    .execute(&mut *conn)
    .await?;
    auth.status = "approved".into();
    auth.authorization_code = Some(code);
    Ok(())
}

/// `GET /oauth/authorizations/{authorization_id}` (signed in): binds the
/// request to the caller and answers what the consent page shows; when the
/// caller already consented to these scopes, approves at once and answers
/// `{redirect_url}`.
pub async fn details(
    State(state): State<AuthState>,
    Path(authorization_id): Path<String>,
    input: Input,
) -> Result<Response> {
    let caller = consent_caller(&state, &input).await?;
    let user_id = caller.user.id();
    let tx = state.db().owner.begin().await?;
    let (mut tx, mut auth) = lock_pending(
        &state,
        tx,
        &authorization_id,
        "authorization request cannot be processed",
    )
    .await?;
    let mut auto_approve = false;
    match auth.user_id {
        None => {
            sqlx::query("update auth.oauth_authorizations set user_id = $2 where id = $1")
                .bind(auth.id)
                .bind(user_id)
                .execute(&mut *tx)
                .await?;
            auth.user_id = Some(user_id);
            auto_approve = consent_covers(&mut tx, user_id, auth.client_id, &auth.scope).await?;
        }
        Some(owner) if owner != user_id => {
            tracing::warn!(authorization_id = %auth.authorization_id, "authorization belongs to another user");
            return Err(authorization_not_found());
        }
        Some(_) => {}
    }
    if auto_approve {
        approve(&state, &mut tx, &mut auth).await?;
        tx.commit().await?;
        return Ok(Json(json!({ "redirect_url": auth.success_url() })).into_response());
    }
    let client = clients::find(&mut tx, auth.client_id)
        .await?
        .ok_or_else(authorization_not_found)?;
    tx.commit().await?;
    let mut client_json = json!({ "id": client.id });
    for (key, value) in [
        ("name", &client.client_name),
        ("uri", &client.client_uri),
        ("logo_uri", &client.logo_uri),
    ] {
        if let Some(value) = value.as_deref().filter(|v| !v.is_empty()) {
            client_json[key] = json!(value);
        }
    }
    let mut user_json = json!({ "id": user_id });
    if !caller.user.row.email.is_empty() {
        user_json["email"] = json!(caller.user.row.email);
    }
    Ok(Json(json!({
        "authorization_id": auth.authorization_id,
        "redirect_uri": auth.redirect_uri,
        "client": client_json,
        "user": user_json,
        "scope": auth.scope,
    }))
    .into_response())
}

#[derive(Debug, Deserialize)]
struct ConsentBody {
    action: Option<String>,
}

/// `POST /oauth/authorizations/{authorization_id}/consent` `{action:
/// "approve"|"deny"}` (signed in, the user the request is bound to):
/// answers `{redirect_url}` with the code, or with `error=access_denied`.
pub async fn consent(
    State(state): State<AuthState>,
    Path(authorization_id): Path<String>,
    input: Input,
) -> Result<Response> {
    let caller = consent_caller(&state, &input).await?;
    let body: ConsentBody = input
        .json()
        .map_err(|_| AuthError::bad_request("bad_json", "invalid JSON body"))?;
    let approve_it = match body.action.as_deref() {
        Some("approve") => true,
        Some("deny") => false,
        _ => {
            return Err(AuthError::validation("action must be 'approve' or 'deny'"));
        }
    };
    let tx = state.db().owner.begin().await?;
    let (mut tx, mut auth) = lock_pending(
        &state,
        tx,
        &authorization_id,
        "authorization request is no longer pending",
    )
    .await?;
    if auth.user_id != Some(caller.user.id()) {
        tracing::warn!(authorization_id = %auth.authorization_id, "authorization belongs to another user");
        return Err(authorization_not_found());
    }
    let redirect_url = if approve_it {
        approve(&state, &mut tx, &mut auth).await?;
        sqlx::query(
            "insert into auth.oauth_consents (id, user_id, client_id, scopes, granted_at) values ($1, $2, $3, $4, $5) \
             on conflict (user_id, client_id) do update \
               set scopes = excluded.scopes, granted_at = excluded.granted_at, revoked_at = null",
        )
        .bind(Uuid::new_v4())
        .bind(caller.user.id())
        .bind(auth.client_id)
        .bind(scope_list(&auth.scope).join(" "))
        .bind(state.now())
        .execute(&mut *tx)
        .await?;
        auth.success_url()
    } else {
        sqlx::query("update auth.oauth_authorizations set status = 'denied' where id = $1")
            .bind(auth.id)
            .execute(&mut *tx)
            .await?;
        error_url(
            &auth.redirect_uri,
            "access_denied",
            "User denied the request",
            auth.state.as_deref().unwrap_or(""),
        )
    };
    tx.commit().await?;
    Ok(Json(json!({ "redirect_url": redirect_url })).into_response())
}

/// `GET /user/oauth/grants`: the caller's active consents.
pub async fn list_grants(State(state): State<AuthState>, input: Input) -> Result<Response> {
    require_enabled(&state)?;
    let caller = request::caller(&state, &input.headers).await?;
    let mut conn = state.db().owner.acquire().await?;
    let rows = sqlx::query(
        "select client_id, scopes, granted_at from auth.oauth_consents \
         where user_id = $1 and revoked_at is null order by granted_at desc",
    )
    .bind(caller.user.id())
    .fetch_all(&mut *conn)
    .await?;
    let mut grants = Vec::new();
    for row in rows {
        let client_id: Uuid = row.try_get("client_id")?;
        let Some(client) = clients::find(&mut conn, client_id).await? else {
            continue;
        };
        let scopes: String = row.try_get("scopes")?;
        let granted_at: DateTime<Utc> = row.try_get("granted_at")?;
        grants.push(json!({
            "client": grant_client_json(&client),
            "scopes": scope_list(&scopes),
            "granted_at": granted_at,
        }));
    }
    Ok(Json(Value::Array(grants)).into_response())
}

fn grant_client_json(client: &Client) -> Value {
    let mut out = json!({ "id": client.id });
    for (key, value) in [
        ("name", &client.client_name),
        ("uri", &client.client_uri),
        ("logo_uri", &client.logo_uri),
    ] {
        if let Some(value) = value.as_deref().filter(|v| !v.is_empty()) {
            out[key] = json!(value);
        }
    }
    out
}

/// `DELETE /user/oauth/grants?client_id=`: revokes the consent and ends the
/// client's sessions of the caller; 204.
pub async fn revoke_grant(State(state): State<AuthState>, input: Input) -> Result<Response> {
    require_enabled(&state)?;
    let caller = request::caller(&state, &input.headers).await?;
    let client_id = input
        .query
        .get("client_id")
        .filter(|c| !c.is_empty())
        .ok_or_else(|| AuthError::validation("client_id query parameter is required"))?;
    let client_id = Uuid::parse_str(client_id)
        .map_err(|_| AuthError::validation("invalid client_id format"))?;
    let mut tx = state.db().owner.begin().await?;
    let revoked = sqlx::query(
        "update auth.oauth_consents set revoked_at = greatest($3, granted_at) \
         where user_id = $1 and client_id = $2 and revoked_at is null",
    )
    .bind(caller.user.id())
    .bind(client_id)
    .bind(state.now())
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if revoked == 0 {
        return Err(AuthError::not_found(
            "oauth_consent_not_found",
            "No active grant found for this client",
        ));
    }
    sqlx::query("delete from auth.sessions where user_id = $1 and oauth_client_id = $2")
        .bind(caller.user.id())
        .bind(client_id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `GET /oauth/userinfo` (an OAuth client's access token): the claims its
/// scopes allow.
pub async fn userinfo(State(state): State<AuthState>, input: Input) -> Result<Response> {
    require_enabled(&state)?;
    let caller = request::caller(&state, &input.headers).await?;
    let user = &caller.user.row;
    let mut info = json!({ "sub": user.id });
    let scopes: Option<String> = match caller.session_id {
        Some(session_id) => sqlx::query_scalar(
            "select scopes from auth.sessions where id = $1 and oauth_client_id is not null",
        )
        .bind(session_id)
        .fetch_optional(&state.db().owner)
        .await?
        .flatten(),
        None => None,
    };
    let Some(scopes) = scopes else {
        return Ok(Json(info).into_response());
    };
    let scopes = scope_list(&scopes);
    let meta = |key: &str| {
        user.user_metadata
            .get(key)
            .and_then(Value::as_str)
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
    };
    if scopes.contains(&"email") {
        if !user.email.is_empty() {
            info["email"] = json!(user.email);
        }
        if user.email_confirmed_at.is_some() {
            info["email_verified"] = json!(true);
        }
    }
    if scopes.contains(&"profile") {
        if let Some(name) =
            meta("name").or_else(|| Some(user.email.clone()).filter(|e| !e.is_empty()))
        {
            info["name"] = json!(name);
        }
        if let Some(picture) = meta("picture").or_else(|| meta("avatar_url")) {
            info["picture"] = json!(picture);
        }
        if let Some(username) = meta("preferred_username").or_else(|| meta("username")) {
            info["preferred_username"] = json!(username);
        }
        if let Some(updated) = user.updated_at {
            info["updated_at"] = json!(updated.timestamp());
        }
        info["user_metadata"] = user.user_metadata.clone();
    }
    if scopes.contains(&"phone") {
        if !user.phone.is_empty() {
            info["phone"] = json!(user.phone);
        }
        if user.phone_confirmed_at.is_some() {
            info["phone_verified"] = json!(true);
        }
    }
    Ok(Json(info).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(pairs: &[(&str, &str)]) -> std::collections::HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn pkce_is_required_and_scopes_are_known() {
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        let ok = query(&[
            ("code_challenge", challenge),
            ("code_challenge_method", "S256"),
        ]);
        let (scope, method, _) = check_request(&ok, "email").unwrap();
        assert_eq!(scope, "email");
        assert_eq!(method, ChallengeMethod::S256);
        assert!(
            check_request(&query(&[]), "email")
                .unwrap_err()
                .contains("PKCE")
        );
        let mut bad = ok.clone();
        bad.insert("scope".into(), "openid admin".into());
        assert_eq!(
            check_request(&bad, "email").unwrap_err(),
            "unsupported scope: admin"
        );
        let mut token = ok.clone();
        token.insert("response_type".into(), "token".into());
        assert!(check_request(&token, "email").is_err());
    }

    #[test]
    fn redirect_params_replace_and_keep_the_rest() {
        assert_eq!(
            with_params(
                "https://app.example.com/cb?x=1&code=old",
                &[("code", "new"), ("state", "s t")]
            ),
            "https://app.example.com/cb?x=1&code=new&state=s+t"
        );
    }
}
