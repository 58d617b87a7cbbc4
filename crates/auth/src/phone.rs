//! Phone sign-in, as the platform's: sign-up with a number and password
//! (confirmed by an SMS code unless `GOTRUE_SMS_AUTOCONFIRM`), one-time
//! codes by SMS (`POST /otp` with `phone`), `POST /verify` with type `sms`
//! or `phone_change`, `POST /resend` for those types, the password grant by
//! number, and a new number through `PUT /user`.
//!
//! Numbers are kept as the platform keeps them: E.164 digits without `+`.
//! Codes are stored only as keyed hashes (as e-mail codes), in the
//! platform's columns: `confirmation_token` / `confirmation_sent_at` for
//! sign-up and sign-in codes, `phone_change_token` / `phone_change_sent_at`
//! for a new number, mirrored into `auth.one_time_tokens`.

use axum::Json;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use sqlx::{PgConnection, Row};
use uuid::Uuid;

use crate::AuthState;
use crate::error::{AuthError, Result};
use crate::handlers::Input;
use crate::password::{self, Verdict};
use crate::request;
use crate::sessions::{self, NewSession};
use crate::sms::{self, SentCode};
use crate::tokens;
use crate::users::{self, INSTANCE_ID, User};

/// The phone columns of a user.
#[derive(Debug, Clone)]
pub(crate) struct PhoneRow {
    pub id: Uuid,
    pub phone_confirmed_at: Option<DateTime<Utc>>,
    pub confirmation_token: Option<String>,
    pub confirmation_sent_at: Option<DateTime<Utc>>,
    pub phone_change: Option<String>,
    pub phone_change_token: Option<String>,
    pub phone_change_sent_at: Option<DateTime<Utc>>,
    pub encrypted_password: Option<String>,
    pub banned_until: Option<DateTime<Utc>>,
}

const PHONE_COLUMNS: &str = "id, phone_confirmed_at, confirmation_token, confirmation_sent_at, \
    phone_change, phone_change_token, phone_change_sent_at, encrypted_password, banned_until";

fn non_empty(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.is_empty())
}

impl PhoneRow {
    fn from_row(row: &sqlx::postgres::PgRow) -> sqlx::Result<Self> {
        Ok(Self {
            id: row.try_get("id")?,
            phone_confirmed_at: row.try_get("phone_confirmed_at")?,
            confirmation_token: non_empty(row.try_get("confirmation_token")?),
            confirmation_sent_at: row.try_get("confirmation_sent_at")?,
            phone_change: non_empty(row.try_get("phone_change")?),
            phone_change_token: non_empty(row.try_get("phone_change_token")?),
            phone_change_sent_at: row.try_get("phone_change_sent_at")?,
            encrypted_password: non_empty(row.try_get("encrypted_password")?),
            banned_until: row.try_get("banned_until")?,
        })
    }
}

/// The user whose number is `phone` (formatted).
pub(crate) async fn find_by_phone(
    conn: &mut PgConnection,
    phone: &str,
) -> Result<Option<PhoneRow>> {
    let row = sqlx::query(sqlx::AssertSqlSafe(format!(
        "select {PHONE_COLUMNS} from auth.users \
         where phone = $1 and is_sso_user = false and deleted_at is null limit 1"
    )))
    .bind(phone)
    .fetch_optional(&mut *conn)
    .await?;
    Ok(row.as_ref().map(PhoneRow::from_row).transpose()?)
}

/// The user waiting to change to the number `phone`.
async fn find_by_phone_change(conn: &mut PgConnection, phone: &str) -> Result<Option<PhoneRow>> {
    let row = sqlx::query(sqlx::AssertSqlSafe(format!(
        "select {PHONE_COLUMNS} from auth.users \
         where phone_change = $1 and is_sso_user = false and deleted_at is null \
         order by phone_change_sent_at desc nulls last limit 1"
    )))
    .bind(phone)
    .fetch_optional(&mut *conn)
    .await?;
    Ok(row.as_ref().map(PhoneRow::from_row).transpose()?)
}

