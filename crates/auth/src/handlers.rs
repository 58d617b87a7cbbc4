//! The e-mail/password endpoints: sign-up, token grants, the user, logout,
//! e-mail links (verify, recover, resend, otp), settings.

use std::collections::HashMap;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{FromRequest, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use sqlx::PgConnection;
use uuid::Uuid;

use crate::AuthState;
use crate::error::{AuthError, Result};
use crate::mailer::Mail;
use crate::password::{self, Verdict};
use crate::ratelimit::Limited;
use crate::redirect;
use crate::request::{self, Caller};
use crate::sessions::{self, NewSession};
use crate::tokens::{self, ChallengeMethod, PKCE_PREFIX};
use crate::users::{self, INSTANCE_ID, TokenColumn, User};

/// A request read whole: headers, query, client IP and body.
pub struct Input {
    pub headers: HeaderMap,
    pub query: HashMap<String, String>,
    pub ip: String,
    pub body: Bytes,
}

impl<S: Send + Sync> FromRequest<S> for Input {
    type Rejection = AuthError;

    async fn from_request(req: Request, _state: &S) -> Result<Self> {
        let (parts, body) = req.into_parts();
        let body = axum::body::to_bytes(body, 1024 * 1024).await.map_err(|_| {
            AuthError::api(
                StatusCode::PAYLOAD_TOO_LARGE,
                "request_too_large",
                "Request body too large",
            )
        })?;
        Ok(Self {
            ip: request::client_ip(&parts.headers, &parts.extensions),
            query: request::query_map(parts.uri.query()),
            headers: parts.headers,
            body,
        })
    }
}

impl Input {
    pub(crate) fn json<T: serde::de::DeserializeOwned>(&self) -> Result<T> {
        request::json_body(&self.body)
    }

    fn redirect_to(&self, state: &AuthState) -> String {
        redirect::choose(
            self.query.get("redirect_to").map(String::as_str),
            &state.config().site_url,
            &state.config().uri_allow_list,
        )
    }

    fn session_info(&self, method: &'static str) -> NewSession {
        NewSession {
            method,
            user_agent: request::user_agent(&self.headers),
            ip: Some(self.ip.clone()),
            ..Default::default()
        }
    }
}

/// A PKCE challenge from a request body, if the client started one.
#[derive(Debug, Clone)]
pub(crate) struct Challenge {
    pub challenge: String,
    pub method: ChallengeMethod,
}

pub(crate) fn challenge_from(
    challenge: Option<&str>,
    method: Option<&str>,
) -> Result<Option<Challenge>> {
    match (
        challenge.filter(|c| !c.is_empty()),
        method.filter(|m| !m.is_empty()),
    ) {
        (None, None) => Ok(None),
        (Some(challenge), Some(method)) => {
            let method = ChallengeMethod::parse(method).ok_or_else(|| {
                AuthError::validation(format!("code challenge method not supported: {method}"))
            })?;
            if !(43..=128).contains(&challenge.len()) {
                return Err(AuthError::validation(
                    "code challenge has to be between 43 and 128 characters",
                ));
            }
            Ok(Some(Challenge {
                challenge: challenge.to_owned(),
                method,
            }))
        }
        _ => Err(AuthError::validation(
            "PKCE flow requires code_challenge_method and code_challenge",
        )),
    }
}

/// Records a PKCE flow that an e-mail link will finish.
pub(crate) async fn create_email_flow(
    state: &AuthState,
    conn: &mut PgConnection,
    user_id: Uuid,
    challenge: &Challenge,
    authentication_method: &str,
) -> Result<()> {
    let now = state.now();
    sqlx::query(
        "insert into auth.flow_state (id, user_id, auth_code, code_challenge_method, code_challenge, \
           provider_type, created_at, updated_at, authentication_method) \
         values ($1, $2, $3, $4::auth.code_challenge_method, $5, 'email', $6, $6, $7)",
    )
    .bind(Uuid::new_v4())
    .bind(user_id)
    .bind(Uuid::new_v4().to_string())
    .bind(challenge.method.as_str())
    .bind(&challenge.challenge)
    .bind(now)
    .bind(authentication_method)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// What kind of e-mail link to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LinkKind {
    Signup,
    Recovery,
    MagicLink,
}

impl LinkKind {
    fn column(self) -> TokenColumn {
        match self {
            Self::Signup => TokenColumn::Confirmation,
            Self::Recovery | Self::MagicLink => TokenColumn::Recovery,
        }
    }

    fn type_name(self) -> &'static str {
        match self {
            Self::Signup => "signup",
            Self::Recovery => "recovery",
            Self::MagicLink => "magiclink",
        }
    }

    fn flow_method(self) -> &'static str {
        match self {
            Self::Signup => "email/signup",
            Self::Recovery => "recovery",
            Self::MagicLink => "magiclink",
        }
    }

    fn subject(self) -> &'static str {
        match self {
            Self::Signup => "Confirm your signup",
            Self::Recovery => "Reset your password",
            Self::MagicLink => "Your sign-in link",
        }
    }

    fn sentence(self) -> &'static str {
        match self {
            Self::Signup => "Follow this link to confirm your account:",
            Self::Recovery => "Follow this link to reset the password for your account:",
            Self::MagicLink => "Follow this link to sign in:",
        }
    }
}

/// Lets a request for an e-mail to `email` through: one per address per
/// `GOTRUE_SMTP_MAX_FREQUENCY` and at most `per_email` per window, counted
/// whether or not the address has an account (so the answer does not tell),
/// before anything is looked up. 429 `over_email_send_rate_limit` otherwise.
pub(crate) fn email_gate(state: &AuthState, email: &str) -> Result<()> {
    let email = email.to_lowercase();
    state
        .limits()
        .mail_frequency
        .check(&email)
        .map_err(AuthError::email_too_soon)?;
    if state.limits().mail_per_address.check(&email).is_err() {
        return Err(AuthError::email_rate_limited());
    }
    crate::ratelimit::email_sent(state)
}

