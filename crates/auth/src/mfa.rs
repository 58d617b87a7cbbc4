//! Multi-factor authentication, as the platform's auth server offers it:
//! `POST /factors` (enrol), `POST /factors/{id}/challenge`,
//! `POST /factors/{id}/verify`, `DELETE /factors/{id}` (unenrol), and the
//! admin's `GET /admin/users/{id}/factors`,
//! `PUT|DELETE /admin/users/{id}/factors/{factor_id}`.
//!
//! **Factors.** `totp` (an authenticator app: RFC 6238, SHA-1, 30 s steps,
//! 6 digits, one step either way) and `phone` (a code by SMS through
//! [`crate::sms`]; test numbers of `GOTRUE_SMS_TEST_OTP` answer their fixed
//! code), and `webauthn` (security keys, checked by kanidm's webauthn-rs,
//! see [`webauthn`]; off by default, as on the platform).
//!
//! **Invariants.**
//! * A verified challenge adds the factor's method (`totp`, `mfa/phone`) to
//!   the session's `mfa_amr_claims`; the session (and its tokens' `aal`)
//!   is aal2 while it holds such a claim, also after a refresh. The user's
//!   other aal1 sessions end, as on the platform.
//! * A TOTP code is accepted once per factor: the accepted time step is
//!   kept and a code of that step or an earlier one is refused.
//! * A challenge is answered once, from the address that asked for it,
//!   within `GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION`.
//! * Phone codes are stored only as keyed hashes.

use std::time::Duration;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use rand::Rng;
use serde::Deserialize;
use serde_json::{Value, json};
use sqlx::{PgConnection, Row};
use uuid::Uuid;

use crate::AuthState;
use crate::error::{AuthError, Result};
use crate::handlers::Input;
use crate::request::{self, Caller};
use crate::tokens::constant_time_eq;

pub(crate) mod webauthn;

/// The MFA settings (`GOTRUE_MFA_*`).
#[derive(Debug, Clone)]
pub struct MfaConfig {
    /// `GOTRUE_MFA_TOTP_ENROLL_ENABLED` (default true).
    pub totp_enroll_enabled: bool,
    /// `GOTRUE_MFA_TOTP_VERIFY_ENABLED` (default true).
    pub totp_verify_enabled: bool,
    /// `GOTRUE_MFA_PHONE_ENROLL_ENABLED` (default false).
    pub phone_enroll_enabled: bool,
    /// `GOTRUE_MFA_PHONE_VERIFY_ENABLED` (default false).
    pub phone_verify_enabled: bool,
    /// Factors a user may have, verified or not (`GOTRUE_MFA_MAX_ENROLLED_FACTORS`, default 10).
    pub max_enrolled_factors: usize,
    /// Verified factors a user may have (`GOTRUE_MFA_MAX_VERIFIED_FACTORS`, default 10).
    pub max_verified_factors: usize,
    /// How long a challenge may be answered (`GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION`,
    /// seconds, default and minimum 300).
    pub challenge_expiry: Duration,
    /// Unverified factors older than this are removed at the next enrolment
    /// (`GOTRUE_MFA_FACTOR_EXPIRY_DURATION`, default and minimum 300 s).
    pub factor_expiry: Duration,
    /// Challenges and verifications per client address per minute
    /// (`GOTRUE_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY`, default 15).
    pub rate_limit_challenge_and_verify: u32,
    /// Digits of a phone factor's code, 6 to 10 (`GOTRUE_MFA_PHONE_OTP_LENGTH`).
    pub phone_otp_length: usize,
    /// One phone challenge per factor per this long (`GOTRUE_MFA_PHONE_MAX_FREQUENCY`, default 60 s).
    pub phone_max_frequency: Duration,
    /// The text of a phone challenge (`GOTRUE_MFA_PHONE_TEMPLATE`).
    pub phone_template: String,
    /// `GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED` (default false).
    pub webauthn_enroll_enabled: bool,
    /// `GOTRUE_MFA_WEB_AUTHN_VERIFY_ENABLED` (default false).
    pub webauthn_verify_enabled: bool,
    /// The relying party id: the site's domain (`GOTRUE_WEBAUTHN_RP_ID`).
    pub webauthn_rp_id: String,
    /// `GOTRUE_WEBAUTHN_RP_DISPLAY_NAME`.
    pub webauthn_rp_display_name: String,
    /// Origins an authenticator's answer may come from (`GOTRUE_WEBAUTHN_RP_ORIGINS`).
    pub webauthn_rp_origins: Vec<String>,
}

impl Default for MfaConfig {
    fn default() -> Self {
        Self {
            totp_enroll_enabled: true,
            totp_verify_enabled: true,
            phone_enroll_enabled: false,
            phone_verify_enabled: false,
            max_enrolled_factors: 10,
            max_verified_factors: 10,
            challenge_expiry: Duration::from_secs(300),
            factor_expiry: Duration::from_secs(300),
            rate_limit_challenge_and_verify: 15,
            phone_otp_length: 6,
            phone_max_frequency: Duration::from_secs(60),
            phone_template: "Your code is {{ .Code }}".into(),
            webauthn_enroll_enabled: false,
            webauthn_verify_enabled: false,
            webauthn_rp_id: String::new(),
            webauthn_rp_display_name: String::new(),
            webauthn_rp_origins: Vec::new(),
        }
    }
}

/// The routes of this module (merged into the auth router).
pub fn router() -> axum::Router<AuthState> {
    axum::Router::new()
        .route("/factors", post(enroll))
        .route("/factors/{factor_id}", delete(unenroll))
        .route("/factors/{factor_id}/challenge", post(challenge))
        .route("/factors/{factor_id}/verify", post(verify))
        .route("/admin/users/{id}/factors", get(admin_list))
        .route(
            "/admin/users/{id}/factors/{factor_id}",
            delete(admin_delete).put(admin_update),
        )
}

// ------------------------------------------------------------------ TOTP