pub(crate) async fn phone_row(conn: &mut PgConnection, id: Uuid) -> Result<Option<PhoneRow>> {
    let row = sqlx::query(sqlx::AssertSqlSafe(format!(
        "select {PHONE_COLUMNS} from auth.users where id = $1 and deleted_at is null"
    )))
    .bind(id)
    .fetch_optional(&mut *conn)
    .await?;
    Ok(row.as_ref().map(PhoneRow::from_row).transpose()?)
}

fn session_info(input: &Input, method: &'static str) -> NewSession {
    NewSession {
        method,
        user_agent: request::user_agent(&input.headers),
        ip: Some(input.ip.clone()),
        ..Default::default()
    }
}

fn json_response(value: Value) -> Response {
    Json(value).into_response()
}

fn phone_disabled(message: &str) -> AuthError {
    AuthError::bad_request("phone_provider_disabled", message.to_owned())
}

fn otp_invalid() -> AuthError {
    AuthError::forbidden("otp_expired", "Token has expired or is invalid")
}

fn phone_exists() -> AuthError {
    AuthError::unprocessable(
        "phone_exists",
        "A user with this phone number has already been registered",
    )
}

/// What a code is for: the column pair it lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CodeKind {
    /// Sign-up confirmation and sign-in codes (`confirmation_token`).
    Confirmation,
    /// A new number (`phone_change_token`).
    PhoneChange,
}

impl CodeKind {
    fn token_column(self) -> &'static str {
        match self {
            Self::Confirmation => "confirmation_token",
            Self::PhoneChange => "phone_change_token",
        }
    }

    fn sent_column(self) -> &'static str {
        match self {
            Self::Confirmation => "confirmation_sent_at",
            Self::PhoneChange => "phone_change_sent_at",
        }
    }

    fn one_time_type(self) -> &'static str {
        match self {
            Self::Confirmation => "confirmation_token",
            Self::PhoneChange => "phone_change_token",
        }
    }

    fn purpose(self) -> &'static str {
        match self {
            Self::Confirmation => "confirmation",
            Self::PhoneChange => "phone_change",
        }
    }
}

/// Lets one more SMS through: `GOTRUE_SMS_MAX_FREQUENCY` per number and
/// kind (test numbers too, as on the platform), and the project's
/// `GOTRUE_RATE_LIMIT_SMS_SENT` for codes that really go out.
fn sms_gates(state: &AuthState, phone: &str, sent_at: Option<DateTime<Utc>>) -> Result<()> {
    sms::frequency_gate(state, sent_at)?;
    if sms::test_otp(state, phone).is_none() && !state.config().sms.autoconfirm {
        crate::ratelimit::sms_sent(state)?;
    }
    Ok(())
}

/// Sends a code of `kind` to `phone` for user `id` and stores its hash.
async fn send_code(
    state: &AuthState,
    conn: &mut PgConnection,
    row: &PhoneRow,
    kind: CodeKind,
    phone: &str,
    channel: &str,
) -> Result<SentCode> {
    let sent_at = match kind {
        CodeKind::Confirmation => row.confirmation_sent_at,
        CodeKind::PhoneChange => row.phone_change_sent_at,
    };
    sms_gates(state, phone, sent_at)?;
    let sent = sms::send_code(state, phone, channel, kind.purpose()).await?;
    let hash = tokens::token_hash(state.email_token_key(), phone, &sent.code);
    let now = state.now();
    let change = (kind == CodeKind::PhoneChange).then_some(phone);
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "update auth.users set {} = $2, {} = $3, phone_change = coalesce($4, phone_change), updated_at = $3 \
         where id = $1",
        kind.token_column(),
        kind.sent_column()
    )))
    .bind(row.id)
    .bind(&hash)
    .bind(now)
    .bind(change)
    .execute(&mut *conn)
    .await?;
    users::store_one_time_token(conn, row.id, kind.one_time_type(), &hash, phone, now).await?;
    Ok(sent)
}

/// A write's result, a unique violation (the number is another user's)
/// answered as `phone_exists`.
fn unless_phone_taken<T>(result: sqlx::Result<T>) -> Result<T> {
    if let Err(sqlx::Error::Database(e)) = &result
        && e.code().as_deref() == Some("23505")
    {
        return Err(phone_exists());
    }
    Ok(result?)
}