/// Sends `mail`. Through SMTP it goes in the background, so that neither the
/// time a relay takes nor its failure tells a caller whether an address has
/// an account (failures are logged); the dev mailbox stores it at once.
pub(crate) async fn deliver(state: &AuthState, mail: Mail) -> Result<()> {
    if state.mailer().is_dev_mailbox() {
        return state.mailer().send(mail).await;
    }
    let mailer = state.mailer().clone();
    tokio::spawn(async move {
        let subject = mail.subject.clone();
        if let Err(error) = mailer.send(mail).await {
            tracing::error!(%error, %subject, "auth e-mail not sent");
        }
    });
    Ok(())
}

/// Stores a fresh token of `kind` for `user` and mails the link and code to
/// `to` (the caller let the request through [`email_gate`]). With a PKCE
/// challenge the link finishes with `?code=`.
pub(crate) async fn send_link(
    state: &AuthState,
    conn: &mut PgConnection,
    user: &User,
    kind: LinkKind,
    to: &str,
    redirect_to: &str,
    challenge: Option<&Challenge>,
) -> Result<()> {
    // One of these went out a moment ago (through another node, whose
    // gate this one did not see): the one sent stands, and the answer is
    // the same as when a mail goes out.
    let sent_at = match kind.column() {
        TokenColumn::Confirmation => user.row.confirmation_sent_at,
        TokenColumn::Recovery => user.row.recovery_sent_at,
    };
    let frequency = chrono::Duration::from_std(state.config().rate_limits.email_max_frequency)
        .unwrap_or(chrono::Duration::MAX);
    if sent_at.is_some_and(|at| at + frequency > state.now()) {
        tracing::debug!(
            kind = kind.type_name(),
            "e-mail link sent moments ago; not again"
        );
        return Ok(());
    }
    let code = tokens::otp();
    let mut stored = tokens::token_hash(state.email_token_key(), to, &code);
    if let Some(challenge) = challenge {
        create_email_flow(state, conn, user.id(), challenge, kind.flow_method()).await?;
        stored = format!("{PKCE_PREFIX}{stored}");
    }
    users::set_token(conn, user.id(), kind.column(), &stored, to, state.now()).await?;
    let link = redirect::with_query(
        &format!("{}/verify", state.auth_base()),
        &[
            ("token", &stored),
            ("type", kind.type_name()),
            ("redirect_to", redirect_to),
        ],
    );
    let text = format!(
        "{}\n\n{link}\n\nOr enter this code: {code}\n\nIf you did not ask for this, ignore this e-mail.\n",
        kind.sentence()
    );
    deliver(
        state,
        Mail {
            to: to.to_owned(),
            subject: kind.subject().to_owned(),
            text,
        },
    )
    .await
}

fn json_response(value: Value) -> Response {
    Json(value).into_response()
}

pub(crate) fn is_unique_violation(error: &AuthError) -> bool {
    matches!(error, AuthError::Database(sqlx::Error::Database(db)) if db.code().as_deref() == Some("23505"))
}

pub(crate) fn email_exists() -> AuthError {
    AuthError::unprocessable(
        "email_exists",
        "A user with this email address has already been registered",
    )
}

/// A new user row plus its `email` identity (none for anonymous users).
pub(crate) struct NewUser<'a> {
    pub email: Option<&'a str>,
    pub password_hash: Option<String>,
    pub user_metadata: Value,
    pub app_metadata: Value,
    pub confirmed_at: Option<DateTime<Utc>>,
    pub is_anonymous: bool,
    pub role: &'a str,
    /// Whether the user gets an `email` identity (not for OAuth sign-ups).
    pub email_identity: bool,
}

pub(crate) async fn insert_user(
    state: &AuthState,
    conn: &mut PgConnection,
    new: NewUser<'_>,
) -> Result<User> {
    let now = state.now();
    let id = Uuid::new_v4();
    let result = sqlx::query(
        "insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at, \
           raw_app_meta_data, raw_user_meta_data, created_at, updated_at, is_anonymous, \
           confirmation_token, recovery_token, email_change_token_new, email_change) \
         values ($1, $2, 'authenticated', $3, $4, $5, $6, $7, $8, $9, $9, $10, '', '', '', '')",
    )
    .bind(INSTANCE_ID)
    .bind(id)
    .bind(new.role)
    .bind(new.email)
    .bind(&new.password_hash)
    .bind(new.confirmed_at)
    .bind(&new.app_metadata)
    .bind(&new.user_metadata)
    .bind(now)
    .bind(new.is_anonymous)
    .execute(&mut *conn)
    .await
    .map_err(AuthError::from);
    if let Err(e) = result {
        return Err(if is_unique_violation(&e) {
            email_exists()
        } else {
            e
        });
    }
    if let Some(email) = new.email.filter(|_| new.email_identity) {
        sqlx::query(
            "insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at) \
             values ($1, $2, $3, 'email', $4, $4, $4)",
        )
        .bind(id.to_string())
        .bind(id)
        .bind(json!({
            "sub": id.to_string(),
            "email": email,
            "email_verified": new.confirmed_at.is_some(),
            "phone_verified": false,
        }))
        .bind(now)
        .execute(&mut *conn)
        .await?;
    }
    users::find_by_id(conn, id)
        .await?
        .ok_or_else(|| AuthError::internal("inserted user vanished"))
}

/// Marks the user's e-mail address confirmed (and its identity verified).
async fn confirm_email(state: &AuthState, conn: &mut PgConnection, user_id: Uuid) -> Result<()> {
    let now = state.now();
    sqlx::query(
        "update auth.users set email_confirmed_at = coalesce(email_confirmed_at, $2), updated_at = $2 where id = $1",
    )
    .bind(user_id)
    .bind(now)
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "update auth.identities set identity_data = identity_data || '{\"email_verified\": true}'::jsonb, updated_at = $2 \
         where user_id = $1 and provider = 'email'",
    )
    .bind(user_id)
    .bind(now)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