const TOTP_STEP: i64 = 30;
const TOTP_DIGITS: u32 = 6;
const BASE32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// RFC 4648 base32 without padding (as authenticator apps take secrets).
pub(crate) fn base32_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(5) * 8);
    let mut buffer: u32 = 0;
    let mut bits = 0;
    for &byte in bytes {
        buffer = (buffer << 8) | u32::from(byte);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(char::from(BASE32[((buffer >> bits) & 31) as usize]));
        }
    }
    if bits > 0 {
        out.push(char::from(BASE32[((buffer << (5 - bits)) & 31) as usize]));
    }
    out
}

/// The inverse of [`base32_encode`] (padding and case ignored).
pub(crate) fn base32_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 5 / 8);
    let mut buffer: u32 = 0;
    let mut bits = 0;
    for c in text.trim_end_matches('=').bytes() {
        let value = BASE32.iter().position(|&b| b == c.to_ascii_uppercase())?;
        buffer = (buffer << 5) | u32::try_from(value).ok()?;
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            out.push(u8::try_from((buffer >> bits) & 0xff).ok()?);
        }
    }
    Some(out)
}

/// The RFC 4226 code of `counter` under `key` (HMAC-SHA1, 6 digits).
pub(crate) fn hotp(key: &[u8], counter: u64) -> String {
    let mut mac = Hmac::<sha1::Sha1>::new_from_slice(key).expect("HMAC accepts keys of any length");
    mac.update(&counter.to_be_bytes());
    let digest = mac.finalize().into_bytes();
    let offset = usize::from(digest[19] & 0x0f);
    let binary = (u32::from(digest[offset] & 0x7f) << 24)
        | (u32::from(digest[offset + 1]) << 16)
        | (u32::from(digest[offset + 2]) << 8)
        | u32::from(digest[offset + 3]);
    format!(
        "{:0width$}",
        binary % 10u32.pow(TOTP_DIGITS),
        width = TOTP_DIGITS as usize
    )
}

/// The time step a `code` answers, if any: the current step or one either
/// way (the platform's skew of 1).
pub(crate) fn totp_step_of(key: &[u8], code: &str, unix_time: i64) -> Option<i64> {
    if code.len() != TOTP_DIGITS as usize || !code.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let now = unix_time.div_euclid(TOTP_STEP);
    let mut found = None;
    // Every candidate is computed and compared, so the time taken does not
    // say which one matched.
    for step in [now - 1, now, now + 1] {
        let Ok(counter) = u64::try_from(step) else {
            continue;
        };
        if constant_time_eq(hotp(key, counter).as_bytes(), code.as_bytes()) {
            found = Some(step);
        }
    }
    found
}

/// The `otpauth://` URI authenticator apps read from the QR code.
fn totp_uri(issuer: &str, account: &str, secret: &str) -> String {
    let query = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("algorithm", "SHA1")
        .append_pair("digits", "6")
        .append_pair("issuer", issuer)
        .append_pair("period", "30")
        .append_pair("secret", secret)
        .finish();
    // The label is a path (`issuer:account`), escaped as one.
    let mut uri = url::Url::parse("otpauth://totp/").expect("a constant URL");
    uri.set_path(&format!("/{issuer}:{account}"));
    uri.set_query(Some(&query));
    uri.to_string()
}

/// The QR code of `uri` as an SVG document (what the platform sends;
/// supabase-js turns it into a `data:image/svg+xml` URL).
fn qr_svg(uri: &str) -> Result<String> {
    let code = qrcode::QrCode::with_error_correction_level(uri, qrcode::EcLevel::H)
        .map_err(|e| AuthError::internal(format!("Error generating QR Code: {e}")))?;
    // Named colours, as GoTrue's SVG has: supabase-js puts the raw SVG
    // after `data:image/svg+xml;utf-8,`, where a `#` would end the URL.
    Ok(code
        .render::<qrcode::render::svg::Color<'_>>()
        .dark_color(qrcode::render::svg::Color("black"))
        .light_color(qrcode::render::svg::Color("white"))
        .min_dimensions(200, 200)
        .build())
}

// ------------------------------------------------------------- factors

/// One row of `auth.mfa_factors`.
#[derive(Debug, Clone)]
struct Factor {
    id: Uuid,
    friendly_name: Option<String>,
    factor_type: String,
    status: String,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    secret: Option<String>,
    phone: Option<String>,
    last_challenged_at: Option<DateTime<Utc>>,
    web_authn_credential: Option<Value>,
    web_authn_aaguid: Option<Uuid>,
}

const FACTOR_COLUMNS: &str = "id, friendly_name, factor_type::text as factor_type, \
    status::text as status, created_at, updated_at, secret, phone, last_challenged_at, \
    web_authn_credential, web_authn_aaguid";

impl Factor {
    fn from_row(row: &sqlx::postgres::PgRow) -> sqlx::Result<Self> {
        Ok(Self {
            id: row.try_get("id")?,
            friendly_name: row.try_get("friendly_name")?,
            factor_type: row.try_get("factor_type")?,
            status: row.try_get("status")?,
            created_at: row.try_get("created_at")?,
            updated_at: row.try_get("updated_at")?,
            secret: row.try_get("secret")?,
            phone: row.try_get("phone")?,
            last_challenged_at: row.try_get("last_challenged_at")?,
            web_authn_credential: row.try_get("web_authn_credential")?,
            web_authn_aaguid: row.try_get("web_authn_aaguid")?,
        })
    }

    fn is_verified(&self) -> bool {
        self.status == "verified"
    }

    /// The Factor JSON of the platform (as in `user.factors`).
    fn to_json(&self) -> Value {
        let mut out = json!({
            "id": self.id,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "status": self.status,
            "factor_type": self.factor_type,
            "phone": self.phone.clone().unwrap_or_default(),
            "last_challenged_at": self.last_challenged_at,
        });
        if let Some(name) = self.friendly_name.as_ref().filter(|n| !n.is_empty()) {
            out["friendly_name"] = json!(name);
        }
        if let Some(aaguid) = self.web_authn_aaguid {
            out["web_authn_aaguid"] = json!(aaguid);
        }
        out
    }
}