/// `{}` or `{"message_id": ...}`, as the platform answers code requests.
fn sent_response(sent: Option<&SentCode>) -> Response {
    match sent.and_then(|s| s.message_id.as_deref()) {
        Some(id) => json_response(json!({ "message_id": id })),
        None => json_response(json!({})),
    }
}

/// Inserts a phone user and its `phone` identity.
async fn insert_phone_user(
    state: &AuthState,
    conn: &mut PgConnection,
    phone: &str,
    password_hash: Option<String>,
    user_metadata: Value,
    confirmed: bool,
) -> Result<PhoneRow> {
    let now = state.now();
    let id = Uuid::new_v4();
    let inserted = sqlx::query(
        "insert into auth.users (instance_id, id, aud, role, phone, encrypted_password, phone_confirmed_at, \
           raw_app_meta_data, raw_user_meta_data, created_at, updated_at, is_anonymous, \
           confirmation_token, recovery_token, email_change_token_new, email_change) \
         values ($1, $2, 'authenticated', 'authenticated', $3, $4, $5, $6, $7, $8, $8, false, '', '', '', '')",
    )
    .bind(INSTANCE_ID)
    .bind(id)
    .bind(phone)
    .bind(&password_hash)
    .bind(confirmed.then_some(now))
    .bind(json!({"provider": "phone", "providers": ["phone"]}))
    .bind(&user_metadata)
    .bind(now)
    .execute(&mut *conn)
    .await;
    unless_phone_taken(inserted)?;
    ensure_phone_identity(state, conn, id, phone, false).await?;
    phone_row(conn, id)
        .await?
        .ok_or_else(|| AuthError::internal("inserted phone user vanished"))
}

/// The user's `phone` identity, made when missing; its number updated.
async fn ensure_phone_identity(
    state: &AuthState,
    conn: &mut PgConnection,
    user_id: Uuid,
    phone: &str,
    verified: bool,
) -> Result<()> {
    let mut patch = json!({ "phone": phone });
    if verified {
        patch["phone_verified"] = json!(true);
    }
    let data = json!({
        "sub": user_id.to_string(),
        "phone": phone,
        "email_verified": false,
        "phone_verified": verified,
    });
    users::upsert_identity(conn, user_id, "phone", patch, data, state.now()).await?;
    Ok(())
}

/// `app_metadata.provider(s)` from the user's identities, as the platform
/// keeps them after identities change.
pub(crate) async fn update_providers(conn: &mut PgConnection, user_id: Uuid) -> Result<()> {
    let providers: Vec<String> = sqlx::query_scalar(
        "select provider from auth.identities where user_id = $1 \
         group by provider order by min(created_at), provider",
    )
    .bind(user_id)
    .fetch_all(&mut *conn)
    .await?;
    let mut patch = Map::new();
    if let Some(first) = providers.first() {
        patch.insert("provider".into(), json!(first));
    }
    patch.insert("providers".into(), json!(providers));
    sqlx::query(
        "update auth.users set raw_app_meta_data = coalesce(raw_app_meta_data, '{}'::jsonb) || $2 where id = $1",
    )
    .bind(user_id)
    .bind(Value::Object(patch))
    .execute(&mut *conn)
    .await?;
    Ok(())
}

async fn load_user(conn: &mut PgConnection, id: Uuid) -> Result<User> {
    users::find_by_id(conn, id)
        .await?
        .ok_or_else(|| AuthError::internal("user vanished"))
}

// ---------------------------------------------------------------- sign-up

#[derive(Debug, Deserialize)]
struct SignupBody {
    phone: Option<String>,
    password: Option<String>,
    channel: Option<String>,
    code_challenge: Option<String>,
}