fn metadata_object(value: Option<Value>, what: &str) -> Result<Value> {
    match value {
        None | Some(Value::Null) => Ok(json!({})),
        Some(Value::Object(map)) => Ok(Value::Object(map)),
        Some(_) => Err(AuthError::validation(format!("{what} must be an object"))),
    }
}

fn normalise_email(email: &str) -> Result<String> {
    crate::email_address::validate(email.trim())
}

// ---------------------------------------------------------------- sign-up

#[derive(Debug, Deserialize)]
struct SignupBody {
    email: Option<String>,
    phone: Option<String>,
    password: Option<String>,
    data: Option<Value>,
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
}

/// `POST /signup`.
pub async fn signup(State(state): State<AuthState>, input: Input) -> Result<Response> {
    let config = state.config();
    crate::ratelimit::limit_request(&state, &input, Limited::SignIn)?;
    let body: SignupBody = input.json()?;
    if config.disable_signup {
        return Err(AuthError::unprocessable(
            "signup_disabled",
            "Signups not allowed for this instance",
        ));
    }
    let user_metadata = metadata_object(body.data, "data")?;
    let email = body
        .email
        .as_deref()
        .map(str::trim)
        .filter(|e| !e.is_empty());
    let phone = body
        .phone
        .as_deref()
        .map(str::trim)
        .filter(|p| !p.is_empty());
    if phone.is_some() && email.is_some() {
        return Err(AuthError::validation(
            "Only an email address or phone number should be provided on signup.",
        ));
    }
    if phone.is_some() {
        return crate::phone::signup(&state, &input, user_metadata).await;
    }
    let Some(email) = email else {
        return anonymous_signup(&state, &input, user_metadata).await;
    };
    if !config.email_enabled {
        return Err(AuthError::unprocessable(
            "email_provider_disabled",
            "Email signups are disabled",
        ));
    }
    let email = normalise_email(email)?;
    let password = body
        .password
        .filter(|p| !p.is_empty())
        .ok_or_else(|| AuthError::validation("Signup requires a valid password"))?;
    password::check_strength(&password, config.password_min_length)?;
    let challenge = challenge_from(
        body.code_challenge.as_deref(),
        body.code_challenge_method.as_deref(),
    )?;
    let redirect_to = input.redirect_to(&state);
    if !config.mailer_autoconfirm {
        email_gate(&state, &email)?;
    }
    // Hashed before the transaction opens, so no connection waits on it.
    let hash = password::hash(password, config.password_hash).await?;

    let mut tx = state.db().owner.begin().await?;
    if let Some(existing) = users::find_by_email(&mut tx, &email).await? {
        if config.mailer_autoconfirm {
            // A session would follow a new sign-up: nothing to look alike.
            return Err(AuthError::unprocessable(
                "user_already_exists",
                "User already registered",
            ));
        }
        // Confirmations on: the answer looks like a new sign-up's, so it does
        // not tell whether the address has an account; the owner hears of it
        // by e-mail (a new confirmation link while unconfirmed).
        if existing.row.email_confirmed_at.is_some() {
            deliver(&state, account_exists_mail(&state, &email)).await?;
        } else {
            send_link(
                &state,
                &mut tx,
                &existing,
                LinkKind::Signup,
                &email,
                &redirect_to,
                challenge.as_ref(),
            )
            .await?;
        }
        tx.commit().await?;
        return Ok(json_response(look_alike_user(
            &state,
            &email,
            user_metadata,
        )));
    }

    let user = insert_user(
        &state,
        &mut tx,
        NewUser {
            email: Some(&email),
            password_hash: Some(hash),
            user_metadata,
            app_metadata: json!({"provider": "email", "providers": ["email"]}),
            confirmed_at: config.mailer_autoconfirm.then(|| state.now()),
            is_anonymous: false,
            role: "authenticated",
            email_identity: true,
        },
    )
    .await?;
    if config.mailer_autoconfirm {
        let session =
            sessions::create(&state, &mut tx, &user, input.session_info("password")).await?;
        tx.commit().await?;
        return Ok(json_response(session));
    }
    send_link(
        &state,
        &mut tx,
        &user,
        LinkKind::Signup,
        &email,
        &redirect_to,
        challenge.as_ref(),
    )
    .await?;
    let user = users::find_by_id(&mut tx, user.id()).await?.unwrap_or(user);
    tx.commit().await?;
    Ok(json_response(user.to_json()))
}

/// `at` as the database keeps it (microseconds), so a made-up timestamp
/// prints like a stored one.
fn as_stored(at: DateTime<Utc>) -> DateTime<Utc> {
    DateTime::from_timestamp_micros(at.timestamp_micros()).unwrap_or(at)
}

/// The answer to a sign-up of an address that already has an account, with
/// confirmations on: the user a new sign-up would have made (a new id, an
/// `email` identity, a confirmation just sent), built as a stored user is
/// printed, so that nothing in it tells the two apart. Nothing is stored.
fn look_alike_user(state: &AuthState, email: &str, user_metadata: Value) -> Value {
    let created = as_stored(state.now());
    let sent = as_stored(state.now());
    let id = Uuid::new_v4();
    let user = User {
        row: users::UserRow {
            id,
            aud: "authenticated".into(),
            role: "authenticated".into(),
            email: email.to_owned(),
            encrypted_password: None,
            email_confirmed_at: None,
            invited_at: None,
            confirmation_sent_at: Some(sent),
            recovery_sent_at: None,
            email_change: None,
            email_change_sent_at: None,
            last_sign_in_at: None,
            app_metadata: json!({"provider": "email", "providers": ["email"]}),
            user_metadata,
            created_at: Some(created),
            updated_at: Some(sent),
            phone: String::new(),
            phone_confirmed_at: None,
            confirmed_at: None,
            banned_until: None,
            deleted_at: None,
            is_anonymous: false,
            phone_change: None,
        },
        identities: vec![users::IdentityRow {
            id: Uuid::new_v4(),
            provider_id: id.to_string(),
            user_id: id,
            identity_data: json!({
                "sub": id.to_string(),
                "email": email,
                "email_verified": false,
                "phone_verified": false,
            }),
            provider: "email".into(),
            email: Some(email.to_lowercase()),
            last_sign_in_at: Some(created),
            created_at: Some(created),
            updated_at: Some(created),
        }],
        factors: Vec::new(),
    };
    user.to_json()
}