async fn factors_of(conn: &mut PgConnection, user_id: Uuid) -> Result<Vec<Factor>> {
    let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
        "select {FACTOR_COLUMNS} from auth.mfa_factors where user_id = $1 order by created_at, id"
    )))
    .bind(user_id)
    .fetch_all(&mut *conn)
    .await?;
    Ok(rows
        .iter()
        .map(Factor::from_row)
        .collect::<sqlx::Result<Vec<_>>>()?)
}

/// The `factors` of a user's JSON (empty: the key is left out).
/// Whether a change of a sign-in secret (password, e-mail, phone) by this
/// session needs a second factor first: its user has a verified factor and
/// the session is not aal2 (as the platform: a password alone must not take
/// over an account that has two factors).
pub(crate) async fn needs_aal2(
    conn: &mut PgConnection,
    user_id: Uuid,
    session_id: Option<Uuid>,
) -> Result<bool> {
    let row: (bool, Option<String>) = sqlx::query_as(
        "select exists (select 1 from auth.mfa_factors where user_id = $1 and status = 'verified'), \
                (select aal::text from auth.sessions where id = $2)",
    )
    .bind(user_id)
    .bind(session_id)
    .fetch_one(&mut *conn)
    .await?;
    Ok(row.0 && row.1.as_deref() != Some("aal2"))
}

pub(crate) async fn factors_json(conn: &mut PgConnection, user_id: Uuid) -> Result<Vec<Value>> {
    Ok(factors_of(conn, user_id)
        .await?
        .iter()
        .map(Factor::to_json)
        .collect())
}

fn factor_not_found() -> AuthError {
    AuthError::not_found("mfa_factor_not_found", "Factor not found")
}

fn parse_factor_id(id: &str) -> Result<Uuid> {
    Uuid::parse_str(id)
        .map_err(|_| AuthError::not_found("validation_failed", "factor_id must be an UUID"))
}

/// The factor `id` of `user_id` (404 `mfa_factor_not_found` for anyone else's).
async fn owned_factor(conn: &mut PgConnection, user_id: Uuid, id: &str) -> Result<Factor> {
    let id = parse_factor_id(id)?;
    let row = sqlx::query(sqlx::AssertSqlSafe(format!(
        "select {FACTOR_COLUMNS} from auth.mfa_factors where id = $1 and user_id = $2"
    )))
    .bind(id)
    .bind(user_id)
    .fetch_optional(&mut *conn)
    .await?;
    row.as_ref()
        .map(Factor::from_row)
        .transpose()?
        .ok_or_else(factor_not_found)
}

/// The amr method a factor type's verification adds.
fn amr_method(factor_type: &str) -> &'static str {
    match factor_type {
        "phone" => "mfa/phone",
        "webauthn" => "mfa/webauthn",
        _ => "totp",
    }
}

/// Whether an amr method is a second factor (it makes the session aal2).
pub(crate) fn is_aal2_method(method: &str) -> bool {
    matches!(method, "totp" | "mfa/phone" | "mfa/webauthn")
}

/// The `aal` of a session with these amr entries.
pub(crate) fn aal_of(amr: &[(String, i64)]) -> &'static str {
    if amr.iter().any(|(m, _)| is_aal2_method(m)) {
        "aal2"
    } else {
        "aal1"
    }
}

// ------------------------------------------------------------- callers

/// A signed-in, non-anonymous caller with a session, and its session's aal.
struct MfaCaller {
    caller: Caller,
    session_id: Uuid,
    session_aal2: bool,
}

async fn mfa_caller(state: &AuthState, input: &Input) -> Result<MfaCaller> {
    let caller = request::caller(state, &input.headers).await?;
    if caller.user.row.is_anonymous {
        return Err(AuthError::forbidden(
            "no_authorization",
            "Anonymous user not allowed to perform these actions",
        ));
    }
    let session_id = caller.session_id.ok_or_else(|| {
        AuthError::forbidden(
            "session_not_found",
            "A valid session and a registered user are required to enroll a factor",
        )
    })?;
    let mut conn = state.db().owner.acquire().await?;
    let aal: Option<String> =
        sqlx::query_scalar("select aal::text from auth.sessions where id = $1")
            .bind(session_id)
            .fetch_optional(&mut *conn)
            .await?
            .flatten();
    Ok(MfaCaller {
        caller,
        session_id,
        session_aal2: aal.as_deref() == Some("aal2"),
    })
}

/// The client address as stored in `mfa_challenges.ip_address` (an inet):
/// an address we cannot read is kept as `0.0.0.0`.
fn challenge_ip(input: &Input) -> String {
    input
        .ip
        .parse::<std::net::IpAddr>()
        .map(|ip| ip.to_string())
        .unwrap_or_else(|_| "0.0.0.0".into())
}

fn limit_challenge_and_verify(state: &AuthState, input: &Input) -> Result<()> {
    crate::ratelimit::limit_request(state, input, crate::ratelimit::Limited::Mfa)
}

// -------------------------------------------------------------- enrol

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct EnrollBody {
    friendly_name: String,
    factor_type: String,
    issuer: String,
    phone: String,
}

/// `POST /factors`.
async fn enroll(State(state): State<AuthState>, input: Input) -> Result<Response> {
    let caller = mfa_caller(&state, &input).await?;
    let body: EnrollBody = input.json()?;
    let config = &state.config().mfa;
    match body.factor_type.as_str() {
        "totp" if !config.totp_enroll_enabled => Err(AuthError::unprocessable(
            "mfa_totp_enroll_not_enabled",
            "MFA enroll is disabled for TOTP",
        )),
        "phone" if !config.phone_enroll_enabled => Err(AuthError::unprocessable(
            "mfa_phone_enroll_not_enabled",
            "MFA enroll is disabled for Phone",
        )),
        "webauthn" if !config.webauthn_enroll_enabled => Err(AuthError::unprocessable(
            "mfa_webauthn_enroll_not_enabled",
            "MFA enroll is disabled for WebAuthn",
        )),
        "webauthn" => enroll_webauthn(&state, &caller, &body).await,
        "totp" => enroll_totp(&state, &caller, &body).await,
        "phone" => enroll_phone(&state, &caller, &body).await,
        _ => Err(AuthError::validation(
            "factor_type needs to be totp, phone, or webauthn",
        )),
    }
}