/// `POST /signup` with `phone` (and no `email`).
pub(crate) async fn signup(
    state: &AuthState,
    input: &Input,
    user_metadata: Value,
) -> Result<Response> {
    let config = state.config();
    let body: SignupBody = input.json()?;
    let password = body
        .password
        .filter(|p| !p.is_empty())
        .ok_or_else(|| AuthError::validation("Signup requires a valid password"))?;
    password::check_strength(&password, config.password_min_length)?;
    let channel = sms::validate_channel(state, body.channel.as_deref())?;
    if body
        .code_challenge
        .as_deref()
        .is_some_and(|c| !c.is_empty())
    {
        return Err(AuthError::validation(
            "PKCE not supported for phone signups",
        ));
    }
    if !config.sms.phone_enabled {
        return Err(phone_disabled("Phone signups are disabled"));
    }
    let phone = sms::validate_phone(body.phone.as_deref().unwrap_or(""))?;
    let autoconfirm = config.sms.autoconfirm;
    let hash = password::hash(password, config.password_hash).await?;

    let mut tx = state.db().owner.begin().await?;
    let row = match find_by_phone(&mut tx, &phone).await? {
        Some(existing) => {
            if existing.phone_confirmed_at.is_some() || autoconfirm {
                if autoconfirm || config.mailer_autoconfirm {
                    return Err(AuthError::unprocessable(
                        "user_already_exists",
                        "User already registered",
                    ));
                }
                // Confirmations on: the answer looks like a new sign-up's.
                return Ok(json_response(look_alike_user(state, &phone, user_metadata)));
            }
            // Unconfirmed: a new code; whoever owns the number proves it.
            existing
        }
        None => {
            insert_phone_user(
                state,
                &mut tx,
                &phone,
                Some(hash),
                user_metadata,
                autoconfirm,
            )
            .await?
        }
    };
    if autoconfirm {
        let user = load_user(&mut tx, row.id).await?;
        let session =
            sessions::create(state, &mut tx, &user, session_info(input, "password")).await?;
        tx.commit().await?;
        return Ok(json_response(session));
    }
    send_code(
        state,
        &mut tx,
        &row,
        CodeKind::Confirmation,
        &phone,
        channel,
    )
    .await?;
    let user = load_user(&mut tx, row.id).await?;
    tx.commit().await?;
    Ok(json_response(user.to_json()))
}

/// The answer to a sign-up with a number that already has an account:
/// a user as a new sign-up makes, nothing stored (the platform's
/// sanitised user).
fn look_alike_user(state: &AuthState, phone: &str, user_metadata: Value) -> Value {
    let now =
        DateTime::from_timestamp_micros(state.now().timestamp_micros()).unwrap_or(state.now());
    json!({
        "id": Uuid::new_v4(),
        "aud": "authenticated",
        "role": "",
        "email": "",
        "phone": phone,
        "confirmation_sent_at": now,
        "app_metadata": {"provider": "phone", "providers": ["phone"]},
        "user_metadata": user_metadata,
        "identities": [],
        "created_at": now,
        "updated_at": now,
        "is_anonymous": false,
    })
}

// ---------------------------------------------------------------- /otp

#[derive(Debug, Deserialize)]
struct OtpBody {
    email: Option<String>,
    phone: Option<String>,
    channel: Option<String>,
    create_user: Option<bool>,
    data: Option<Value>,
}

/// Whether a `POST /otp` body names a phone number (and so is this
/// module's).
pub(crate) fn is_phone_otp(input: &Input) -> bool {
    input
        .json::<OtpBody>()
        .is_ok_and(|b| b.phone.as_deref().is_some_and(|p| !p.trim().is_empty()))
}

/// `POST /otp` with `phone`: a sign-in code by SMS; makes the account first
/// (unconfirmed, or confirmed with `GOTRUE_SMS_AUTOCONFIRM`) when
/// `create_user` (default true) and sign-ups are allowed.
pub(crate) async fn otp(state: &AuthState, input: &Input) -> Result<Response> {
    let config = state.config();
    let body: OtpBody = input.json()?;
    if body.email.as_deref().is_some_and(|e| !e.trim().is_empty()) {
        return Err(AuthError::validation(
            "Only an email address or phone number should be provided",
        ));
    }
    let user_metadata = match body.data {
        None | Some(Value::Null) => json!({}),
        Some(Value::Object(map)) => Value::Object(map),
        Some(_) => return Err(AuthError::validation("data must be an object")),
    };
    if !config.sms.phone_enabled {
        return Err(phone_disabled("Unsupported phone provider"));
    }
    let phone = sms::validate_phone(body.phone.as_deref().unwrap_or(""))?;
    let channel = sms::validate_channel(state, body.channel.as_deref())?;
    let mut tx = state.db().owner.begin().await?;
    let existing = find_by_phone(&mut tx, &phone).await?;
    let row = match existing {
        Some(row) => row,
        None => {
            if !body.create_user.unwrap_or(true) {
                return Err(AuthError::unprocessable(
                    "otp_disabled",
                    "Signups not allowed for otp",
                ));
            }
            if config.disable_signup {
                return Err(AuthError::unprocessable(
                    "signup_disabled",
                    "Signups not allowed for this instance",
                ));
            }
            insert_phone_user(
                state,
                &mut tx,
                &phone,
                None,
                user_metadata,
                config.sms.autoconfirm,
            )
            .await?
        }
    };
    let sent = send_code(
        state,
        &mut tx,
        &row,
        CodeKind::Confirmation,
        &phone,
        channel,
    )
    .await?;
    tx.commit().await?;
    Ok(sent_response(Some(&sent)))
}