/// What the owner of an address gets when someone signs up with it again.
fn account_exists_mail(state: &AuthState, email: &str) -> Mail {
    let site = &state.config().site_url;
    Mail {
        to: email.to_owned(),
        subject: "Someone tried to sign up with your address".into(),
        text: format!(
            "Someone (maybe you) tried to sign up with this e-mail address, which already has an account.\n\n\
             If it was you, sign in instead, or reset your password if you forgot it:\n\n{site}\n\n\
             If it was not you, you can ignore this e-mail: nothing has changed.\n"
        ),
    }
}

async fn anonymous_signup(
    state: &AuthState,
    input: &Input,
    user_metadata: Value,
) -> Result<Response> {
    if !state.config().anonymous_users {
        return Err(AuthError::unprocessable(
            "anonymous_provider_disabled",
            "Anonymous sign-ins are disabled",
        ));
    }
    crate::ratelimit::limit_request(state, input, Limited::Anonymous)?;
    let mut tx = state.db().owner.begin().await?;
    let user = insert_user(
        state,
        &mut tx,
        NewUser {
            email: None,
            password_hash: None,
            user_metadata,
            app_metadata: json!({}),
            confirmed_at: None,
            is_anonymous: true,
            role: "authenticated",
            email_identity: true,
        },
    )
    .await?;
    let session = sessions::create(state, &mut tx, &user, input.session_info("anonymous")).await?;
    tx.commit().await?;
    Ok(json_response(session))
}

// ---------------------------------------------------------------- /token

#[derive(Debug, Deserialize)]
struct PasswordGrant {
    email: Option<String>,
    phone: Option<String>,
    password: Option<String>,
}

#[derive(Debug, Deserialize)]
struct RefreshGrant {
    refresh_token: Option<String>,
}

#[derive(Debug, Deserialize)]
struct PkceGrant {
    auth_code: Option<String>,
    code_verifier: Option<String>,
}

/// `POST /token?grant_type=password|refresh_token|pkce`.
pub async fn token(State(state): State<AuthState>, input: Input) -> Result<Response> {
    let grant = input
        .query
        .get("grant_type")
        .map(String::as_str)
        .unwrap_or("");
    match grant {
        "password" => {
            crate::ratelimit::limit_request(&state, &input, Limited::SignIn)?;
            password_grant(&state, &input).await
        }
        "refresh_token" => {
            crate::ratelimit::limit_request(&state, &input, Limited::Refresh)?;
            let body: RefreshGrant = input.json()?;
            let token = body
                .refresh_token
                .filter(|t| !t.is_empty())
                .ok_or_else(|| AuthError::validation("refresh_token required"))?;
            Ok(json_response(sessions::refresh(&state, &token).await?))
        }
        "pkce" => {
            crate::ratelimit::limit_request(&state, &input, Limited::SignIn)?;
            let body: PkceGrant = input.json()?;
            let (Some(code), Some(verifier)) = (
                body.auth_code.filter(|c| !c.is_empty()),
                body.code_verifier.filter(|v| !v.is_empty()),
            ) else {
                return Err(AuthError::validation(
                    "invalid request: both auth code and code verifier should be non-empty",
                ));
            };
            Ok(json_response(
                crate::external::exchange_code(&state, &input, &code, &verifier).await?,
            ))
        }
        "id_token" | "web3" => {
            crate::ratelimit::limit_request(&state, &input, Limited::SignIn)?;
            Ok(if grant == "web3" {
                crate::web3::grant(&state, &input).await
            } else {
                crate::id_token::grant(&state, &input).await
            })
        }
        _ => Err(AuthError::bad_request(
            "invalid_credentials",
            "unsupported_grant_type",
        )),
    }
}