/// The platform's checks before a new factor: expired unverified factors
/// go, then the name must be free, the counts below the maxima, and a user
/// with a verified factor must be at aal2.
async fn validate_new_factor(
    state: &AuthState,
    conn: &mut PgConnection,
    caller: &MfaCaller,
    name: &str,
) -> Result<()> {
    let config = &state.config().mfa;
    let expiry = chrono::Duration::from_std(config.factor_expiry).unwrap_or(chrono::Duration::MAX);
    sqlx::query("delete from auth.mfa_factors where status = 'unverified' and created_at < $1")
        .bind(state.now() - expiry)
        .execute(&mut *conn)
        .await?;
    let factors = factors_of(conn, caller.caller.user.id()).await?;
    if factors
        .iter()
        .any(|f| f.friendly_name.as_deref().unwrap_or_default() == name)
    {
        return Err(AuthError::unprocessable(
            "mfa_factor_name_conflict",
            format!("A factor with the friendly name {name:?} for this user already exists"),
        ));
    }
    let verified = factors.iter().filter(|f| f.is_verified()).count();
    if factors.len() >= config.max_enrolled_factors || verified >= config.max_verified_factors {
        return Err(AuthError::unprocessable(
            "too_many_enrolled_mfa_factors",
            "Maximum number of verified factors reached, unenroll to continue",
        ));
    }
    if verified > 0 && !caller.session_aal2 {
        return Err(AuthError::forbidden(
            "insufficient_aal",
            "AAL2 required to enroll a new factor",
        ));
    }
    Ok(())
}

fn is_unique_violation(error: &sqlx::Error) -> bool {
    error
        .as_database_error()
        .is_some_and(|e| e.code().as_deref() == Some("23505"))
}

async fn insert_factor(
    conn: &mut PgConnection,
    state: &AuthState,
    user_id: Uuid,
    name: &str,
    factor_type: &str,
    secret: Option<&str>,
    phone: Option<&str>,
) -> Result<Uuid> {
    let id = Uuid::new_v4();
    let inserted = sqlx::query(
        "insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, \
           updated_at, secret, phone) \
         values ($1, $2, $3, $4::auth.factor_type, 'unverified', $5, $5, $6, $7)",
    )
    .bind(id)
    .bind(user_id)
    .bind(name)
    .bind(factor_type)
    .bind(state.now())
    .bind(secret)
    .bind(phone)
    .execute(&mut *conn)
    .await;
    match inserted {
        Ok(_) => Ok(id),
        // Two enrolments with one name at once: the unique index decides.
        Err(e) if is_unique_violation(&e) => Err(AuthError::unprocessable(
            "mfa_factor_name_conflict",
            format!("A factor with the friendly name {name:?} for this user already exists"),
        )),
        Err(e) => Err(e.into()),
    }
}

async fn enroll_totp(state: &AuthState, caller: &MfaCaller, body: &EnrollBody) -> Result<Response> {
    let issuer = if body.issuer.is_empty() {
        url::Url::parse(&state.config().site_url)
            .ok()
            .and_then(|u| {
                u.host_str().map(|h| {
                    u.port()
                        .map_or_else(|| h.to_owned(), |p| format!("{h}:{p}"))
                })
            })
            .ok_or_else(|| AuthError::internal("site url is improperly formatted"))?
    } else {
        body.issuer.clone()
    };
    let mut tx = state.db().owner.begin().await?;
    validate_new_factor(state, &mut tx, caller, &body.friendly_name).await?;
    let mut secret_bytes = [0u8; 20];
    rand::rng().fill(&mut secret_bytes);
    let secret = base32_encode(&secret_bytes);
    let account = &caller.caller.user.row.email;
    let uri = totp_uri(&issuer, account, &secret);
    let qr_code = qr_svg(&uri)?;
    let id = insert_factor(
        &mut tx,
        state,
        caller.caller.user.id(),
        &body.friendly_name,
        "totp",
        Some(&secret),
        None,
    )
    .await?;
    tx.commit().await?;
    Ok(Json(json!({
        "id": id,
        "type": "totp",
        "friendly_name": body.friendly_name,
        "totp": { "qr_code": qr_code, "secret": secret, "uri": uri },
    }))
    .into_response())
}

async fn enroll_webauthn(
    state: &AuthState,
    caller: &MfaCaller,
    body: &EnrollBody,
) -> Result<Response> {
    let mut tx = state.db().owner.begin().await?;
    validate_new_factor(state, &mut tx, caller, &body.friendly_name).await?;
    let id = insert_factor(
        &mut tx,
        state,
        caller.caller.user.id(),
        &body.friendly_name,
        "webauthn",
        None,
        None,
    )
    .await?;
    tx.commit().await?;
    Ok(Json(json!({
        "id": id,
        "type": "webauthn",
        "friendly_name": body.friendly_name,
    }))
    .into_response())
}