// ---------------------------------------------------------------- /verify

#[derive(Debug, Deserialize)]
struct VerifyBody {
    #[serde(rename = "type")]
    kind: Option<String>,
    token: Option<String>,
    token_hash: Option<String>,
    email: Option<String>,
    phone: Option<String>,
}

/// `POST /verify` with type `sms` or `phone_change`, `phone` and `token`.
pub(crate) async fn verify(state: &AuthState, input: &Input) -> Result<Response> {
    let body: VerifyBody = input.json()?;
    let kind = match body.kind.as_deref() {
        Some("sms") => CodeKind::Confirmation,
        Some("phone_change") => CodeKind::PhoneChange,
        _ => return Err(AuthError::validation("Unsupported verification type")),
    };
    let token = body.token.filter(|t| !t.is_empty());
    let token_hash = body.token_hash.filter(|t| !t.is_empty());
    let token = match (token, token_hash) {
        (Some(token), None) => token,
        _ => {
            return Err(AuthError::validation(
                "Verify requires either a token or a token hash",
            ));
        }
    };
    let email = body.email.as_deref().is_some_and(|e| !e.trim().is_empty());
    let Some(phone) = body
        .phone
        .filter(|p| !p.trim().is_empty())
        .filter(|_| !email)
    else {
        return Err(AuthError::validation(
            "Only an email address or phone number should be provided on verify",
        ));
    };
    let phone = sms::validate_phone(&phone)?;
    // Codes are guessable: wrong ones are counted per number, from anywhere.
    let tries = ("phone", phone.as_str());
    crate::ratelimit::count_guess(&state.limits().code_failures, tries)?;
    let mut tx = state.db().owner.begin().await?;
    let row = match kind {
        CodeKind::Confirmation => find_by_phone(&mut tx, &phone).await?,
        CodeKind::PhoneChange => find_by_phone_change(&mut tx, &phone).await?,
    }
    .ok_or_else(otp_invalid)?;
    if row.banned_until.is_some_and(|until| until > state.now()) {
        return Err(AuthError::forbidden("user_banned", "User is banned"));
    }
    if !code_matches(state, &row, kind, &phone, token.trim()) {
        return Err(otp_invalid());
    }
    state.limits().code_failures.refund(tries);
    confirm(state, &mut tx, &row, kind).await?;
    let user = load_user(&mut tx, row.id).await?;
    let session = sessions::create(state, &mut tx, &user, session_info(input, "otp")).await?;
    tx.commit().await?;
    Ok(json_response(session))
}

/// Whether `code` is the outstanding, unexpired code of `kind` for the
/// number (a test number's fixed code always is).
fn code_matches(
    state: &AuthState,
    row: &PhoneRow,
    kind: CodeKind,
    phone: &str,
    code: &str,
) -> bool {
    if sms::test_otp(state, phone)
        .is_some_and(|fixed| tokens::constant_time_eq(fixed.as_bytes(), code.as_bytes()))
    {
        return true;
    }
    let (expected, sent_at) = match kind {
        CodeKind::Confirmation => (&row.confirmation_token, row.confirmation_sent_at),
        CodeKind::PhoneChange => (&row.phone_change_token, row.phone_change_sent_at),
    };
    let (Some(expected), Some(sent_at)) = (expected, sent_at) else {
        return false;
    };
    if sent_at + chrono::Duration::seconds(state.config().sms.otp_exp) < state.now() {
        return false;
    }
    let hash = tokens::token_hash(state.email_token_key(), phone, code);
    tokens::constant_time_eq(hash.as_bytes(), expected.as_bytes())
}

