//! Text messages: the SMS settings (`GOTRUE_SMS_*`, `GOTRUE_EXTERNAL_PHONE_ENABLED`)
//! and the one way the service sends a code by SMS.
//!
//! [`send_code`] is what phone sign-up, phone OTP, phone change,
//! reauthentication (and MFA phone factors) call: a number listed in
//! `GOTRUE_SMS_TEST_OTP` gets its fixed code and nothing is sent; otherwise
//! a fresh code goes through the configured provider (Twilio's Messages API,
//! form-encoded, as the platform sends it), or, with no provider, into the
//! dev mailbox (`auth.mail_messages`, recipient `+<number>`), where the
//! operator reads it at `/_/mailbox`. The dev mailbox stands in for a
//! provider only while phone sign-in is on (MFA phone factors, which have
//! settings of their own, send through [`send_message`] whenever mail goes
//! to the dev mailbox); else a code without a provider is the platform's
//! `Unable to get SMS provider`.

use std::collections::HashMap;
use std::fmt;
use std::time::Duration;

use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use rand::Rng;
use serde::Deserialize;

use crate::AuthState;
use crate::error::{AuthError, Result};

/// Phone sign-in and the SMS sender.
#[derive(Clone)]
pub struct SmsConfig {
    /// Phone sign-up and sign-in are offered (`GOTRUE_EXTERNAL_PHONE_ENABLED`).
    pub phone_enabled: bool,
    /// Phone sign-ups are confirmed at once, without a code (`GOTRUE_SMS_AUTOCONFIRM`).
    pub autoconfirm: bool,
    /// How long an SMS code stays valid, in seconds (`GOTRUE_SMS_OTP_EXP`, default 60).
    pub otp_exp: i64,
    /// Digits in an SMS code, 6 to 10 (`GOTRUE_SMS_OTP_LENGTH`, default 6).
    pub otp_length: usize,
    /// One code per number and purpose per this long (`GOTRUE_SMS_MAX_FREQUENCY`, default 60 s).
    pub max_frequency: Duration,
    /// The message; `{{ .Code }}` becomes the code (`GOTRUE_SMS_TEMPLATE`,
    /// default `Your code is {{ .Code }}`).
    pub template: String,
    /// `GOTRUE_SMS_PROVIDER`: `twilio`, or `None` for the dev mailbox.
    pub provider: Option<SmsProvider>,
    /// `GOTRUE_SMS_TWILIO_*`.
    pub twilio: TwilioConfig,
    /// Fixed codes for test numbers, keyed by the number without `+`
    /// (`GOTRUE_SMS_TEST_OTP`, `+15550001111=123456,...`): no SMS is sent.
    pub test_otp: HashMap<String, String>,
    /// The test codes stop working at this time (`GOTRUE_SMS_TEST_OTP_VALID_UNTIL`).
    pub test_otp_valid_until: Option<DateTime<Utc>>,
}

impl Default for SmsConfig {
    fn default() -> Self {
        Self {
            phone_enabled: false,
            autoconfirm: false,
            otp_exp: 60,
            otp_length: 6,
            max_frequency: Duration::from_secs(60),
            template: DEFAULT_TEMPLATE.into(),
            provider: None,
            twilio: TwilioConfig::default(),
            test_otp: HashMap::new(),
            test_otp_valid_until: None,
        }
    }
}

impl fmt::Debug for SmsConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SmsConfig")
            .field("phone_enabled", &self.phone_enabled)
            .field("autoconfirm", &self.autoconfirm)
            .field("otp_exp", &self.otp_exp)
            .field("otp_length", &self.otp_length)
            .field("max_frequency", &self.max_frequency)
            .field("provider", &self.provider)
            .field("twilio", &self.twilio)
            .field("test_numbers", &self.test_otp.len())
            .finish_non_exhaustive()
    }
}

/// The default SMS text, as the platform's.
pub const DEFAULT_TEMPLATE: &str = "Your code is {{ .Code }}";

/// An SMS provider Plinth can speak to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SmsProvider {
    Twilio,
}

impl SmsProvider {
    /// `GOTRUE_SMS_PROVIDER`'s value; blank is none, unknown ones are refused.
    pub fn parse(name: &str) -> std::result::Result<Option<Self>, String> {
        match name.trim().to_ascii_lowercase().as_str() {
            "" => Ok(None),
            "twilio" => Ok(Some(Self::Twilio)),
            other => Err(format!(
                "SMS provider {other:?} is not supported (use twilio, or leave it unset for the dev mailbox)"
            )),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Twilio => "twilio",
        }
    }
}