async fn enroll_phone(
    state: &AuthState,
    caller: &MfaCaller,
    body: &EnrollBody,
) -> Result<Response> {
    if body.phone.is_empty() {
        return Err(AuthError::validation(
            "Phone number required to enroll Phone factor",
        ));
    }
    let phone = crate::sms::validate_phone(&body.phone)?;
    let user_id = caller.caller.user.id();
    let mut tx = state.db().owner.begin().await?;
    for factor in factors_of(&mut tx, user_id).await? {
        if factor.factor_type == "phone" && factor.phone.as_deref() == Some(phone.as_str()) {
            if factor.is_verified() {
                return Err(AuthError::unprocessable(
                    "mfa_verified_factor_exists",
                    "A verified phone factor already exists, unenroll the existing factor to continue",
                ));
            }
            sqlx::query("delete from auth.mfa_factors where id = $1")
                .bind(factor.id)
                .execute(&mut *tx)
                .await?;
        }
    }
    validate_new_factor(state, &mut tx, caller, &body.friendly_name).await?;
    let id = insert_factor(
        &mut tx,
        state,
        user_id,
        &body.friendly_name,
        "phone",
        None,
        Some(&phone),
    )
    .await?;
    tx.commit().await?;
    Ok(Json(json!({
        "id": id,
        "type": "phone",
        "friendly_name": body.friendly_name,
        "phone": body.phone,
    }))
    .into_response())
}

// ----------------------------------------------------------- challenge

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ChallengeBody {
    channel: Option<String>,
}

fn verify_disabled(factor_type: &str) -> Option<AuthError> {
    let (code, name) = match factor_type {
        "phone" => ("mfa_phone_verify_not_enabled", "Phone"),
        "webauthn" => ("mfa_webauthn_verify_not_enabled", "WebAuthn"),
        _ => ("mfa_totp_verify_not_enabled", "TOTP"),
    };
    Some(AuthError::unprocessable(
        code,
        format!("MFA verification is disabled for {name}"),
    ))
}

fn check_verify_enabled(state: &AuthState, factor: &Factor) -> Result<()> {
    let config = &state.config().mfa;
    let enabled = match factor.factor_type.as_str() {
        "totp" => config.totp_verify_enabled,
        "phone" => config.phone_verify_enabled,
        "webauthn" => config.webauthn_verify_enabled,
        _ => false,
    };
    match verify_disabled(&factor.factor_type) {
        Some(error) if !enabled => Err(error),
        _ => Ok(()),
    }
}

/// The key of phone challenge code hashes.
fn code_key(state: &AuthState) -> Vec<u8> {
    state
        .jwt()
        .derive_key("plinth-auth/mfa-phone-code")
        .to_vec()
}

fn code_hash(state: &AuthState, challenge_id: Uuid, code: &str) -> String {
    plinth_db::hmac_hex(
        &code_key(state),
        format!("{challenge_id}:{code}").as_bytes(),
    )
}

/// `POST /factors/{id}/challenge`.
async fn challenge(
    State(state): State<AuthState>,
    Path(factor_id): Path<String>,
    input: Input,
) -> Result<Response> {
    let caller = mfa_caller(&state, &input).await?;
    let mut conn = state.db().owner.acquire().await?;
    let factor = owned_factor(&mut conn, caller.caller.user.id(), &factor_id).await?;
    limit_challenge_and_verify(&state, &input)?;
    check_verify_enabled(&state, &factor)?;
    let body: ChallengeBody = input.json()?;
    let now = state.now();
    let challenge_id = Uuid::new_v4();
    let ip = challenge_ip(&input);
    let mut otp_hash = None;
    let mut webauthn_session = None;
    let mut webauthn_reply = None;
    if factor.factor_type == "webauthn" {
        let (session, reply) = webauthn_options(&state, &caller, &factor).await?;
        webauthn_session = Some(session);
        webauthn_reply = Some(reply);
    }
    if factor.factor_type == "phone" {
        let channel = crate::sms::validate_channel(&state, body.channel.as_deref())?;
        let config = &state.config().mfa;
        let every =
            chrono::Duration::from_std(config.phone_max_frequency).unwrap_or(chrono::Duration::MAX);
        if let Some(at) = factor.last_challenged_at
            && at + every > now
        {
            let left = (at + every - now).num_seconds().max(0) + 1;
            return Err(AuthError::api(
                StatusCode::TOO_MANY_REQUESTS,
                "over_sms_send_rate_limit",
                format!("For security purposes, you can only request this after {left} seconds."),
            ));
        }
        let phone = factor.phone.clone().unwrap_or_default();
        let code = match crate::sms::test_otp(&state, &phone) {
            Some(code) => code.to_owned(),
            None => {
                let code = crate::sms::generate_otp(config.phone_otp_length);
                let message = crate::sms::render(&config.phone_template, &code);
                crate::sms::send_message(&state, &phone, &message, channel, &code)
                    .await
                    .map_err(|reason| {
                        AuthError::internal(format!("error sending message: {reason}"))
                    })?;
                code
            }
        };
        otp_hash = Some(code_hash(&state, challenge_id, &code));
    }
    let mut tx = state.db().owner.begin().await?;
    sqlx::query(
        "insert into auth.mfa_challenges (id, factor_id, created_at, ip_address, otp_code, \
           web_authn_session_data) \
         values ($1, $2, $3, $4::inet, $5, $6)",
    )
    .bind(challenge_id)
    .bind(factor.id)
    .bind(now)
    .bind(&ip)
    .bind(otp_hash)
    .bind(webauthn_session)
    .execute(&mut *tx)
    .await?;
    sqlx::query("update auth.mfa_factors set last_challenged_at = $2 where id = $1")
        .bind(factor.id)
        .bind(now)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    let expiry = i64::try_from(state.config().mfa.challenge_expiry.as_secs()).unwrap_or(i64::MAX);
    let mut reply = json!({
        "id": challenge_id,
        "type": factor.factor_type,
        "expires_at": now.timestamp().saturating_add(expiry),
    });
    if let Some(webauthn) = webauthn_reply {
        reply["webauthn"] = webauthn;
    }
    Ok(Json(reply).into_response())
}

fn relying_party(state: &AuthState) -> webauthn::RelyingParty {
    webauthn::RelyingParty::from_config(&state.config().mfa)
}