async fn password_grant(state: &AuthState, input: &Input) -> Result<Response> {
    let body: PasswordGrant = input.json()?;
    let config = state.config();
    let email = body
        .email
        .as_deref()
        .map(str::trim)
        .filter(|e| !e.is_empty());
    let phone = body
        .phone
        .as_deref()
        .map(str::trim)
        .filter(|p| !p.is_empty());
    if email.is_some() && phone.is_some() {
        return Err(AuthError::validation(
            "Only an email address or phone number should be provided on login.",
        ));
    }
    let Some(email) = email else {
        if let Some(phone) = phone {
            let password = body.password.clone().unwrap_or_default();
            return crate::phone::password_grant(state, input, phone, password).await;
        }
        return Err(AuthError::validation("missing email or phone"));
    };
    if !config.email_enabled {
        return Err(AuthError::bad_request(
            "email_provider_disabled",
            "Email logins are disabled",
        ));
    }
    let email = email.to_lowercase();
    // Failed attempts are counted per account and client address: past the
    // limit this address is refused for this account, the owner elsewhere
    // is not. Counted before the check (so a burst cannot slip past) and
    // taken back when the password was right.
    let address = plinth_limits::address_key(&input.ip);
    let pair = ("email", email.as_str(), address.as_str());
    crate::ratelimit::count_guess(&state.limits().sign_in_failures, pair)?;
    // Failures from everywhere only slow the account's sign-ins down; counted
    // by address whether or not it has an account, so nothing tells.
    let account = ("email", email.as_str());
    let backoff = crate::ratelimit::sign_in_backoff(state, account);
    if !backoff.is_zero() {
        tokio::time::sleep(backoff).await;
    }
    let password = body.password.unwrap_or_default();

    // No connection is held while the password is hashed.
    let user = {
        let mut conn = state.db().owner.acquire().await?;
        users::find_by_email(&mut conn, &email).await?
    };
    let stored = user.as_ref().and_then(|u| u.row.encrypted_password.clone());
    // As long for a missing account, or one without a password, as for any.
    let verdict = state.checker().verify(password.clone(), stored).await?;
    let Some(user) = user.filter(|_| verdict != Verdict::Mismatch) else {
        let _ = state.limits().account_failures.check(account);
        return Err(AuthError::invalid_credentials());
    };
    state.limits().sign_in_failures.refund(pair);
    if verdict == Verdict::MatchNeedsRehash {
        let hash = password::hash(password.clone(), config.password_hash).await?;
        sqlx::query("update auth.users set encrypted_password = $2 where id = $1")
            .bind(user.id())
            .bind(hash)
            .execute(&state.db().owner)
            .await?;
    }
    if user.row.email_confirmed_at.is_none() {
        return Err(AuthError::bad_request(
            "email_not_confirmed",
            "Email not confirmed",
        ));
    }
    if user.row.is_banned(state.now()) {
        return Err(AuthError::bad_request("user_banned", "User is banned"));
    }
    // One statement, atomic without a transaction around it.
    let mut conn = state.db().owner.acquire().await?;
    let mut session =
        sessions::create(state, &mut conn, &user, input.session_info("password")).await?;
    drop(conn);
    if password.chars().count() < config.password_min_length {
        session["weak_password"] = json!({
            "reasons": ["length"],
            "message": format!("Password should be at least {} characters.", config.password_min_length),
        });
    }
    Ok(json_response(session))
}

// ---------------------------------------------------------------- /user

/// `GET /user`.
pub async fn get_user(State(state): State<AuthState>, headers: HeaderMap) -> Result<Response> {
    let Caller { user, .. } = request::caller(&state, &headers).await?;
    Ok(json_response(user.to_json()))
}

#[derive(Debug, Deserialize)]
struct UpdateUserBody {
    email: Option<String>,
    password: Option<String>,
    phone: Option<String>,
    channel: Option<String>,
    nonce: Option<String>,
    data: Option<Value>,
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
}

/// `PUT /user`: `data` merged into `user_metadata`, a new password, a new
/// e-mail address (confirmed through links, see [`crate::email_change`]).
pub async fn update_user(State(state): State<AuthState>, input: Input) -> Result<Response> {
    let Caller { user, session_id } = request::caller(&state, &input.headers).await?;
    let body: UpdateUserBody = input.json()?;
    let config = state.config();
    let data = match body.data {
        None | Some(Value::Null) => None,
        Some(Value::Object(map)) => Some(map),
        Some(_) => return Err(AuthError::validation("data must be an object")),
    };
    // As the platform: a two-factor account's secrets change only from a
    // session that used the second factor.
    let changes_secret = body.password.as_deref().is_some_and(|p| !p.is_empty())
        || body
            .email
            .as_deref()
            .map(str::trim)
            .is_some_and(|e| !e.is_empty() && !e.eq_ignore_ascii_case(&user.row.email))
        || body.phone.as_deref().is_some_and(|p| {
            let p = p.trim();
            !p.is_empty() && crate::sms::format_phone(p) != user.row.phone
        });
    if changes_secret {
        let mut conn = state.db().owner.acquire().await?;
        if crate::mfa::needs_aal2(&mut conn, user.id(), session_id).await? {
            return Err(AuthError::api(
                StatusCode::UNAUTHORIZED,
                "insufficient_aal",
                "AAL2 session is required to update email or password when MFA is enabled.",
            ));
        }
    }
    let new_phone = crate::phone::requested_change(
        &state,
        &user,
        body.phone.as_deref(),
        body.channel.as_deref(),
    )
    .await?;
    let adds_contact = [&body.email, &body.phone]
        .iter()
        .any(|v| v.as_deref().is_some_and(|v| !v.trim().is_empty()));
    crate::reauth::check_update(
        &state,
        &user,
        session_id,
        body.password.as_deref(),
        body.nonce.as_deref(),
        adds_contact,
    )
    .await?;
    let new_email = match body
        .email
        .as_deref()
        .map(str::trim)
        .filter(|e| !e.is_empty())
    {
        Some(email) => {
            let email = normalise_email(email)?;
            (email != user.row.email.to_lowercase()).then_some(email)
        }
        None => None,
    };
    let new_password_hash = match body.password.as_deref() {
        Some(password) if !password.is_empty() => {
            password::check_strength(password, config.password_min_length)?;
            if let Some(stored) = &user.row.encrypted_password {
                let verdict = password::verify(
                    password.to_owned(),
                    Some(stored.clone()),
                    config.password_hash,
                )
                .await?;
                if verdict != Verdict::Mismatch {
                    return Err(AuthError::unprocessable(
                        "same_password",
                        "New password should be different from the old password.",
                    ));
                }
            }
            Some(password::hash(password.to_owned(), config.password_hash).await?)
        }
        _ => None,
    };
    let challenge = challenge_from(
        body.code_challenge.as_deref(),
        body.code_challenge_method.as_deref(),
    )?;
    let now = state.now();
    let mut tx = state.db().owner.begin().await?;
    if let Some(data) = &data {
        let merged = users::merge_metadata(&user.row.user_metadata, data);
        sqlx::query("update auth.users set raw_user_meta_data = $2, updated_at = $3 where id = $1")
            .bind(user.id())
            .bind(merged)
            .bind(now)
            .execute(&mut *tx)
            .await?;
    }
    if let Some(hash) = new_password_hash {
        sqlx::query("update auth.users set encrypted_password = $2, updated_at = $3 where id = $1")
            .bind(user.id())
            .bind(hash)
            .bind(now)
            .execute(&mut *tx)
            .await?;
    }
    if let Some(email) = new_email {
        if let Some(other) = users::find_by_email(&mut tx, &email).await?
            && other.id() != user.id()
        {
            return Err(email_exists());
        }
        let redirect_to = input.redirect_to(&state);
        crate::email_change::request(
            &state,
            &mut tx,
            &user,
            &email,
            &redirect_to,
            challenge.as_ref(),
        )
        .await?;
    }
    if let Some(change) = &new_phone {
        crate::phone::start_change(&state, &mut tx, &user, change).await?;
    }
    let user = users::find_by_id(&mut tx, user.id())
        .await?
        .ok_or_else(|| AuthError::forbidden("user_not_found", "User not found"))?;
    tx.commit().await?;
    Ok(json_response(user.to_json()))
}