/// The code was right: the number is confirmed (or becomes the user's).
async fn confirm(
    state: &AuthState,
    conn: &mut PgConnection,
    row: &PhoneRow,
    kind: CodeKind,
) -> Result<()> {
    let now = state.now();
    match kind {
        CodeKind::Confirmation => {
            sqlx::query(
                "update auth.users set confirmation_token = '', phone_confirmed_at = $2, \
                   is_anonymous = false, updated_at = $2 where id = $1",
            )
            .bind(row.id)
            .bind(now)
            .execute(&mut *conn)
            .await?;
        }
        CodeKind::PhoneChange => {
            let new_phone = row.phone_change.clone().ok_or_else(otp_invalid)?;
            let changed = sqlx::query(
                "update auth.users set phone = $2, phone_change = '', phone_change_token = '', \
                   phone_confirmed_at = $3, is_anonymous = false, updated_at = $3 where id = $1",
            )
            .bind(row.id)
            .bind(&new_phone)
            .bind(now)
            .execute(&mut *conn)
            .await;
            unless_phone_taken(changed)?;
            ensure_phone_identity(state, conn, row.id, &new_phone, true).await?;
        }
    }
    sqlx::query("delete from auth.one_time_tokens where user_id = $1")
        .bind(row.id)
        .execute(&mut *conn)
        .await?;
    update_providers(conn, row.id).await
}

// ---------------------------------------------------------------- /resend

#[derive(Debug, Deserialize)]
struct ResendBody {
    #[serde(rename = "type")]
    kind: Option<String>,
    email: Option<String>,
    phone: Option<String>,
}

/// Whether a `POST /resend` is for an SMS (`sms` / `phone_change`).
pub(crate) fn is_phone_resend(input: &Input) -> bool {
    input
        .json::<ResendBody>()
        .is_ok_and(|b| matches!(b.kind.as_deref(), Some("sms" | "phone_change")))
}

/// `POST /resend` with type `sms` or `phone_change`.
pub(crate) async fn resend(state: &AuthState, input: &Input) -> Result<Response> {
    let body: ResendBody = input.json()?;
    let kind = match body.kind.as_deref() {
        Some("phone_change") => CodeKind::PhoneChange,
        _ => CodeKind::Confirmation,
    };
    let phone = body.phone.filter(|p| !p.trim().is_empty());
    if body.email.as_deref().is_some_and(|e| !e.trim().is_empty()) {
        if phone.is_some() {
            return Err(AuthError::validation(
                "Only an email address or phone number should be provided.",
            ));
        }
        return Err(AuthError::validation(
            "Type provided requires a phone number",
        ));
    }
    let Some(phone) = phone else {
        return Err(AuthError::validation(
            "Type provided requires a phone number",
        ));
    };
    if !state.config().sms.phone_enabled {
        return Err(phone_disabled("Phone logins are disabled"));
    }
    let phone = sms::validate_phone(&phone)?;
    let mut tx = state.db().owner.begin().await?;
    let row = match kind {
        CodeKind::Confirmation => find_by_phone(&mut tx, &phone).await?,
        CodeKind::PhoneChange => find_by_phone(&mut tx, &phone).await?,
    };
    let Some(row) = row else {
        return Ok(json_response(json!({})));
    };
    let target = match kind {
        CodeKind::Confirmation if row.phone_confirmed_at.is_some() => None,
        CodeKind::Confirmation => Some(phone.clone()),
        CodeKind::PhoneChange => row.phone_change.clone(),
    };
    let Some(target) = target else {
        return Ok(json_response(json!({})));
    };
    let sent = send_code(state, &mut tx, &row, kind, &target, "sms").await?;
    tx.commit().await?;
    Ok(sent_response(Some(&sent)))
}

// ---------------------------------------------------------------- password grant

