//! The auth service's limits, in memory per node, each a keyed budget of
//! `plinth_limits` (GCRA per key, O(1) work per call, bounded memory): the
//! platform's requests per client (its address, by /64 for IPv6, or the
//! value of `GOTRUE_RATE_LIMIT_HEADER`) and e-mails / SMS sent by the whole
//! instance; and Plinth's counts of wrong guesses, each counted before the
//! guess is checked (so a burst cannot slip past) and taken back when it was
//! right.

use std::time::Duration;

use plinth_limits::{Budget, Limiter, Stats};

use crate::AuthState;
use crate::config::{RateLimits, SIGN_IN_BACKOFF};
use crate::error::{AuthError, Result};
use crate::handlers::Input;

/// The requests counted per client.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Limited {
    /// Sign-ups and sign-ins (`GOTRUE_RATE_LIMIT_SIGN_IN_SIGN_UPS`).
    SignIn,
    /// Refresh-token grants (`GOTRUE_RATE_LIMIT_TOKEN_REFRESH`).
    Refresh,
    /// `/verify` (`GOTRUE_RATE_LIMIT_VERIFY`).
    Verify,
    /// Asking for an e-mail link or code: `/recover`, `/resend`, `/otp`
    /// (`GOTRUE_RATE_LIMIT_OTP`).
    Otp,
    /// Anonymous sign-ins, per hour (`GOTRUE_RATE_LIMIT_ANONYMOUS_USERS`).
    Anonymous,
    /// OAuth clients registering themselves (the sign-in budget).
    OAuthRegister,
    /// MFA challenges and verifications, per minute
    /// (`GOTRUE_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY`).
    Mfa,
    /// Passkey sign-in options (`GOTRUE_RATE_LIMIT_PASSKEY`).
    Passkey,
}

/// Every limiter of one auth service.
#[derive(Debug)]
pub(crate) struct Limits {
    sign_in: Limiter,
    refresh: Limiter,
    verify: Limiter,
    otp: Limiter,
    anonymous: Limiter,
    oauth_register: Limiter,
    mfa: Limiter,
    passkey: Limiter,
    /// E-mails asked for per address.
    pub mail_per_address: Limiter,
    /// One e-mail per address per `GOTRUE_SMTP_MAX_FREQUENCY`.
    pub mail_frequency: Limiter,
    email_sent: Limiter,
    sms_sent: Limiter,
    /// Wrong passwords per account and client address (then 429).
    pub sign_in_failures: Limiter,
    /// Wrong passwords per account from anywhere (then each sign-in waits).
    pub account_failures: Limiter,
    /// Wrong e-mail, SMS and reauthentication codes per account.
    pub code_failures: Limiter,
    /// Wrong MFA codes per factor: a burst, then one try per window.
    pub factor_failures: Limiter,
}

impl Limits {
    pub fn new(limits: &RateLimits, mfa_per_minute: u32, passkey_per_window: u32) -> Self {
        let per_window = |n| Budget::per(n, limits.window);
        let hour = Duration::from_secs(3600);
        Self {
            sign_in: Limiter::new("auth sign-in", per_window(limits.sign_in_sign_ups)),
            refresh: Limiter::new("auth refresh", per_window(limits.token_refresh)),
            verify: Limiter::new("auth verify", per_window(limits.verify)),
            otp: Limiter::new("auth otp", per_window(limits.recover)),
            anonymous: Limiter::new("auth anonymous", Budget::per(limits.anonymous_users, hour)),
            oauth_register: Limiter::new(
                "auth oauth register",
                per_window(limits.sign_in_sign_ups),
            ),
            mfa: Limiter::new(
                "auth mfa",
                Budget::per(mfa_per_minute, Duration::from_secs(60)),
            ),
            passkey: Limiter::new("auth passkey", per_window(passkey_per_window)),
            mail_per_address: Limiter::new("auth mail per address", per_window(limits.per_email)),
            mail_frequency: Limiter::new(
                "auth mail frequency",
                Budget::burst_then_every(1, limits.email_max_frequency),
            ),
            email_sent: Limiter::new(
                "auth e-mails sent",
                Budget::per(limits.email_sent.events, limits.email_sent.over),
            ),
            sms_sent: Limiter::new(
                "auth sms sent",
                Budget::per(limits.sms_sent.events, limits.sms_sent.over),
            ),
            sign_in_failures: Limiter::new(
                "auth sign-in failures",
                per_window(limits.sign_in_failures_per_account_ip),
            ),
            account_failures: Limiter::new(
                "auth account failures",
                per_window(limits.sign_in_backoff_after),
            ),
            code_failures: Limiter::new(
                "auth code failures",
                per_window(limits.verify_failures_per_account),
            ),
            factor_failures: Limiter::new(
                "auth factor failures",
                Budget::burst_then_every(limits.verify_failures_per_account, limits.window),
            ),
        }
    }