/// Twilio's Programmable Messaging (`GOTRUE_SMS_TWILIO_ACCOUNT_SID`,
/// `_AUTH_TOKEN`, `_MESSAGE_SERVICE_SID`, `_CONTENT_SID`).
#[derive(Clone)]
pub struct TwilioConfig {
    pub account_sid: String,
    /// Never printed.
    pub auth_token: String,
    /// The sender: a Messaging Service SID or a phone number.
    pub message_service_sid: String,
    /// WhatsApp content template carrying the code as variable 1.
    pub content_sid: String,
    /// Twilio's API root, `https://api.twilio.com`; tests point it at a
    /// local stand-in (`PLINTH_SMS_TWILIO_API_BASE`).
    pub api_base: String,
}

impl Default for TwilioConfig {
    fn default() -> Self {
        Self {
            account_sid: String::new(),
            auth_token: String::new(),
            message_service_sid: String::new(),
            content_sid: String::new(),
            api_base: "https://api.twilio.com".into(),
        }
    }
}

impl fmt::Debug for TwilioConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TwilioConfig")
            .field("account_sid", &self.account_sid)
            .field("auth_token", &"<redacted>")
            .field("message_service_sid", &self.message_service_sid)
            .field("content_sid", &self.content_sid)
            .field("api_base", &self.api_base)
            .finish()
    }
}

/// Parses `GOTRUE_SMS_TEST_OTP`: `number=code` pairs separated by commas;
/// numbers lose their `+` and spaces, as the platform stores them.
pub fn parse_test_otp(text: &str) -> std::result::Result<HashMap<String, String>, String> {
    let mut out = HashMap::new();
    for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (phone, code) = pair
            .split_once('=')
            .or_else(|| pair.split_once(':'))
            .ok_or_else(|| format!("{pair:?} is not number=code"))?;
        let phone = format_phone(phone.trim());
        let code = code.trim();
        if phone.is_empty() || code.is_empty() {
            return Err(format!("{pair:?} is not number=code"));
        }
        out.insert(phone, code.to_owned());
    }
    Ok(out)
}

/// A number as the platform keeps it: no `+`, no spaces.
pub fn format_phone(phone: &str) -> String {
    phone.trim().trim_start_matches('+').replace(' ', "")
}

/// E.164 without the `+`: 2 to 15 digits, not starting with 0.
pub fn valid_e164(phone: &str) -> bool {
    (2..=15).contains(&phone.len())
        && phone.bytes().all(|b| b.is_ascii_digit())
        && !phone.starts_with('0')
}

/// The number of a request, formatted; 400 `validation_failed` when it is
/// not E.164.
pub fn validate_phone(phone: &str) -> Result<String> {
    let phone = format_phone(phone);
    if valid_e164(&phone) {
        Ok(phone)
    } else {
        Err(AuthError::validation(
            "Invalid phone number format (E.164 required)",
        ))
    }
}

/// `channel` of a request: `sms` (the default) or `whatsapp` (Twilio only).
pub fn validate_channel(state: &AuthState, channel: Option<&str>) -> Result<&'static str> {
    match channel.map(str::trim).filter(|c| !c.is_empty()) {
        None | Some("sms") => Ok("sms"),
        Some("whatsapp") if state.config().sms.provider == Some(SmsProvider::Twilio) => {
            Ok("whatsapp")
        }
        Some(_) => Err(AuthError::validation(INVALID_CHANNEL)),
    }
}

const INVALID_CHANNEL: &str = "Invalid channel, supported values are 'sms' or 'whatsapp'. 'whatsapp' is only supported if Twilio or Twilio Verify is used as the provider.";

/// A fresh code of `length` digits.
pub fn generate_otp(length: usize) -> String {
    let mut rng = rand::rng();
    (0..length.clamp(6, 10))
        .map(|_| char::from(b'0' + rng.random_range(0..10u8)))
        .collect()
}

/// The message for `code`: the template with every `{{ .Code }}` (any
/// spacing) replaced.
pub fn render(template: &str, code: &str) -> String {
    let mut out = String::with_capacity(template.len() + code.len());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        let Some(len) = rest[start..].find("}}") else {
            break;
        };
        let inner = rest[start + 2..start + len].trim();
        out.push_str(&rest[..start]);
        if inner == ".Code" {
            out.push_str(code);
        } else {
            out.push_str(&rest[start..start + len + 2]);
        }
        rest = &rest[start + len + 2..];
    }
    out.push_str(rest);
    out
}

/// The fixed code of a test number, while test codes are valid.
pub fn test_otp<'a>(state: &'a AuthState, phone: &str) -> Option<&'a str> {
    let sms = &state.config().sms;
    if sms
        .test_otp_valid_until
        .is_some_and(|until| state.now() >= until)
    {
        return None;
    }
    sms.test_otp.get(phone).map(String::as_str)
}

