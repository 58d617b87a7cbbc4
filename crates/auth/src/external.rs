//! OAuth sign-in with GitHub and Google (`/authorize`, `/callback`) and the
//! PKCE code exchange (`POST /token?grant_type=pkce`) that finishes both
//! OAuth and e-mail-link flows.
//!
//! Plinth is itself a PKCE client of the provider: `/authorize` stores a
//! flow-state row (its id is the OAuth `state`) holding the provider-side
//! verifier, the app's `redirect_to` and, for the app's PKCE flow, the app's
//! code challenge. The callback checks the state, exchanges the code, reads
//! the user, links or creates the account, and redirects with the session
//! in the fragment (implicit) or with `?code=` (PKCE).

use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use oauth2::basic::BasicClient;
use oauth2::{
    AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, PkceCodeChallenge,
    PkceCodeVerifier, RedirectUrl, Scope, TokenResponse, TokenUrl,
};
use serde_json::{Value, json};
use sqlx::{PgConnection, Row};
use uuid::Uuid;

use crate::AuthState;
use crate::config::ProviderConfig;
use crate::error::{AuthError, Result};
use crate::handlers::{Input, NewUser, challenge_from, insert_user};
use crate::redirect;
use crate::sessions::{self, NewSession};
use crate::tokens::{ChallengeMethod, pkce_matches};
use crate::users::{self, User};

/// The providers Plinth speaks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Provider {
    GitHub,
    Google,
}

impl Provider {
    fn parse(name: &str) -> Option<Self> {
        match name.to_ascii_lowercase().as_str() {
            "github" => Some(Self::GitHub),
            "google" => Some(Self::Google),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::GitHub => "github",
            Self::Google => "google",
        }
    }

    fn config(self, state: &AuthState) -> &ProviderConfig {
        match self {
            Self::GitHub => &state.config().github,
            Self::Google => &state.config().google,
        }
    }
}

fn found(location: String) -> Response {
    (StatusCode::FOUND, [(header::LOCATION, location)]).into_response()
}

fn provider_from(name: Option<&String>, state: &AuthState) -> Result<Provider> {
    let name = name.map(String::as_str).unwrap_or("");
    let provider = Provider::parse(name).ok_or_else(|| {
        AuthError::validation(format!(
            "Unsupported provider: Provider {name} could not be found"
        ))
    })?;
    if !provider.config(state).enabled {
        return Err(AuthError::bad_request(
            "provider_disabled",
            "Unsupported provider: provider is not enabled",
        ));
    }
    Ok(provider)
}

type Client = oauth2::Client<
    oauth2::basic::BasicErrorResponse,
    oauth2::basic::BasicTokenResponse,
    oauth2::basic::BasicTokenIntrospectionResponse,
    oauth2::StandardRevocableToken,
    oauth2::basic::BasicRevocationErrorResponse,
    oauth2::EndpointSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointSet,
>;

fn client(state: &AuthState, provider: Provider) -> Result<Client> {
    let config = provider.config(state);
    let bad =
        |what: &str| AuthError::internal(format!("{} {what} URL is invalid", provider.name()));
    Ok(BasicClient::new(ClientId::new(config.client_id.clone()))
        .set_client_secret(ClientSecret::new(config.secret.clone()))
        .set_auth_type(AuthType::RequestBody)
        .set_auth_uri(AuthUrl::new(config.authorize_url.clone()).map_err(|_| bad("authorize"))?)
        .set_token_uri(TokenUrl::new(config.token_url.clone()).map_err(|_| bad("token"))?)
        .set_redirect_uri(
            RedirectUrl::new(format!("{}/callback", state.auth_base()))
                .map_err(|_| bad("callback"))?,
        ))
}

const OWN_PARAMS: [&str; 7] = [
    "provider",
    "redirect_to",
    "scopes",
    "code_challenge",
    "code_challenge_method",
    "skip_http_redirect",
    "flow_type",
];