/// A WebAuthn challenge: what is kept (`web_authn_session_data`: the
/// library's ceremony state) and what is sent (`{type, credential_options}`):
/// a registration for an unverified factor, an assertion for a verified one.
async fn webauthn_options(
    state: &AuthState,
    caller: &MfaCaller,
    factor: &Factor,
) -> Result<(Value, Value)> {
    let rp = relying_party(state);
    if !rp.is_configured() {
        return Err(AuthError::internal(
            "WebAuthn needs GOTRUE_WEBAUTHN_RP_ID and GOTRUE_WEBAUTHN_RP_ORIGINS",
        ));
    }
    let timeout = state.config().mfa.challenge_expiry;
    let user = &caller.caller.user;
    let (kind, begun) = if factor.is_verified() {
        let credential = factor
            .web_authn_credential
            .as_ref()
            .and_then(webauthn::StoredCredential::from_factor_json)
            .ok_or_else(|| {
                AuthError::internal("a verified WebAuthn factor without a credential")
            })?;
        let begun = webauthn::start_authentication(&rp, timeout, &[credential]);
        ("request", begun)
    } else {
        let mut conn = state.db().owner.acquire().await?;
        let rows: Vec<Value> = sqlx::query_scalar(
            "select web_authn_credential from auth.mfa_factors \
             where user_id = $1 and web_authn_credential is not null",
        )
        .bind(user.id())
        .fetch_all(&mut *conn)
        .await?;
        let exclude = rows
            .iter()
            .filter_map(webauthn::StoredCredential::from_factor_json)
            .map(|c| c.id)
            .collect();
        let handle = user.id().to_string();
        let row = &user.row;
        let name = [&row.email, &row.phone, &handle]
            .into_iter()
            .find(|n| !n.is_empty())
            .unwrap_or(&handle);
        let entity = webauthn::UserEntity {
            handle: handle.as_bytes(),
            name,
            display_name: name,
        };
        let begun = webauthn::start_registration(&rp, timeout, &entity, exclude, false);
        ("create", begun)
    };
    let (options, ceremony) = begun.map_err(|e| AuthError::internal(e.to_string()))?;
    Ok((
        json!({ "type": kind, "state": ceremony }),
        json!({ "type": kind, "credential_options": { "publicKey": options } }),
    ))
}