/// What [`send_code`] did: the code to store (hashed) and the provider's
/// message id, if any.
#[derive(Debug, Clone)]
pub struct SentCode {
    pub code: String,
    pub message_id: Option<String>,
}

/// Picks the code for `phone` (the test number's fixed one, else a fresh
/// one) and sends it by `channel`, unless it is a test number. `purpose`
/// names it in errors (`confirmation`, `phone_change`, `reauthentication`).
/// Failures of the provider are 422 `sms_send_failed`; without a provider
/// (and without the dev mailbox standing in, see [`dev_mailbox_stands_in`])
/// the platform's 500 `Unable to get SMS provider`.
pub async fn send_code(
    state: &AuthState,
    phone: &str,
    channel: &str,
    purpose: &str,
) -> Result<SentCode> {
    if let Some(code) = test_otp(state, phone) {
        return Ok(SentCode {
            code: code.to_owned(),
            message_id: Some("test-otp".into()),
        });
    }
    let config = &state.config().sms;
    if config.provider.is_none() && !dev_mailbox_stands_in(state) {
        tracing::warn!(
            purpose,
            "no SMS sent: no GOTRUE_SMS_PROVIDER is set (without one, texts go to the dev \
             mailbox only while phone sign-in is on and mail is not sent through SMTP)"
        );
        return Err(AuthError::api(
            StatusCode::INTERNAL_SERVER_ERROR,
            "unexpected_failure",
            "Unable to get SMS provider",
        ));
    }
    let code = generate_otp(config.otp_length);
    let message = render(&config.template, &code);
    let message_id = send_message(state, phone, &message, channel, &code)
        .await
        .map_err(|reason| {
            AuthError::unprocessable(
                "sms_send_failed",
                format!("Error sending {purpose} OTP to provider: {reason}"),
            )
        })?;
    Ok(SentCode { code, message_id })
}

/// Whether, with no SMS provider set, the dev mailbox takes the texts of
/// phone sign-in, number changes and reauthentication: only while phone
/// sign-in is on (`GOTRUE_EXTERNAL_PHONE_ENABLED`) and mail goes to the dev
/// mailbox. Off, the platform has no SMS provider to send them with.
pub fn dev_mailbox_stands_in(state: &AuthState) -> bool {
    state.config().sms.phone_enabled && state.mailer().is_dev_mailbox()
}

/// Sends one text to `phone` (without `+`): through the provider, or into
/// the dev mailbox when none is configured. The provider's message id.
pub async fn send_message(
    state: &AuthState,
    phone: &str,
    message: &str,
    channel: &str,
    code: &str,
) -> std::result::Result<Option<String>, String> {
    match state.config().sms.provider {
        Some(SmsProvider::Twilio) => twilio_send(state, phone, message, channel, code)
            .await
            .map(Some),
        None => {
            if !state.mailer().is_dev_mailbox() {
                return Err(
                    "no SMS provider is configured (GOTRUE_SMS_PROVIDER) and mail goes to SMTP, not the dev mailbox".into(),
                );
            }
            let subject = if channel == "whatsapp" {
                "WhatsApp message"
            } else {
                "SMS"
            };
            sqlx::query(
                "insert into auth.mail_messages (recipient, subject, body_text) values ($1, $2, $3)",
            )
            .bind(format!("+{phone}"))
            .bind(subject)
            .bind(message)
            .execute(&state.db().owner)
            .await
            .map_err(|e| {
                tracing::error!(error = %e, "storing an SMS in the dev mailbox failed");
                "the dev mailbox is unavailable".to_owned()
            })?;
            Ok(None)
        }
    }
}

/// Twilio's answer to a created message.
#[derive(Debug, Deserialize)]
struct TwilioMessage {
    sid: Option<String>,
    status: Option<String>,
    error_code: Option<serde_json::Value>,
    error_message: Option<String>,
}

/// Twilio's error body.
#[derive(Debug, Deserialize)]
struct TwilioError {
    message: Option<String>,
    more_info: Option<String>,
}