/// `GET /authorize?provider=&redirect_to=&scopes=&code_challenge=&code_challenge_method=`:
/// 302 to the provider.
///
/// An unknown or disabled provider answers GoTrue's JSON error, unless the
/// request names an allowed `redirect_to`: then the browser goes back there
/// with `error`, `error_code` and `error_description`, as the callback sends
/// its failures, instead of stranding the person on a JSON page. A
/// `redirect_to` that is not allowed is never followed.
pub async fn authorize(State(state): State<AuthState>, input: Input) -> Result<Response> {
    start(state, input, None).await
}

/// Starts an OAuth sign-in; with `link_to`, one whose callback links the
/// provider's identity to that user instead (`linkIdentity`).
pub(crate) async fn start(
    state: AuthState,
    input: Input,
    link_to: Option<Uuid>,
) -> Result<Response> {
    let provider = match provider_from(input.query.get("provider"), &state) {
        Ok(provider) => provider,
        Err(e) => {
            let allowed = input
                .query
                .get("redirect_to")
                .map(|r| r.trim())
                .filter(|r| {
                    redirect::is_allowed(
                        r,
                        &state.config().site_url,
                        &state.config().uri_allow_list,
                    )
                });
            let Some(target) = allowed else {
                return Err(e);
            };
            let pkce = input
                .query
                .get("code_challenge")
                .is_some_and(|c| !c.is_empty());
            let (_, code, message) = e.parts();
            return Ok(error_redirect(
                target,
                pkce,
                "invalid_request",
                code,
                &message,
            ));
        }
    };
    let challenge = challenge_from(
        input.query.get("code_challenge").map(String::as_str),
        input.query.get("code_challenge_method").map(String::as_str),
    )?;
    let redirect_to = redirect::choose(
        input.query.get("redirect_to").map(String::as_str),
        &state.config().site_url,
        &state.config().uri_allow_list,
    );
    let client = client(&state, provider)?;
    let (provider_challenge, provider_verifier) = PkceCodeChallenge::new_random_sha256();
    let flow_id = Uuid::new_v4();
    let now = state.now();
    sqlx::query(
        "insert into auth.flow_state (id, auth_code, code_challenge_method, code_challenge, provider_type, \
           created_at, updated_at, authentication_method, redirect_to, provider_code_verifier, user_id) \
         values ($1, $2, $3::auth.code_challenge_method, $4, $5, $6, $6, 'oauth', $7, $8, $9)",
    )
    .bind(flow_id)
    .bind(Uuid::new_v4().to_string())
    .bind(challenge.as_ref().map(|c| c.method.as_str()))
    .bind(challenge.as_ref().map(|c| c.challenge.as_str()))
    .bind(provider.name())
    .bind(now)
    .bind(&redirect_to)
    .bind(provider_verifier.secret())
    .bind(link_to)
    .execute(&state.db().owner)
    .await?;

    let flow_state = flow_id.to_string();
    let mut request = client
        .authorize_url(|| CsrfToken::new(flow_state))
        .set_pkce_challenge(provider_challenge);
    let mut scopes: Vec<String> = provider.config(&state).scopes.clone();
    if let Some(extra) = input.query.get("scopes") {
        scopes.extend(
            extra
                .split([' ', ','])
                .filter(|s| !s.is_empty())
                .map(str::to_owned),
        );
    }
    scopes.dedup();
    for scope in scopes {
        request = request.add_scope(Scope::new(scope));
    }
    for (key, value) in &input.query {
        if !OWN_PARAMS.contains(&key.as_str())
            && !["state", "client_id", "redirect_uri", "response_type"].contains(&key.as_str())
        {
            request = request.add_extra_param(key.clone(), value.clone());
        }
    }
    let (url, _) = request.url();
    if input
        .query
        .get("skip_http_redirect")
        .is_some_and(|v| v == "true")
    {
        return Ok(axum::Json(json!({ "url": url.to_string() })).into_response());
    }
    Ok(found(url.to_string()))
}

/// A flow-state row.
struct Flow {
    id: Uuid,
    user_id: Option<Uuid>,
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
    provider_type: String,
    provider_access_token: Option<String>,
    provider_refresh_token: Option<String>,
    created_at: Option<chrono::DateTime<chrono::Utc>>,
    auth_code_issued_at: Option<chrono::DateTime<chrono::Utc>>,
    authentication_method: String,
    redirect_to: Option<String>,
    provider_code_verifier: Option<String>,
}