// -------------------------------------------------------------- verify

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct VerifyBody {
    challenge_id: Option<Uuid>,
    code: String,
    webauthn: Option<WebAuthnBody>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WebAuthnBody {
    #[serde(rename = "type")]
    kind: String,
    credential_response: Option<Value>,
}

/// `POST /factors/{id}/verify`: a session at aal2.
async fn verify(
    State(state): State<AuthState>,
    Path(factor_id): Path<String>,
    input: Input,
) -> Result<Response> {
    let caller = mfa_caller(&state, &input).await?;
    let user_id = caller.caller.user.id();
    let mut conn = state.db().owner.acquire().await?;
    let factor = owned_factor(&mut conn, user_id, &factor_id).await?;
    drop(conn);
    limit_challenge_and_verify(&state, &input)?;
    let body: VerifyBody = input.json()?;
    if body.code.is_empty() && factor.factor_type != "webauthn" {
        return Err(AuthError::validation("Code needs to be non-empty"));
    }
    check_verify_enabled(&state, &factor)?;
    let webauthn_answer = if factor.factor_type == "webauthn" {
        let params = body
            .webauthn
            .as_ref()
            .ok_or_else(|| AuthError::validation("WebAuthn config required"))?;
        if params.kind != "create" && params.kind != "request" {
            return Err(AuthError::validation(
                "WebAuthn type must be create or request",
            ));
        }
        let response = params
            .credential_response
            .as_ref()
            .filter(|v| v.is_object())
            .ok_or_else(|| AuthError::validation("credential_response required"))?;
        Some((params.kind.as_str(), response))
    } else {
        None
    };
    let now = state.now();
    let mut tx = state.db().owner.begin().await?;
    // The challenge: this factor's, unanswered, from this address, in time.
    let row = sqlx::query(
        "select id, created_at, verified_at, host(ip_address) as ip, otp_code, web_authn_session_data \
         from auth.mfa_challenges where id = $1 and factor_id = $2 for update",
    )
    .bind(body.challenge_id.unwrap_or_default())
    .bind(factor.id)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(row) = row else {
        return Err(AuthError::unprocessable(
            "mfa_factor_not_found",
            "MFA factor with the provided challenge ID not found",
        ));
    };
    let challenge_id: Uuid = row.try_get("id")?;
    let created_at: DateTime<Utc> = row.try_get("created_at")?;
    let verified_at: Option<DateTime<Utc>> = row.try_get("verified_at")?;
    let ip: Option<String> = row.try_get("ip")?;
    let otp_code: Option<String> = row.try_get("otp_code")?;
    let webauthn_session: Option<Value> = row.try_get("web_authn_session_data")?;
    if verified_at.is_some() || ip.as_deref() != Some(challenge_ip(&input).as_str()) {
        return Err(AuthError::unprocessable(
            "mfa_ip_address_mismatch",
            "Challenge and verify IP addresses mismatch.",
        ));
    }
    let expiry = chrono::Duration::from_std(state.config().mfa.challenge_expiry)
        .unwrap_or(chrono::Duration::MAX);
    if created_at + expiry < now {
        sqlx::query("delete from auth.mfa_challenges where id = $1")
            .bind(challenge_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        return Err(AuthError::unprocessable(
            "mfa_challenge_expired",
            format!(
                "MFA challenge {challenge_id} has expired, verify against another challenge or create a new challenge."
            ),
        ));
    }

    // Codes are guessable: wrong ones are counted per factor, from
    // anywhere, before this one is checked; past the budget the factor is
    // locked for a while (one more try per window).
    let guessable = factor.factor_type != "webauthn";
    if guessable {
        crate::ratelimit::count_guess(&state.limits().factor_failures, factor.id)?;
    }
    match factor.factor_type.as_str() {
        "webauthn" => {
            let (kind, response) =
                webauthn_answer.ok_or_else(|| AuthError::validation("WebAuthn config required"))?;
            let session = webauthn_session.unwrap_or_default();
            if session["type"] != kind {
                return Err(AuthError::validation(
                    "WebAuthn type does not match the challenge",
                ));
            }
            let rp = relying_party(&state);
            let refused = |why: webauthn::Refusal| {
                AuthError::unprocessable("mfa_verification_failed", why.to_string())
            };
            let ceremony = &session["state"];
            let credential = if kind == "create" {
                if factor.is_verified() {
                    return Err(AuthError::validation(
                        "WebAuthn type does not match the challenge",
                    ));
                }
                webauthn::finish_registration(&rp, ceremony, response).map_err(refused)?
            } else {
                let stored = factor
                    .web_authn_credential
                    .as_ref()
                    .and_then(webauthn::StoredCredential::from_factor_json)
                    .ok_or_else(|| {
                        AuthError::unprocessable(
                            "mfa_verification_failed",
                            "WebAuthn factor has no credential",
                        )
                    })?;
                webauthn::finish_authentication(&rp, ceremony, &stored, response)
                    .map_err(refused)?
            };
            sqlx::query(
                "update auth.mfa_factors set web_authn_credential = $2, \
                   web_authn_aaguid = coalesce($3, web_authn_aaguid) where id = $1",
            )
            .bind(factor.id)
            .bind(credential.to_factor_json())
            .bind(credential.aaguid)
            .execute(&mut *tx)
            .await?;
        }
        "totp" => {
            let key = factor
                .secret
                .as_deref()
                .and_then(base32_decode)
                .ok_or_else(|| AuthError::internal("Database error verifying MFA TOTP secret"))?;
            let step = totp_step_of(&key, body.code.trim(), now.timestamp());
            // A code counts once: only a step after the last accepted one.
            let accepted = match step {
                Some(step) => {
                    sqlx::query(
                        "update auth.mfa_factors set last_totp_step = $2 \
                     where id = $1 and (last_totp_step is null or last_totp_step < $2)",
                    )
                    .bind(factor.id)
                    .bind(step)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected()
                        == 1
                }
                None => false,
            };
            if !accepted {
                return Err(AuthError::unprocessable(
                    "mfa_verification_failed",
                    "Invalid TOTP code entered",
                ));
            }
        }
        _ => {
            let expected = otp_code.unwrap_or_default();
            let given = code_hash(&state, challenge_id, body.code.trim());
            if expected.is_empty() || !constant_time_eq(expected.as_bytes(), given.as_bytes()) {
                return Err(AuthError::unprocessable(
                    "mfa_verification_failed",
                    "Invalid MFA Phone code entered",
                ));
            }
        }
    }

    if guessable {
        state.limits().factor_failures.refund(factor.id);
    }
    sqlx::query("update auth.mfa_challenges set verified_at = $2 where id = $1")
        .bind(challenge_id)
        .bind(now)
        .execute(&mut *tx)
        .await?;
    if !factor.is_verified() {
        sqlx::query(
            "update auth.mfa_factors set status = 'verified', updated_at = $2 where id = $1",
        )
        .bind(factor.id)
        .bind(now)
        .execute(&mut *tx)
        .await?;
    }
    let method = amr_method(&factor.factor_type);
    sqlx::query(
        "insert into auth.mfa_amr_claims (session_id, created_at, updated_at, authentication_method, id) \
         values ($1, $2, $2, $3, $4) \
         on conflict (session_id, authentication_method) do update set updated_at = excluded.updated_at",
    )
    .bind(caller.session_id)
    .bind(now)
    .bind(method)
    .bind(Uuid::new_v4())
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "update auth.sessions set aal = 'aal2', factor_id = $2, updated_at = $3 where id = $1",
    )
    .bind(caller.session_id)
    .bind(factor.id)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    // As the platform: the user's sessions below aal2 end, and unverified
    // factors of this type go.
    sqlx::query("delete from auth.sessions where user_id = $1 and aal < 'aal2'")
        .bind(user_id)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "delete from auth.mfa_factors where user_id = $1 and status = 'unverified' \
         and factor_type = $2::auth.factor_type",
    )
    .bind(user_id)
    .bind(&factor.factor_type)
    .execute(&mut *tx)
    .await?;
    let user = crate::users::find_by_id(&mut tx, user_id)
        .await?
        .ok_or_else(|| AuthError::forbidden("user_not_found", "User not found"))?;
    let session = crate::sessions::reissue(&state, &mut tx, &user, caller.session_id).await?;
    tx.commit().await?;
    Ok(Json(session).into_response())
}

// ------------------------------------------------------------ unenrol