/// `POST /2010-04-01/Accounts/{sid}/Messages.json`, form-encoded, with the
/// account SID and auth token as basic auth.
async fn twilio_send(
    state: &AuthState,
    phone: &str,
    message: &str,
    channel: &str,
    code: &str,
) -> std::result::Result<String, String> {
    let twilio = &state.config().sms.twilio;
    if twilio.account_sid.is_empty() {
        return Err("missing Twilio account SID".into());
    }
    if twilio.auth_token.is_empty() {
        return Err("missing Twilio auth token".into());
    }
    if twilio.message_service_sid.is_empty() {
        return Err("missing Twilio message service SID or Twilio phone number".into());
    }
    let url = format!(
        "{}/2010-04-01/Accounts/{}/Messages.json",
        twilio.api_base.trim_end_matches('/'),
        url::form_urlencoded::byte_serialize(twilio.account_sid.as_bytes()).collect::<String>()
    );
    let mut to = format!("+{phone}");
    let mut from = twilio.message_service_sid.clone();
    let mut form: Vec<(&str, String)> = Vec::new();
    if channel == "whatsapp" {
        to = format!("whatsapp:{to}");
        if valid_e164(&format_phone(&from)) {
            from = format!("whatsapp:{from}");
        }
    }
    form.push(("To", to));
    form.push(("Channel", channel.to_owned()));
    form.push(("From", from));
    if channel == "whatsapp" && !twilio.content_sid.is_empty() {
        form.push(("ContentSid", twilio.content_sid.clone()));
        form.push((
            "ContentVariables",
            serde_json::json!({ "1": code }).to_string(),
        ));
    } else {
        form.push(("Body", message.to_owned()));
    }
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form.iter().map(|(k, v)| (*k, v.as_str())))
        .finish();
    let response = state
        .http()
        .post(&url)
        .basic_auth(&twilio.account_sid, Some(&twilio.auth_token))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .map_err(|e| {
            tracing::warn!(error = %e, "Twilio unreachable");
            "the SMS provider could not be reached".to_owned()
        })?;
    let status = response.status();
    let bytes = response.bytes().await.map_err(|e| e.to_string())?;
    if status != StatusCode::OK && status != StatusCode::CREATED {
        let error: TwilioError = serde_json::from_slice(&bytes)
            .map_err(|_| format!("the SMS provider answered {status}"))?;
        return Err(format!(
            "{} More information: {}",
            error.message.unwrap_or_default(),
            error.more_info.unwrap_or_default()
        ));
    }
    let sent: TwilioMessage = serde_json::from_slice(&bytes)
        .map_err(|_| "the SMS provider's answer is not JSON".to_owned())?;
    let sid = sent.sid.unwrap_or_default();
    if matches!(sent.status.as_deref(), Some("failed" | "undelivered")) {
        let code = match sent.error_code {
            Some(serde_json::Value::String(s)) => s,
            Some(serde_json::Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        };
        return Err(format!(
            "twilio error: {} {code} for message {sid}",
            sent.error_message.unwrap_or_default()
        ));
    }
    Ok(sid)
}

/// 429 `over_sms_send_rate_limit` when a code of this kind went to the
/// number less than `GOTRUE_SMS_MAX_FREQUENCY` ago.
pub fn frequency_gate(state: &AuthState, sent_at: Option<DateTime<Utc>>) -> Result<()> {
    let every = chrono::Duration::from_std(state.config().sms.max_frequency)
        .unwrap_or(chrono::Duration::MAX);
    if let Some(at) = sent_at
        && at + every > state.now()
    {
        let left = (at + every - state.now()).num_seconds().max(0);
        return Err(AuthError::api(
            StatusCode::TOO_MANY_REQUESTS,
            "over_sms_send_rate_limit",
            format!("For security purposes, you can only request this after {left} seconds."),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_numbers_parse_as_the_platform_parses_them() {
        let map = parse_test_otp("+15550001111=123456, 1 555 000 2222=654321").unwrap();
        assert_eq!(map["15550001111"], "123456");
        assert_eq!(map["15550002222"], "654321");
        assert!(parse_test_otp("").unwrap().is_empty());
        assert!(parse_test_otp("nonsense").is_err());
        assert!(parse_test_otp("+1555=").is_err());
    }

    #[test]
    fn numbers_must_be_e164() {
        assert_eq!(validate_phone("+1 555 000 1111").unwrap(), "15550001111");
        for bad in ["", "+", "0123", "12a4", "+1234567890123456", "1"] {
            assert!(validate_phone(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn templates_and_codes() {
        assert_eq!(render(DEFAULT_TEMPLATE, "123456"), "Your code is 123456");
        assert_eq!(render("{{.Code}} is it", "9"), "9 is it");
        assert_eq!(render("{{ .Other }} {{ .Code }}", "1"), "{{ .Other }} 1");
        assert_eq!(render("no code {{", "1"), "no code {{");
        let code = generate_otp(8);
        assert_eq!(code.len(), 8);
        assert!(code.bytes().all(|b| b.is_ascii_digit()));
        assert_eq!(generate_otp(2).len(), 6);
    }

    #[test]
    fn providers_parse() {
        assert_eq!(SmsProvider::parse(""), Ok(None));
        assert_eq!(SmsProvider::parse("Twilio"), Ok(Some(SmsProvider::Twilio)));
        assert!(SmsProvider::parse("carrier-pigeon").is_err());
    }
}