const FLOW_COLUMNS: &str = "id, user_id, code_challenge, code_challenge_method::text as code_challenge_method, \
    provider_type, provider_access_token, provider_refresh_token, created_at, auth_code_issued_at, \
    authentication_method, redirect_to, provider_code_verifier";

impl Flow {
    fn from_row(row: &sqlx::postgres::PgRow) -> sqlx::Result<Self> {
        Ok(Self {
            id: row.try_get("id")?,
            user_id: row.try_get("user_id")?,
            code_challenge: row.try_get("code_challenge")?,
            code_challenge_method: row.try_get("code_challenge_method")?,
            provider_type: row.try_get("provider_type")?,
            provider_access_token: row.try_get("provider_access_token")?,
            provider_refresh_token: row.try_get("provider_refresh_token")?,
            created_at: row.try_get("created_at")?,
            auth_code_issued_at: row.try_get("auth_code_issued_at")?,
            authentication_method: row.try_get("authentication_method")?,
            redirect_to: row.try_get("redirect_to")?,
            provider_code_verifier: row.try_get("provider_code_verifier")?,
        })
    }

    fn is_pkce(&self) -> bool {
        self.code_challenge
            .as_deref()
            .is_some_and(|c| !c.is_empty())
    }
}

/// Sends the browser back to the app with an OAuth error (fragment, and
/// query too in the PKCE flow).
fn error_redirect(
    target: &str,
    pkce: bool,
    error: &str,
    code: &str,
    description: &str,
) -> Response {
    let params = [
        ("error", error),
        ("error_code", code),
        ("error_description", description),
    ];
    let base = if pkce {
        redirect::with_query(target, &params)
    } else {
        target.to_owned()
    };
    found(redirect::with_fragment(&base, &params))
}