/// Removes `factor` and takes its method away from the sessions it raised.
async fn remove_factor(conn: &mut PgConnection, factor: &Factor) -> Result<()> {
    let method = amr_method(&factor.factor_type);
    sqlx::query(
        "delete from auth.mfa_amr_claims where authentication_method = $2 \
         and session_id in (select id from auth.sessions where factor_id = $1)",
    )
    .bind(factor.id)
    .bind(method)
    .execute(&mut *conn)
    .await?;
    sqlx::query("update auth.sessions set aal = 'aal1', factor_id = null where factor_id = $1")
        .bind(factor.id)
        .execute(&mut *conn)
        .await?;
    sqlx::query("delete from auth.mfa_factors where id = $1")
        .bind(factor.id)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// `DELETE /factors/{id}`: a verified factor only from an aal2 session.
async fn unenroll(
    State(state): State<AuthState>,
    Path(factor_id): Path<String>,
    input: Input,
) -> Result<Response> {
    let caller = mfa_caller(&state, &input).await?;
    let mut tx = state.db().owner.begin().await?;
    let factor = owned_factor(&mut tx, caller.caller.user.id(), &factor_id).await?;
    if factor.is_verified() && !caller.session_aal2 {
        return Err(AuthError::unprocessable(
            "insufficient_aal",
            "AAL2 required to unenroll verified factor",
        ));
    }
    remove_factor(&mut tx, &factor).await?;
    tx.commit().await?;
    Ok(Json(json!({ "id": factor.id })).into_response())
}

// --------------------------------------------------------------- admin

/// `GET /admin/users/{id}/factors`.
async fn admin_list(
    State(state): State<AuthState>,
    Path(id): Path<String>,
    input: Input,
) -> Result<Response> {
    request::require_admin(&state, &input.headers)?;
    let mut conn = state.db().owner.acquire().await?;
    let user_id = crate::users::admin_path_user(&mut conn, &id).await?;
    Ok(Json(factors_json(&mut conn, user_id).await?).into_response())
}

/// `DELETE /admin/users/{id}/factors/{factor_id}`: the removed factor.
async fn admin_delete(
    State(state): State<AuthState>,
    Path((id, factor_id)): Path<(String, String)>,
    input: Input,
) -> Result<Response> {
    request::require_admin(&state, &input.headers)?;
    let mut tx = state.db().owner.begin().await?;
    let user_id = crate::users::admin_path_user(&mut tx, &id).await?;
    let factor = owned_factor(&mut tx, user_id, &factor_id).await?;
    remove_factor(&mut tx, &factor).await?;
    tx.commit().await?;
    Ok(Json(factor.to_json()).into_response())
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct AdminUpdateBody {
    friendly_name: String,
    phone: String,
}

/// `PUT /admin/users/{id}/factors/{factor_id}`: a new friendly name, or a
/// phone factor's new number.
async fn admin_update(
    State(state): State<AuthState>,
    Path((id, factor_id)): Path<(String, String)>,
    input: Input,
) -> Result<Response> {
    request::require_admin(&state, &input.headers)?;
    let body: AdminUpdateBody = input.json()?;
    let mut tx = state.db().owner.begin().await?;
    let user_id = crate::users::admin_path_user(&mut tx, &id).await?;
    let factor = owned_factor(&mut tx, user_id, &factor_id).await?;
    let now = state.now();
    if !body.friendly_name.is_empty() {
        sqlx::query(
            "update auth.mfa_factors set friendly_name = $2, updated_at = $3 where id = $1",
        )
        .bind(factor.id)
        .bind(&body.friendly_name)
        .bind(now)
        .execute(&mut *tx)
        .await
        .map_err(|e| {
            if is_unique_violation(&e) {
                AuthError::unprocessable(
                    "mfa_factor_name_conflict",
                    format!(
                        "A factor with the friendly name {:?} for this user already exists",
                        body.friendly_name
                    ),
                )
            } else {
                e.into()
            }
        })?;
    }
    if !body.phone.is_empty() && factor.factor_type == "phone" {
        let phone = crate::sms::validate_phone(&body.phone)?;
        sqlx::query("update auth.mfa_factors set phone = $2, updated_at = $3 where id = $1")
            .bind(factor.id)
            .bind(phone)
            .bind(now)
            .execute(&mut *tx)
            .await?;
    }
    let factor = owned_factor(&mut tx, user_id, &factor_id).await?;
    tx.commit().await?;
    Ok(Json(factor.to_json()).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_qr_code_svg_has_no_hash_to_cut_a_data_url_short() {
        let svg = qr_svg("otpauth://totp/Plinth:a@example.com?secret=ABC&issuer=Plinth").unwrap();
        assert!(svg.contains("<svg"), "{svg}");
        assert!(!svg.contains('#'), "{svg}");
    }

    #[test]
    fn hotp_matches_the_rfc_4226_vectors() {
        let key = b"12345678901234567890";
        let expected = [
            "755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583",
            "399871", "520489",
        ];
        for (counter, code) in expected.iter().enumerate() {
            assert_eq!(hotp(key, counter as u64), *code);
        }
    }

    #[test]
    fn totp_matches_rfc_6238_and_allows_one_step_of_skew() {
        // RFC 6238 appendix B, SHA-1, last six digits of 94287082 at T=59.
        let key = b"12345678901234567890";
        assert_eq!(totp_step_of(key, "287082", 59), Some(1));
        // One step later and earlier still pass; two do not.
        assert_eq!(totp_step_of(key, "287082", 59 + 30), Some(1));
        assert_eq!(totp_step_of(key, "287082", 59 - 30), Some(1));
        assert_eq!(totp_step_of(key, "287082", 59 + 60), None);
        assert_eq!(totp_step_of(key, "28708", 59), None);
        assert_eq!(totp_step_of(key, "28708a", 59), None);
        // T=1111111109: 07081804.
        assert_eq!(totp_step_of(key, "081804", 1_111_111_109), Some(37_037_036));
    }

    #[test]
    fn base32_round_trips() {
        assert_eq!(base32_encode(b"foobar"), "MZXW6YTBOI");
        assert_eq!(base32_decode("MZXW6YTBOI").unwrap(), b"foobar");
        assert_eq!(base32_decode("mzxw6ytboi======").unwrap(), b"foobar");
        assert!(base32_decode("1!").is_none());
        let bytes: Vec<u8> = (0..20).collect();
        assert_eq!(base32_decode(&base32_encode(&bytes)).unwrap(), bytes);
        assert_eq!(base32_encode(&bytes).len(), 32);
    }

    #[test]
    fn uris_and_qr_codes_are_what_authenticator_apps_read() {
        let uri = totp_uri("localhost:3000", "a b@c.d", "ABC");
        assert_eq!(
            uri,
            "otpauth://totp/localhost:3000:a%20b@c.d?algorithm=SHA1&digits=6&issuer=localhost%3A3000&period=30&secret=ABC"
        );
        let svg = qr_svg(&uri).unwrap();
        assert!(svg.starts_with("<?xml") && svg.contains("<svg"));
    }

    #[test]
    fn second_factors_make_aal2() {
        assert_eq!(aal_of(&[("password".into(), 1)]), "aal1");
        assert_eq!(
            aal_of(&[("password".into(), 1), ("totp".into(), 2)]),
            "aal2"
        );
        assert_eq!(aal_of(&[("mfa/phone".into(), 2)]), "aal2");
        assert_eq!(aal_of(&[]), "aal1");
    }
}