// ---------------------------------------------------------------- /logout

/// `POST /logout?scope=global|local|others`: 204.
pub async fn logout(State(state): State<AuthState>, input: Input) -> Result<Response> {
    let scope = input
        .query
        .get("scope")
        .map(String::as_str)
        .unwrap_or("global");
    if !matches!(scope, "global" | "local" | "others") {
        return Err(AuthError::validation(
            "Unsupported logout scope. This must be one of 'global', 'local' or 'others'.",
        ));
    }
    let Caller { user, session_id } = request::caller(&state, &input.headers).await?;
    let pool = &state.db().owner;
    match (scope, session_id) {
        ("local", Some(session)) => {
            sqlx::query("delete from auth.sessions where id = $1")
                .bind(session)
                .execute(pool)
                .await?;
        }
        ("others", Some(session)) => {
            sqlx::query("delete from auth.sessions where user_id = $1 and id <> $2")
                .bind(user.id())
                .bind(session)
                .execute(pool)
                .await?;
        }
        ("others", None) => {}
        _ => {
            sqlx::query("delete from auth.sessions where user_id = $1")
                .bind(user.id())
                .execute(pool)
                .await?;
        }
    }
    Ok(StatusCode::NO_CONTENT.into_response())
}

// ---------------------------------------------------------------- e-mail links

#[derive(Debug, Deserialize)]
struct EmailBody {
    email: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
    create_user: Option<bool>,
    data: Option<Value>,
}

fn required_email(body: &EmailBody) -> Result<String> {
    let email = body
        .email
        .as_deref()
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .ok_or_else(|| AuthError::validation("Password recovery requires an email"))?;
    normalise_email(email)
}

/// `POST /recover`: mails a recovery link when the address has an account;
/// answers `{}` either way.
pub async fn recover(State(state): State<AuthState>, input: Input) -> Result<Response> {
    crate::ratelimit::limit_request(&state, &input, Limited::Otp)?;
    let body: EmailBody = input.json()?;
    let email = required_email(&body)?;
    let challenge = challenge_from(
        body.code_challenge.as_deref(),
        body.code_challenge_method.as_deref(),
    )?;
    let redirect_to = input.redirect_to(&state);
    email_gate(&state, &email)?;
    let mut tx = state.db().owner.begin().await?;
    if let Some(user) = users::find_by_email(&mut tx, &email).await? {
        send_link(
            &state,
            &mut tx,
            &user,
            LinkKind::Recovery,
            &email,
            &redirect_to,
            challenge.as_ref(),
        )
        .await?;
    }
    tx.commit().await?;
    Ok(json_response(json!({})))
}

/// `POST /resend`: the signup confirmation or e-mail change link again.
pub async fn resend(State(state): State<AuthState>, input: Input) -> Result<Response> {
    crate::ratelimit::limit_request(&state, &input, Limited::Otp)?;
    if crate::phone::is_phone_resend(&input) {
        return crate::phone::resend(&state, &input).await;
    }
    let body: EmailBody = input.json()?;
    let email = required_email(&body)?;
    let challenge = challenge_from(
        body.code_challenge.as_deref(),
        body.code_challenge_method.as_deref(),
    )?;
    let redirect_to = input.redirect_to(&state);
    if matches!(body.kind.as_deref(), Some("signup" | "email_change")) {
        email_gate(&state, &email)?;
    }
    let mut tx = state.db().owner.begin().await?;
    match body.kind.as_deref() {
        Some("signup") => {
            if let Some(user) = users::find_by_email(&mut tx, &email).await?
                && user.row.email_confirmed_at.is_none()
            {
                send_link(
                    &state,
                    &mut tx,
                    &user,
                    LinkKind::Signup,
                    &email,
                    &redirect_to,
                    challenge.as_ref(),
                )
                .await?;
            }
        }
        Some("email_change") => {
            crate::email_change::resend(&state, &mut tx, &email, &redirect_to, challenge.as_ref())
                .await?;
        }
        _ => {
            return Err(AuthError::validation(
                "Missing one of these types: signup, email_change, sms, phone_change",
            ));
        }
    }
    tx.commit().await?;
    Ok(json_response(json!({})))
}