/// `GET /callback?code=&state=`: the provider sends the browser back here.
pub async fn callback(State(state): State<AuthState>, input: Input) -> Result<Response> {
    let bad_state =
        || AuthError::bad_request("bad_oauth_state", "OAuth state parameter is invalid");
    let flow_id = input
        .query
        .get("state")
        .and_then(|s| Uuid::parse_str(s).ok())
        .ok_or_else(bad_state)?;
    let row = sqlx::query(sqlx::AssertSqlSafe(format!(
        "delete from auth.flow_state where id = $1 and authentication_method = 'oauth' \
           and provider_code_verifier is not null returning {FLOW_COLUMNS}"
    )))
    .bind(flow_id)
    .fetch_optional(&state.db().owner)
    .await?;
    let flow = Flow::from_row(&row.ok_or_else(bad_state)?)?;
    let target = flow
        .redirect_to
        .clone()
        .unwrap_or_else(|| state.config().site_url.clone());
    let pkce = flow.is_pkce();
    let fail = |error: &str, code: &str, description: &str| {
        Ok(error_redirect(&target, pkce, error, code, description))
    };

    let expiry = chrono::Duration::seconds(state.config().flow_state_expiry);
    if flow.created_at.is_none_or(|at| at + expiry < state.now()) {
        return fail(
            "invalid_request",
            "flow_state_expired",
            "OAuth flow has expired, please sign in again",
        );
    }
    if let Some(error) = input.query.get("error") {
        let description = input
            .query
            .get("error_description")
            .cloned()
            .unwrap_or_else(|| error.clone());
        return fail("access_denied", "provider_error", &description);
    }
    let Some(code) = input.query.get("code").filter(|c| !c.is_empty()) else {
        return fail(
            "invalid_request",
            "validation_failed",
            "OAuth callback without a code",
        );
    };
    let Some(provider) = Provider::parse(&flow.provider_type) else {
        return fail("server_error", "unexpected_failure", "Unknown provider");
    };
    let Some(verifier) = flow.provider_code_verifier.clone() else {
        return Err(bad_state());
    };

    let client = client(&state, provider)?;
    let token = match client
        .exchange_code(AuthorizationCode::new(code.clone()))
        .set_pkce_verifier(PkceCodeVerifier::new(verifier))
        .request_async(state.http())
        .await
    {
        Ok(token) => token,
        Err(e) => {
            tracing::warn!(provider = provider.name(), error = %e, "OAuth code exchange failed");
            return fail(
                "server_error",
                "unexpected_failure",
                "Unable to exchange external code",
            );
        }
    };
    let access_token = token.access_token().secret().clone();
    let refresh_token = token.refresh_token().map(|t| t.secret().clone());
    let profile = match fetch_profile(&state, provider, &access_token).await {
        Ok(profile) => profile,
        Err(e) => {
            tracing::warn!(provider = provider.name(), error = %e, "reading the provider's user failed");
            return fail(
                "server_error",
                "unexpected_failure",
                "Error getting user profile from external provider",
            );
        }
    };

    let mut tx = state.db().owner.begin().await?;
    let signed_in = match flow.user_id {
        // A linking flow (`linkIdentity`): the identity joins that user.
        Some(target) => {
            let identity_data = profile.identity_data();
            let linked = crate::identities::Linked {
                provider: provider.name(),
                provider_id: &profile.id,
                identity_data: &identity_data,
                email: profile.email.as_deref(),
                email_verified: profile.email_verified,
            };
            crate::identities::link(&state, &mut tx, target, linked).await
        }
        None => sign_in_external(&state, &mut tx, provider, &profile).await,
    };
    let user = match signed_in {
        Ok(user) => user,
        Err(e) => {
            let (status, code, message) = e.parts();
            if status.is_server_error() {
                return Err(e);
            }
            return fail("access_denied", code, &message);
        }
    };
    if user.row.is_banned(state.now()) {
        return fail("access_denied", "user_banned", "User is banned");
    }

    if pkce {
        // Keep the flow for the code exchange, now bound to the user.
        let auth_code = Uuid::new_v4().to_string();
        sqlx::query(
            "insert into auth.flow_state (id, user_id, auth_code, code_challenge_method, code_challenge, provider_type, \
               provider_access_token, provider_refresh_token, created_at, updated_at, authentication_method, auth_code_issued_at) \
             values ($1, $2, $3, $4::auth.code_challenge_method, $5, $6, $7, $8, $9, $10, 'oauth', $10)",
        )
        .bind(flow.id)
        .bind(user.id())
        .bind(&auth_code)
        .bind(&flow.code_challenge_method)
        .bind(&flow.code_challenge)
        .bind(provider.name())
        .bind(&access_token)
        .bind(&refresh_token)
        .bind(flow.created_at)
        .bind(state.now())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        return Ok(found(redirect::with_query(
            &target,
            &[("code", &auth_code)],
        )));
    }

    let session = sessions::create(
        &state,
        &mut tx,
        &user,
        NewSession {
            method: "oauth",
            user_agent: crate::request::user_agent(&input.headers),
            ip: Some(input.ip.clone()),
            provider_token: Some(access_token.clone()),
            provider_refresh_token: refresh_token.clone(),
        },
    )
    .await?;
    tx.commit().await?;
    let text = |key: &str| match &session[key] {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let mut params = vec![
        ("access_token", text("access_token")),
        ("expires_at", text("expires_at")),
        ("expires_in", text("expires_in")),
        ("provider_token", access_token),
        ("refresh_token", text("refresh_token")),
        ("token_type", "bearer".to_owned()),
    ];
    if let Some(r) = refresh_token {
        params.push(("provider_refresh_token", r));
    }
    let params: Vec<(&str, &str)> = params.iter().map(|(k, v)| (*k, v.as_str())).collect();
    Ok(found(redirect::with_fragment(&target, &params)))
}

/// What a provider says about its user.
#[derive(Debug, Clone)]
struct Profile {
    id: String,
    email: Option<String>,
    email_verified: bool,
    name: Option<String>,
    avatar_url: Option<String>,
    user_name: Option<String>,
    issuer: String,
}

impl Profile {
    fn identity_data(&self) -> Value {
        let mut data = json!({
            "iss": self.issuer,
            "sub": self.id,
            "provider_id": self.id,
            "email": self.email,
            "email_verified": self.email_verified,
            "phone_verified": false,
        });
        if let Some(name) = &self.name {
            data["name"] = json!(name);
            data["full_name"] = json!(name);
        }
        if let Some(avatar) = &self.avatar_url {
            data["avatar_url"] = json!(avatar);
            data["picture"] = json!(avatar);
        }
        if let Some(user_name) = &self.user_name {
            data["user_name"] = json!(user_name);
            data["preferred_username"] = json!(user_name);
        }
        data
    }
}

fn string_of(value: &Value, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| match value.get(*k) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    })
}