    fn of(&self, request: Limited) -> &Limiter {
        match request {
            Limited::SignIn => &self.sign_in,
            Limited::Refresh => &self.refresh,
            Limited::Verify => &self.verify,
            Limited::Otp => &self.otp,
            Limited::Anonymous => &self.anonymous,
            Limited::OAuthRegister => &self.oauth_register,
            Limited::Mfa => &self.mfa,
            Limited::Passkey => &self.passkey,
        }
    }

    /// Each limiter's name and what it holds (for `/metrics`).
    pub fn stats(&self) -> Vec<(&'static str, Stats)> {
        [
            &self.sign_in,
            &self.refresh,
            &self.verify,
            &self.otp,
            &self.anonymous,
            &self.oauth_register,
            &self.mfa,
            &self.passkey,
            &self.mail_per_address,
            &self.mail_frequency,
            &self.email_sent,
            &self.sms_sent,
            &self.sign_in_failures,
            &self.account_failures,
            &self.code_failures,
            &self.factor_failures,
        ]
        .into_iter()
        .map(|l| (l.name(), l.stats()))
        .collect()
    }
}

/// Who a request is counted against: the first value of the configured
/// `GOTRUE_RATE_LIMIT_HEADER`, or the client's address (an IPv6 address by
/// its /64) when none is configured. `None` (not limited, as the platform
/// does) when the header is configured but the request has no value in it.
pub(crate) fn client_key(state: &AuthState, input: &Input) -> Option<String> {
    let Some(name) = state.config().rate_limits.header.as_deref() else {
        return Some(plinth_limits::address_key(&input.ip));
    };
    let value = input.headers.get(name)?.to_str().ok()?;
    let first = value.split(',').next().unwrap_or("").trim();
    (!first.is_empty()).then(|| first.to_owned())
}

/// Counts one `request` of this client; 429 `over_request_rate_limit` when
/// its budget is spent.
pub(crate) fn limit_request(state: &AuthState, input: &Input, request: Limited) -> Result<()> {
    let Some(key) = client_key(state, input) else {
        return Ok(());
    };
    state
        .limits()
        .of(request)
        .check(key)
        .map_err(|_| AuthError::rate_limited())
}

/// Counts one guess of a secret (a password, a code) against `limiter`
/// under `key`, before it is checked: 429 `over_request_rate_limit` once
/// the budget of wrong guesses is spent. Refund it when it was right.
pub(crate) fn count_guess(limiter: &Limiter, key: impl std::hash::Hash) -> Result<()> {
    limiter.check(key).map_err(|_| AuthError::rate_limited())
}

/// How long a sign-in of this account waits before its password is
/// checked: nothing until its failures from anywhere spent their budget,
/// then [`SIGN_IN_BACKOFF`] (it slows an attack, and never refuses).
pub(crate) fn sign_in_backoff(state: &AuthState, account: impl std::hash::Hash) -> Duration {
    match state.limits().account_failures.peek(account) {
        Ok(()) => Duration::ZERO,
        Err(_) => SIGN_IN_BACKOFF,
    }
}

/// One more e-mail from this instance (`GOTRUE_RATE_LIMIT_EMAIL_SENT`); 429
/// `over_email_send_rate_limit` "email rate limit exceeded" when over.
pub(crate) fn email_sent(state: &AuthState) -> Result<()> {
    state.limits().email_sent.check(()).map_err(|_| {
        AuthError::api(
            axum::http::StatusCode::TOO_MANY_REQUESTS,
            "over_email_send_rate_limit",
            "email rate limit exceeded",
        )
    })
}

/// One more SMS from this instance (`GOTRUE_RATE_LIMIT_SMS_SENT`); 429
/// `over_sms_send_rate_limit` "SMS rate limit exceeded" when over. For the
/// SMS sender to call before each message.
pub(crate) fn sms_sent(state: &AuthState) -> Result<()> {
    state.limits().sms_sent.check(()).map_err(|_| {
        AuthError::api(
            axum::http::StatusCode::TOO_MANY_REQUESTS,
            "over_sms_send_rate_limit",
            "SMS rate limit exceeded",
        )
    })
}