/// `POST /token?grant_type=password` with `phone` and `password`.
pub(crate) async fn password_grant(
    state: &AuthState,
    input: &Input,
    phone: &str,
    password: String,
) -> Result<Response> {
    let config = state.config();
    if !config.sms.phone_enabled {
        return Err(AuthError::unprocessable(
            "phone_provider_disabled",
            "Phone logins are disabled",
        ));
    }
    let phone = sms::format_phone(phone);
    let address = plinth_limits::address_key(&input.ip);
    let pair = ("phone", phone.as_str(), address.as_str());
    crate::ratelimit::count_guess(&state.limits().sign_in_failures, pair)?;
    let account = ("phone", phone.as_str());
    let backoff = crate::ratelimit::sign_in_backoff(state, account);
    if !backoff.is_zero() {
        tokio::time::sleep(backoff).await;
    }
    let row = {
        let mut conn = state.db().owner.acquire().await?;
        find_by_phone(&mut conn, &phone).await?
    };
    let stored = row.as_ref().and_then(|r| r.encrypted_password.clone());
    let verdict = state.checker().verify(password.clone(), stored).await?;
    let Some(row) = row.filter(|_| verdict != Verdict::Mismatch) else {
        let _ = state.limits().account_failures.check(account);
        return Err(AuthError::invalid_credentials());
    };
    state.limits().sign_in_failures.refund(pair);
    if verdict == Verdict::MatchNeedsRehash {
        let hash = password::hash(password.clone(), config.password_hash).await?;
        sqlx::query("update auth.users set encrypted_password = $2 where id = $1")
            .bind(row.id)
            .bind(hash)
            .execute(&state.db().owner)
            .await?;
    }
    if row.banned_until.is_some_and(|until| until > state.now()) {
        return Err(AuthError::bad_request("user_banned", "User is banned"));
    }
    if row.phone_confirmed_at.is_none() {
        return Err(AuthError::bad_request(
            "phone_not_confirmed",
            "Phone not confirmed",
        ));
    }
    let mut tx = state.db().owner.begin().await?;
    let user = load_user(&mut tx, row.id).await?;
    let session = sessions::create(state, &mut tx, &user, session_info(input, "password")).await?;
    tx.commit().await?;
    Ok(json_response(session))
}

// ---------------------------------------------------------------- PUT /user

/// A new number asked for through `PUT /user`.
#[derive(Debug, Clone)]
pub(crate) struct PhoneChange {
    phone: String,
    channel: &'static str,
}

/// Checks `phone` / `channel` of `PUT /user` before anything is stored:
/// the new number (formatted), or `None` when it is the user's own.
pub(crate) async fn requested_change(
    state: &AuthState,
    user: &User,
    phone: Option<&str>,
    channel: Option<&str>,
) -> Result<Option<PhoneChange>> {
    let Some(phone) = phone.filter(|p| !p.trim().is_empty()) else {
        return Ok(None);
    };
    let phone = sms::validate_phone(phone)?;
    let channel = sms::validate_channel(state, channel)?;
    if phone == user.row.phone {
        return Ok(None);
    }
    let mut conn = state.db().owner.acquire().await?;
    if find_by_phone(&mut conn, &phone)
        .await?
        .is_some_and(|other| other.id != user.id())
    {
        return Err(phone_exists());
    }
    Ok(Some(PhoneChange { phone, channel }))
}

/// Starts (or, with `GOTRUE_SMS_AUTOCONFIRM`, makes) the change of number.
pub(crate) async fn start_change(
    state: &AuthState,
    conn: &mut PgConnection,
    user: &User,
    change: &PhoneChange,
) -> Result<()> {
    let row = phone_row(conn, user.id())
        .await?
        .ok_or_else(|| AuthError::forbidden("user_not_found", "User not found"))?;
    if state.config().sms.autoconfirm {
        let row = PhoneRow {
            phone_change: Some(change.phone.clone()),
            ..row
        };
        return confirm(state, conn, &row, CodeKind::PhoneChange).await;
    }
    send_code(
        state,
        conn,
        &row,
        CodeKind::PhoneChange,
        &change.phone,
        change.channel,
    )
    .await?;
    Ok(())
}