async fn get_json(state: &AuthState, url: &str, token: &str) -> Result<Value> {
    let response = state
        .http()
        .get(url)
        .bearer_auth(token)
        .header(header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(AuthError::internal)?;
    if !response.status().is_success() {
        return Err(AuthError::internal(format!(
            "{url} answered {}",
            response.status()
        )));
    }
    response.json().await.map_err(AuthError::internal)
}

async fn fetch_profile(state: &AuthState, provider: Provider, token: &str) -> Result<Profile> {
    let config = provider.config(state);
    let user = get_json(state, &config.userinfo_url, token).await?;
    let id = string_of(&user, &["id", "sub"])
        .ok_or_else(|| AuthError::internal("provider user without an id"))?;
    match provider {
        Provider::GitHub => {
            let emails = get_json(state, &config.emails_url, token).await?;
            let list = emails.as_array().cloned().unwrap_or_default();
            let verified = |e: &&Value| e.get("verified").and_then(Value::as_bool) == Some(true);
            let primary = |e: &&Value| e.get("primary").and_then(Value::as_bool) == Some(true);
            let chosen = list
                .iter()
                .find(|e| verified(e) && primary(e))
                .or_else(|| list.iter().find(verified));
            let (email, email_verified) = match chosen {
                Some(e) => (string_of(e, &["email"]), true),
                None => (string_of(&user, &["email"]), false),
            };
            Ok(Profile {
                id,
                email: email.map(|e| e.to_lowercase()),
                email_verified,
                name: string_of(&user, &["name", "login"]),
                avatar_url: string_of(&user, &["avatar_url"]),
                user_name: string_of(&user, &["login"]),
                issuer: "https://api.github.com".into(),
            })
        }
        Provider::Google => Ok(Profile {
            id,
            email: string_of(&user, &["email"]).map(|e| e.to_lowercase()),
            email_verified: ["email_verified", "verified_email"]
                .iter()
                .any(|k| user.get(*k).and_then(Value::as_bool) == Some(true)),
            name: string_of(&user, &["name"]),
            avatar_url: string_of(&user, &["picture"]),
            user_name: None,
            issuer: "https://accounts.google.com".into(),
        }),
    }
}

/// The user for a provider identity: the identity's owner; else the account
/// with the same verified e-mail address (linked); else a new account.
async fn sign_in_external(
    state: &AuthState,
    conn: &mut PgConnection,
    provider: Provider,
    profile: &Profile,
) -> Result<User> {
    let now = state.now();
    let identity_data = profile.identity_data();
    let owner: Option<Uuid> = sqlx::query_scalar(
        "update auth.identities set identity_data = $3, last_sign_in_at = $4, updated_at = $4 \
         where provider = $1 and provider_id = $2 returning user_id",
    )
    .bind(provider.name())
    .bind(&profile.id)
    .bind(&identity_data)
    .bind(now)
    .fetch_optional(&mut *conn)
    .await?;
    if let Some(user_id) = owner
        && let Some(user) = users::find_by_id(conn, user_id).await?
    {
        return Ok(user);
    }
    let email = match (&profile.email, profile.email_verified) {
        (Some(email), true) => email.clone(),
        _ => {
            return Err(AuthError::unprocessable(
                "provider_email_needs_verification",
                format!(
                    "Unverified email with {}. Verify the email with {} and try again",
                    provider.name(),
                    provider.name()
                ),
            ));
        }
    };
    let user = match users::find_by_email(conn, &email).await? {
        Some(existing) => {
            users::claim_unconfirmed(conn, &existing, now).await?;
            sqlx::query(
                "update auth.users set raw_app_meta_data = $2, updated_at = $3 where id = $1",
            )
            .bind(existing.id())
            .bind(users::add_provider(
                &existing.row.app_metadata,
                provider.name(),
            ))
            .bind(now)
            .execute(&mut *conn)
            .await?;
            existing
        }
        None => {
            if state.config().disable_signup {
                return Err(AuthError::unprocessable(
                    "signup_disabled",
                    "Signups not allowed for this instance",
                ));
            }
            insert_user(
                state,
                conn,
                NewUser {
                    email: Some(&email),
                    password_hash: None,
                    user_metadata: identity_data.clone(),
                    app_metadata: json!({"provider": provider.name(), "providers": [provider.name()]}),
                    confirmed_at: Some(now),
                    is_anonymous: false,
                    role: "authenticated",
                    email_identity: false,
                },
            )
            .await?
        }
    };
    sqlx::query(
        "insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at) \
         values ($1, $2, $3, $4, $5, $5, $5)",
    )
    .bind(&profile.id)
    .bind(user.id())
    .bind(&identity_data)
    .bind(provider.name())
    .bind(now)
    .execute(&mut *conn)
    .await?;
    users::find_by_id(conn, user.id())
        .await?
        .ok_or_else(|| AuthError::internal("user vanished while linking"))
}

fn flow_not_found() -> AuthError {
    AuthError::not_found(
        "flow_state_not_found",
        "invalid flow state, no valid flow state found",
    )
}

/// `POST /token?grant_type=pkce`: the auth code and the verifier of its
/// challenge for a Session.
pub async fn exchange_code(
    state: &AuthState,
    input: &Input,
    code: &str,
    verifier: &str,
) -> Result<Value> {
    let mut tx = state.db().owner.begin().await?;
    let row = sqlx::query(sqlx::AssertSqlSafe(format!(
        "select {FLOW_COLUMNS} from auth.flow_state \
         where auth_code = $1 and auth_code_issued_at is not null and user_id is not null for update"
    )))
    .bind(code)
    .fetch_optional(&mut *tx)
    .await?;
    let flow = Flow::from_row(&row.ok_or_else(flow_not_found)?)?;
    let expiry = chrono::Duration::seconds(state.config().flow_state_expiry);
    if flow
        .auth_code_issued_at
        .is_none_or(|at| at + expiry < state.now())
    {
        sqlx::query("delete from auth.flow_state where id = $1")
            .bind(flow.id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        return Err(AuthError::unprocessable(
            "flow_state_expired",
            "Flow state has expired, please restart the flow",
        ));
    }
    let method = flow
        .code_challenge_method
        .as_deref()
        .and_then(ChallengeMethod::parse)
        .ok_or_else(flow_not_found)?;
    let challenge = flow.code_challenge.clone().unwrap_or_default();
    if !pkce_matches(method, &challenge, verifier) {
        return Err(AuthError::bad_request(
            "bad_code_verifier",
            "code challenge does not match previously saved code verifier",
        ));
    }
    sqlx::query("delete from auth.flow_state where id = $1")
        .bind(flow.id)
        .execute(&mut *tx)
        .await?;
    let user_id = flow.user_id.ok_or_else(flow_not_found)?;
    let user = users::find_by_id(&mut tx, user_id)
        .await?
        .ok_or_else(|| AuthError::not_found("user_not_found", "User not found"))?;
    if user.row.is_banned(state.now()) {
        return Err(AuthError::bad_request("user_banned", "User is banned"));
    }
    let method = match flow.authentication_method.as_str() {
        "oauth" => "oauth",
        "recovery" => "recovery",
        "magiclink" => "magiclink",
        _ => "otp",
    };
    let session = sessions::create(
        state,
        &mut tx,
        &user,
        NewSession {
            method,
            user_agent: crate::request::user_agent(&input.headers),
            ip: Some(input.ip.clone()),
            provider_token: flow.provider_access_token.clone(),
            provider_refresh_token: flow.provider_refresh_token.clone(),
        },
    )
    .await?;
    tx.commit().await?;
    Ok(session)
}