/// `POST /otp`: a magic link (and code) by e-mail; creates the user first
/// when `create_user` is true (the default) and sign-ups are allowed.
pub async fn otp(State(state): State<AuthState>, input: Input) -> Result<Response> {
    crate::ratelimit::limit_request(&state, &input, Limited::Otp)?;
    if crate::phone::is_phone_otp(&input) {
        return crate::phone::otp(&state, &input).await;
    }
    let body: EmailBody = input.json()?;
    let email = body
        .email
        .as_deref()
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .ok_or_else(|| AuthError::validation("One of email or phone must be set"))?;
    let email = normalise_email(email)?;
    let challenge = challenge_from(
        body.code_challenge.as_deref(),
        body.code_challenge_method.as_deref(),
    )?;
    let redirect_to = input.redirect_to(&state);
    email_gate(&state, &email)?;
    let mut tx = state.db().owner.begin().await?;
    let user = match users::find_by_email(&mut tx, &email).await? {
        Some(user) => user,
        None => {
            if !body.create_user.unwrap_or(true) || state.config().disable_signup {
                // No account and none to make: answered as when a link goes
                // out, so the answer does not tell (the platform's
                // `otp_disabled` / `signup_disabled` would).
                return Ok(json_response(json!({})));
            }
            insert_user(
                &state,
                &mut tx,
                NewUser {
                    email: Some(&email),
                    password_hash: None,
                    user_metadata: metadata_object(body.data.clone(), "data")?,
                    app_metadata: json!({"provider": "email", "providers": ["email"]}),
                    confirmed_at: None,
                    is_anonymous: false,
                    role: "authenticated",
                    email_identity: true,
                },
            )
            .await?
        }
    };
    let kind = if user.row.email_confirmed_at.is_none() {
        LinkKind::Signup
    } else {
        LinkKind::MagicLink
    };
    send_link(
        &state,
        &mut tx,
        &user,
        kind,
        &email,
        &redirect_to,
        challenge.as_ref(),
    )
    .await?;
    tx.commit().await?;
    Ok(json_response(json!({})))
}

/// What a verified link did.
pub(crate) struct Verified {
    pub user: User,
    /// The PKCE auth code to hand out instead of a session.
    pub auth_code: Option<String>,
    pub method: &'static str,
}

pub(crate) fn otp_invalid() -> AuthError {
    AuthError::forbidden("otp_expired", "Token has expired or is invalid")
}

/// Finds and consumes the token; confirms / recovers / changes the e-mail
/// (`None`: the first of an e-mail change's two confirmations).
async fn consume(
    state: &AuthState,
    conn: &mut PgConnection,
    kind: &str,
    candidates: &[String],
) -> Result<Option<Verified>> {
    let kinds: &[(LinkKind, &'static str)] = match kind {
        "signup" | "invite" => &[(LinkKind::Signup, "otp")],
        "recovery" => &[(LinkKind::Recovery, "recovery")],
        "magiclink" => &[(LinkKind::MagicLink, "otp")],
        "email" => &[(LinkKind::Signup, "otp"), (LinkKind::MagicLink, "otp")],
        "email_change" => return crate::email_change::consume(state, conn, candidates).await,
        _ => {
            return Err(AuthError::validation(format!(
                "Verify requires a verification type: {kind}"
            )));
        }
    };
    for (link, method) in kinds {
        for candidate in candidates {
            let Some(user) = users::find_by_token(conn, link.column(), candidate).await? else {
                continue;
            };
            let sent_at = match link.column() {
                TokenColumn::Confirmation => user.row.confirmation_sent_at,
                TokenColumn::Recovery => user.row.recovery_sent_at,
            };
            let expired = sent_at.is_none_or(|at| {
                at + chrono::Duration::seconds(state.config().otp_expiry) < state.now()
            });
            if expired {
                return Err(otp_invalid());
            }
            users::clear_token(conn, user.id(), link.column()).await?;
            confirm_email(state, conn, user.id()).await?;
            let auth_code = if candidate.starts_with(PKCE_PREFIX) {
                issue_email_flow_code(state, conn, user.id(), link.flow_method()).await?
            } else {
                None
            };
            let user = users::find_by_id(conn, user.id())
                .await?
                .ok_or_else(otp_invalid)?;
            return Ok(Some(Verified {
                user,
                auth_code,
                method,
            }));
        }
    }
    Err(otp_invalid())
}

/// The auth code of the newest pending PKCE flow of this kind for the user.
pub(crate) async fn issue_email_flow_code(
    state: &AuthState,
    conn: &mut PgConnection,
    user_id: Uuid,
    method: &str,
) -> Result<Option<String>> {
    Ok(sqlx::query_scalar(
        "update auth.flow_state set auth_code_issued_at = $3, updated_at = $3 \
         where id = (select id from auth.flow_state where user_id = $1 and authentication_method = $2 \
                     and auth_code_issued_at is null order by created_at desc limit 1) \
         returning auth_code",
    )
    .bind(user_id)
    .bind(method)
    .bind(state.now())
    .fetch_optional(&mut *conn)
    .await?)
}

/// `GET /verify?token=&type=&redirect_to=`: the e-mail link. Redirects (303)
/// with the session in the fragment, `?code=` for PKCE, or an error.
pub async fn verify_link(State(state): State<AuthState>, input: Input) -> Result<Response> {
    let redirect_to = input.redirect_to(&state);
    let kind = input.query.get("type").cloned().unwrap_or_default();
    let token = input.query.get("token").cloned().unwrap_or_default();
    let see_other = |location: String| -> Response {
        (StatusCode::SEE_OTHER, [(header::LOCATION, location)]).into_response()
    };
    let error_redirect = |error: AuthError| -> Result<Response> {
        let (status, code, message) = error.parts();
        if status.is_server_error() {
            return Err(error);
        }
        let oauth_error = match status {
            StatusCode::TOO_MANY_REQUESTS | StatusCode::FORBIDDEN => "access_denied",
            _ => "invalid_request",
        };
        let message = if code == "otp_expired" {
            "Email link is invalid or has expired".to_owned()
        } else {
            message
        };
        let params = [
            ("error", oauth_error),
            ("error_code", code),
            ("error_description", message.as_str()),
        ];
        Ok(see_other(redirect::with_fragment(&redirect_to, &params)))
    };
    if let Err(e) = crate::ratelimit::limit_request(&state, &input, Limited::Verify) {
        return error_redirect(e);
    }
    if token.is_empty() {
        return error_redirect(otp_invalid());
    }
    let mut tx = state.db().owner.begin().await?;
    let verified = match consume(&state, &mut tx, &kind, std::slice::from_ref(&token)).await {
        Ok(Some(v)) => v,
        Ok(None) => {
            tx.commit().await?;
            let pkce = token.starts_with(PKCE_PREFIX);
            let to = crate::email_change::pending_redirect(&redirect_to, pkce);
            return Ok(see_other(to));
        }
        Err(e) => return error_redirect(e),
    };
    if let Some(code) = verified.auth_code {
        tx.commit().await?;
        return Ok(see_other(redirect::with_query(
            &redirect_to,
            &[("code", &code)],
        )));
    }
    let session = sessions::create(
        &state,
        &mut tx,
        &verified.user,
        input.session_info(verified.method),
    )
    .await?;
    tx.commit().await?;
    let text = |key: &str| match &session[key] {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let params = [
        ("access_token", text("access_token")),
        ("expires_at", text("expires_at")),
        ("expires_in", text("expires_in")),
        ("refresh_token", text("refresh_token")),
        ("token_type", "bearer".to_owned()),
        ("type", kind.clone()),
    ];
    let params: Vec<(&str, &str)> = params.iter().map(|(k, v)| (*k, v.as_str())).collect();
    Ok(see_other(redirect::with_fragment(&redirect_to, &params)))
}

#[derive(Debug, Deserialize)]
struct VerifyBody {
    #[serde(rename = "type")]
    kind: Option<String>,
    token: Option<String>,
    token_hash: Option<String>,
    email: Option<String>,
}

/// `POST /verify`: `{type, token_hash}` or `{type, email, token}` (the
/// six-digit code). Answers a Session.
pub async fn verify_post(State(state): State<AuthState>, input: Input) -> Result<Response> {
    crate::ratelimit::limit_request(&state, &input, Limited::Verify)?;
    let body: VerifyBody = input.json()?;
    if matches!(body.kind.as_deref(), Some("sms" | "phone_change")) {
        return crate::phone::verify(&state, &input).await;
    }
    let kind = body
        .kind
        .filter(|k| !k.is_empty())
        .ok_or_else(|| AuthError::validation("Verify requires a verification type"))?;
    // A code (six digits) is guessable; its tries are counted per account,
    // from any address. A link's token is a keyed hash nobody can compute.
    let mut code_tries = None;
    let candidates: Vec<String> = match (body.token_hash.filter(|t| !t.is_empty()), body.token) {
        (Some(hash), _) => vec![hash],
        (None, Some(code)) if !code.is_empty() => {
            let email = body
                .email
                .as_deref()
                .map(str::trim)
                .filter(|e| !e.is_empty())
                .ok_or_else(|| {
                    AuthError::validation(
                        "Only an email address or phone number should be provided on verify",
                    )
                })?;
            let tries = ("email", email.to_lowercase());
            crate::ratelimit::count_guess(&state.limits().code_failures, &tries)?;
            code_tries = Some(tries);
            let hash = tokens::token_hash(state.email_token_key(), email, code.trim());
            vec![hash.clone(), format!("{PKCE_PREFIX}{hash}")]
        }
        _ => {
            return Err(AuthError::validation(
                "Verify requires either a token or a token hash",
            ));
        }
    };
    let mut tx = state.db().owner.begin().await?;
    let verified = consume(&state, &mut tx, &kind, &candidates).await?;
    if let Some(tries) = code_tries {
        state.limits().code_failures.refund(&tries);
    }
    let Some(verified) = verified else {
        tx.commit().await?;
        let pending = json!({"msg": crate::email_change::ONE_OF_TWO, "code": "200"});
        return Ok(json_response(pending));
    };
    let session = sessions::create(
        &state,
        &mut tx,
        &verified.user,
        input.session_info(verified.method),
    )
    .await?;
    tx.commit().await?;
    Ok(json_response(session))
}

// ---------------------------------------------------------------- misc

/// `GET /settings`.
pub async fn settings(State(state): State<AuthState>) -> Json<Value> {
    let c = state.config();
    let mut external = Map::new();
    for provider in [
        "azure",
        "bitbucket",
        "discord",
        "facebook",
        "figma",
        "fly",
        "gitlab",
        "keycloak",
        "kakao",
        "linkedin",
        "linkedin_oidc",
        "notion",
        "spotify",
        "slack",
        "slack_oidc",
        "workos",
        "twitch",
        "twitter",
        "x",
        "zoom",
    ] {
        external.insert(provider.into(), json!(false));
    }
    external.insert("anonymous_users".into(), json!(c.anonymous_users));
    external.insert("email".into(), json!(c.email_enabled));
    external.insert("phone".into(), json!(c.sms.phone_enabled));
    external.insert("github".into(), json!(c.github.enabled));
    // One switch on the platform for a provider's redirect sign-in and its
    // ID tokens; here Google has both and Apple ID tokens only.
    external.insert(
        "google".into(),
        json!(c.google.enabled || c.id_token_google.enabled),
    );
    external.insert("apple".into(), json!(c.id_token_apple.enabled));
    Json(json!({
        "external": external,
        "disable_signup": c.disable_signup,
        "mailer_autoconfirm": c.mailer_autoconfirm,
        "phone_autoconfirm": c.sms.autoconfirm,
        "sms_provider": c.sms.provider.map_or("", |p| p.name()),
        "saml_enabled": false,
        "saml_private_key_next_configured": false,
        "passkeys_enabled": c.passkeys.enabled,
    }))
}

/// `GET /health`.
pub async fn health() -> Json<Value> {
    Json(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "name": "GoTrue",
        "description": "GoTrue is a user registration and authentication API",
    }))
}

/// `GET /.well-known/jwks.json`: the public parts of the asymmetric keys of
/// `GOTRUE_JWT_KEYS` (none for HS256-only projects), cached for ten minutes
/// as GoTrue lets them be.
pub async fn jwks(State(state): State<AuthState>) -> impl IntoResponse {
    (
        [(header::CACHE_CONTROL, "public, max-age=600")],
        Json(state.jwt().jwks()),
    )
}

/// Anything else under `/auth/v1`.
pub async fn not_found() -> AuthError {
    AuthError::not_found("not_found", "Not found")
}
