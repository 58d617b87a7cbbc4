//! The auth service's settings. The server crate fills them from the
//! platform's environment names (`SITE_URL`, `JWT_EXPIRY`, `SMTP_*`, ...);
//! this crate only defines them and their defaults.

use std::fmt;
use std::time::Duration;

/// Everything the auth service can be told. Every field has a default that
/// works on a developer's machine.
#[derive(Debug, Clone)]
pub struct AuthConfig {
    /// The app's URL (`SITE_URL`): the default target of e-mail links and
    /// OAuth redirects, and an allowed `redirect_to` origin.
    pub site_url: String,
    /// The public URL of the Plinth server, without `/auth/v1`
    /// (`API_EXTERNAL_URL`): e-mail links point at `<it>/auth/v1/verify` and
    /// providers call back to `<it>/auth/v1/callback`.
    pub api_external_url: String,
    /// Lifetime of access tokens in seconds (`JWT_EXPIRY`, default 3600).
    pub jwt_expiry: i64,
    /// Shortest password accepted (`GOTRUE_PASSWORD_MIN_LENGTH`, default 6).
    pub password_min_length: usize,
    /// Sign-ups are confirmed at once, without an e-mail
    /// (`ENABLE_EMAIL_AUTOCONFIRM`).
    pub mailer_autoconfirm: bool,
    /// New users may not sign up (`DISABLE_SIGNUP`); existing users still sign in.
    pub disable_signup: bool,
    /// E-mail sign-up and sign-in are available (`ENABLE_EMAIL_SIGNUP`).
    pub email_enabled: bool,
    /// `POST /signup` without e-mail or phone creates an anonymous user
    /// (`ENABLE_ANONYMOUS_USERS`).
    pub anonymous_users: bool,
    /// Further allowed `redirect_to` targets (`ADDITIONAL_REDIRECT_URLS`):
    /// globs where `*` matches within a path segment or host label and `**`
    /// matches anything.
    pub uri_allow_list: Vec<String>,
    /// How long an e-mail link or code stays valid (`GOTRUE_MAILER_OTP_EXP`,
    /// seconds; default 3600, as the platform's projects have it); an
    /// expired one answers 403 `otp_expired`.
    pub otp_expiry: i64,
    /// How long a PKCE auth code may wait for its exchange, and an OAuth
    /// sign-in for its callback (seconds).
    pub flow_state_expiry: i64,
    /// A rotated refresh token may be presented again within this many
    /// seconds (concurrent tabs refreshing at once) and gets the current
    /// token; later reuse revokes the session (`GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL`).
    pub refresh_token_reuse_interval: i64,
    /// Outgoing mail. `None`: the built-in dev mailbox stores messages in
    /// Postgres and shows them at the server's mailbox page.
    pub smtp: Option<SmtpConfig>,
    /// Request limits on sign-up, sign-in, refresh, verify and recovery.
    pub rate_limits: RateLimits,
    /// GitHub sign-in (`GITHUB_ENABLED`, `GITHUB_CLIENT_ID`, `GITHUB_SECRET`).
    pub github: ProviderConfig,
    /// Google sign-in (`GOOGLE_ENABLED`, `GOOGLE_CLIENT_ID`, `GOOGLE_SECRET`).
    pub google: ProviderConfig,
    /// Cost of argon2id password hashes. Lower only in tests.
    pub password_hash: HashCost,
    /// `POST /token?grant_type=id_token` with a Google ID token.
    pub id_token_google: IdTokenProvider,
    /// `POST /token?grant_type=id_token` with an Apple ID token.
    pub id_token_apple: IdTokenProvider,
    /// `POST /token?grant_type=web3`: Sign-In with Ethereum / Solana.
    pub web3: Web3Config,
    /// The OAuth 2.1 server: this project as an OAuth provider.
    pub oauth_server: OAuthServerConfig,
    /// Phone sign-in and the SMS sender (`GOTRUE_EXTERNAL_PHONE_ENABLED`, `GOTRUE_SMS_*`).
    pub sms: crate::sms::SmsConfig,
    /// Multi-factor authentication (`GOTRUE_MFA_*`).
    pub mfa: crate::mfa::MfaConfig,
    /// Passkey sign-in (`GOTRUE_PASSKEY_*`), with MFA's WebAuthn relying party.
    pub passkeys: crate::passkeys::PasskeyConfig,
    /// `linkIdentity` / `unlinkIdentity` are offered (`GOTRUE_SECURITY_MANUAL_LINKING_ENABLED`);
    /// off, `/user/identities/*` answers 404 `manual_linking_disabled`.
    pub manual_linking_enabled: bool,
    /// A new password through `PUT /user` needs the `nonce` from
    /// `GET /reauthenticate` when the session is older than a day
    /// (`GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION`).
    pub update_password_require_reauthentication: bool,
    /// `/auth/v1` wants an API key, as behind the platform's hosted gateway
    /// (`PLINTH_AUTH_REQUIRE_APIKEY`, default true); off, it lets every
    /// request through, as the local development stack's gateway does.
    pub require_apikey: bool,
    /// A change of e-mail address is confirmed from both the current and
    /// the new address (`GOTRUE_MAILER_SECURE_EMAIL_CHANGE_ENABLED`, on as
    /// on the platform); off, the new address's link alone makes it.
    pub secure_email_change: bool,
}

impl Default for AuthConfig {
    fn default() -> Self {
        Self {
            site_url: "http://localhost:3000".into(),
            api_external_url: "http://localhost:54321".into(),
            jwt_expiry: 3600,
            password_min_length: 6,
            mailer_autoconfirm: false,
            disable_signup: false,
            email_enabled: true,
            anonymous_users: false,
            uri_allow_list: Vec::new(),
            otp_expiry: 3600,
            flow_state_expiry: 300,
            refresh_token_reuse_interval: 10,
            smtp: None,
            rate_limits: RateLimits::default(),
            github: ProviderConfig::github(),
            google: ProviderConfig::google(),
            password_hash: HashCost::default(),
            id_token_google: IdTokenProvider::google(),
            id_token_apple: IdTokenProvider::apple(),
            web3: Web3Config::default(),
            oauth_server: OAuthServerConfig::default(),
            sms: crate::sms::SmsConfig::default(),
            mfa: crate::mfa::MfaConfig::default(),
            passkeys: crate::passkeys::PasskeyConfig::default(),
            manual_linking_enabled: false,
            update_password_require_reauthentication: false,
            require_apikey: true,
            secure_email_change: true,
        }
    }
}

/// An issuer of ID tokens accepted by the `id_token` grant. The issuer and
/// its key set default to the provider's real ones; tests point them at a
/// stand-in issuer.
#[derive(Debug, Clone)]
pub struct IdTokenProvider {
    /// ID tokens of this provider are accepted (Google: `GOOGLE_ENABLED`,
    /// Apple: `GOTRUE_EXTERNAL_APPLE_ENABLED`).
    pub enabled: bool,
    /// The token's `aud` must be one of these (the OAuth client ids, and for
    /// Apple also `GOTRUE_EXTERNAL_IOS_BUNDLE_ID`).
    pub client_ids: Vec<String>,
    /// The token's `iss` (`https://accounts.google.com`, `https://appleid.apple.com`).
    pub issuer: String,
    /// Where the provider publishes its signing keys (a JWKS document).
    pub jwks_url: String,
    /// Accept tokens without the nonce check (`GOTRUE_EXTERNAL_SKIP_NONCE_CHECK`).
    pub skip_nonce_check: bool,
}

impl IdTokenProvider {
    /// Google's issuer and keys, disabled until configured.
    pub fn google() -> Self {
        Self {
            enabled: false,
            client_ids: Vec::new(),
            issuer: "https://accounts.google.com".into(),
            jwks_url: "https://www.googleapis.com/oauth2/v3/certs".into(),
            skip_nonce_check: false,
        }
    }

    /// Apple's issuer and keys, disabled until configured.
    pub fn apple() -> Self {
        Self {
            enabled: false,
            client_ids: Vec::new(),
            issuer: "https://appleid.apple.com".into(),
            jwks_url: "https://appleid.apple.com/auth/keys".into(),
            skip_nonce_check: false,
        }
    }
}

/// Sign-In with Ethereum (EIP-4361) and Solana messages.
#[derive(Debug, Clone)]
pub struct Web3Config {
    /// `GOTRUE_EXTERNAL_WEB3_ETHEREUM_ENABLED`.
    pub ethereum_enabled: bool,
    /// `GOTRUE_EXTERNAL_WEB3_SOLANA_ENABLED`.
    pub solana_enabled: bool,
    /// How far a message's `Issued At` may lie from now, either way
    /// (`GOTRUE_EXTERNAL_WEB3_ETHEREUM_MAXIMUM_VALIDITY_DURATION`, default 10 min).
    pub ethereum_max_validity: Duration,
    /// `GOTRUE_EXTERNAL_WEB3_SOLANA_MAXIMUM_VALIDITY_DURATION`, default 10 min.
    pub solana_max_validity: Duration,
}

impl Default for Web3Config {
    fn default() -> Self {
        Self {
            ethereum_enabled: false,
            solana_enabled: false,
            ethereum_max_validity: Duration::from_secs(600),
            solana_max_validity: Duration::from_secs(600),
        }
    }
}

/// The OAuth 2.1 server (`GOTRUE_OAUTH_SERVER_*`).
#[derive(Debug, Clone)]
pub struct OAuthServerConfig {
    /// `GOTRUE_OAUTH_SERVER_ENABLED`; off, its endpoints answer 404 `feature_disabled`.
    pub enabled: bool,
    /// The app's consent page, a path under the site URL that gets
    /// `?authorization_id=` (`GOTRUE_OAUTH_SERVER_AUTHORIZATION_PATH`).
    pub authorization_path: String,
    /// How long an authorization request and its code stay valid
    /// (`GOTRUE_OAUTH_SERVER_AUTHORIZATION_TTL`, default 10 min).
    pub authorization_ttl: Duration,
    /// The scope of a request that names none (`GOTRUE_OAUTH_SERVER_DEFAULT_SCOPE`).
    pub default_scope: String,
    /// `POST /oauth/clients/register` is open to anyone
    /// (`GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION`).
    pub allow_dynamic_registration: bool,
}

impl Default for OAuthServerConfig {
    fn default() -> Self {
        Self {
            enabled: false,
            authorization_path: String::new(),
            authorization_ttl: Duration::from_secs(600),
            default_scope: "email".into(),
            allow_dynamic_registration: false,
        }
    }
}

/// An SMTP relay (`SMTP_HOST`, `SMTP_PORT`, `SMTP_USER`, `SMTP_PASS`,
/// `SMTP_ADMIN_EMAIL`, `SMTP_SENDER_NAME`).
///
/// Port 465 uses TLS from the first byte; a relay on `localhost` /
/// `127.0.0.1` (Mailpit, Inbucket) is spoken to in plain text; any other host
/// must offer STARTTLS.
#[derive(Clone)]
pub struct SmtpConfig {
    pub host: String,
    pub port: u16,
    /// Login user, when the relay wants one.
    pub user: Option<String>,
    /// Login password (never printed).
    pub pass: Option<String>,
    /// The `From` address.
    pub sender_email: String,
    /// The `From` display name.
    pub sender_name: Option<String>,
}

impl fmt::Debug for SmtpConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SmtpConfig")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("user", &self.user)
            .field("pass", &self.pass.as_ref().map(|_| "<redacted>"))
            .field("sender_email", &self.sender_email)
            .field("sender_name", &self.sender_name)
            .finish()
    }
}

/// So many events per so long, as the platform writes rates: `"30"` (per
/// hour) or `"10/5m"` (events / a duration: `ms`, `s`, `m`, `h`, combined as
/// in `1h30m`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    pub events: u32,
    pub over: Duration,
}

impl Rate {
    /// `events` per hour.
    pub const fn per_hour(events: u32) -> Self {
        Self {
            events,
            over: Duration::from_secs(3600),
        }
    }

    /// Never bites.
    pub const UNLIMITED: Self = Self::per_hour(u32::MAX);
}

impl std::str::FromStr for Rate {
    type Err = String;

    fn from_str(value: &str) -> Result<Self, String> {
        let value = value.trim();
        let events = |s: &str| -> Result<u32, String> {
            let n: f64 = s
                .trim()
                .parse()
                .map_err(|_| format!("rate: events part of {value:?} is not a number"))?;
            if !n.is_finite() || n < 0.0 {
                return Err(format!("rate: events part of {value:?} is not a number"));
            }
            // Whole events; anything beyond u32 never bites.
            Ok(if n >= f64::from(u32::MAX) {
                u32::MAX
            } else {
                n as u32
            })
        };
        match value.split_once('/') {
            None => Ok(Self::per_hour(events(value)?)),
            Some((count, over)) => {
                let over = parse_go_duration(over.trim())
                    .filter(|d| !d.is_zero())
                    .ok_or_else(|| format!("rate: {over:?} in {value:?} is not a duration"))?;
                Ok(Self {
                    events: events(count)?,
                    over,
                })
            }
        }
    }
}

/// `1h30m`, `5m`, `90s`, `500ms`: numbers each followed by a unit.
fn parse_go_duration(text: &str) -> Option<Duration> {
    let mut total = Duration::ZERO;
    let mut rest = text;
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let n: u64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let (unit, len) = if rest.starts_with("ms") {
            (Duration::from_millis(1), 2)
        } else if rest.starts_with('s') {
            (Duration::from_secs(1), 1)
        } else if rest.starts_with('m') {
            (Duration::from_secs(60), 1)
        } else if rest.starts_with('h') {
            (Duration::from_secs(3600), 1)
        } else {
            return None;
        };
        rest = &rest[len..];
        total = total.checked_add(unit.checked_mul(u32::try_from(n).ok()?)?)?;
    }
    Some(total)
}

/// Request limits per window. Counted in memory, per server process.
///
/// None of them lets a stranger lock an account: failed sign-ins are counted
/// per account *and* client address (the attacker's address is refused, the
/// owner elsewhere is not), and failures from everywhere only slow an
/// account's sign-ins down.
#[derive(Debug, Clone)]
pub struct RateLimits {
    /// Length of one counting window.
    pub window: Duration,
    /// Sign-ups and password sign-ins per client IP per window
    /// (`GOTRUE_RATE_LIMIT_SIGN_IN_SIGN_UPS`).
    pub sign_in_sign_ups: u32,
    /// Refresh-token grants per client IP per window (`GOTRUE_RATE_LIMIT_TOKEN_REFRESH`).
    pub token_refresh: u32,
    /// `/verify` calls per client IP per window (`GOTRUE_RATE_LIMIT_VERIFY`).
    pub verify: u32,
    /// Requests for an e-mail link or code (`/recover`, `/resend`, `/otp`)
    /// per client per window (`GOTRUE_RATE_LIMIT_OTP`).
    pub recover: u32,
    /// Anonymous sign-ins per client per hour (`GOTRUE_RATE_LIMIT_ANONYMOUS_USERS`).
    pub anonymous_users: u32,
    /// E-mails the whole instance sends (`GOTRUE_RATE_LIMIT_EMAIL_SENT`,
    /// default 30 per hour); over it: 429 `over_email_send_rate_limit`.
    pub email_sent: Rate,
    /// Text messages the whole instance sends (`GOTRUE_RATE_LIMIT_SMS_SENT`,
    /// default 30 per hour); over it: 429 `over_sms_send_rate_limit`.
    pub sms_sent: Rate,
    /// Count requests per value of this header instead of per client
    /// address (`GOTRUE_RATE_LIMIT_HEADER`); a request without it is not
    /// limited, as the platform does.
    pub header: Option<String>,
    /// E-mails asked for per e-mail address per window
    /// (`PLINTH_RATE_LIMIT_EMAILS_PER_ADDRESS`); over it: `over_email_send_rate_limit`.
    pub per_email: u32,
    /// Failed password sign-ins per account from one client address per
    /// window; past it that address gets 429 `over_request_rate_limit` for
    /// that account (`PLINTH_RATE_LIMIT_SIGN_IN_FAILURES`).
    pub sign_in_failures_per_account_ip: u32,
    /// Failed password sign-ins of one account (from any address) per
    /// window after which each sign-in of it waits [`SIGN_IN_BACKOFF`]
    /// before its password is checked; never refused
    /// (`PLINTH_SIGN_IN_BACKOFF_AFTER`).
    pub sign_in_backoff_after: u32,
    /// Wrong e-mail codes (`POST /verify` with `email` and `token`) per
    /// account per window; past it codes for that address are refused with
    /// 429 (links still work) (`PLINTH_RATE_LIMIT_VERIFY_FAILURES`).
    pub verify_failures_per_account: u32,
    /// One e-mail (confirmation, magic link, recovery, e-mail change) per
    /// address per this long, asked for by anyone; sooner: 429
    /// `over_email_send_rate_limit` (`GOTRUE_SMTP_MAX_FREQUENCY`, default 60 s).
    pub email_max_frequency: Duration,
}

/// How long a sign-in waits for an account under attack.
pub const SIGN_IN_BACKOFF: Duration = Duration::from_secs(1);

impl Default for RateLimits {
    fn default() -> Self {
        Self {
            window: Duration::from_secs(300),
            sign_in_sign_ups: 30,
            token_refresh: 150,
            verify: 30,
            recover: 30,
            anonymous_users: 30,
            email_sent: Rate::per_hour(30),
            sms_sent: Rate::per_hour(30),
            header: None,
            per_email: 30,
            sign_in_failures_per_account_ip: 10,
            sign_in_backoff_after: 20,
            verify_failures_per_account: 5,
            email_max_frequency: Duration::from_secs(60),
        }
    }
}

impl RateLimits {
    /// Limits so high they never bite (tests, benchmarks).
    pub fn unlimited() -> Self {
        Self {
            window: Duration::from_secs(300),
            sign_in_sign_ups: u32::MAX,
            token_refresh: u32::MAX,
            verify: u32::MAX,
            recover: u32::MAX,
            anonymous_users: u32::MAX,
            email_sent: Rate::UNLIMITED,
            sms_sent: Rate::UNLIMITED,
            header: None,
            per_email: u32::MAX,
            sign_in_failures_per_account_ip: u32::MAX,
            sign_in_backoff_after: u32::MAX,
            verify_failures_per_account: u32::MAX,
            email_max_frequency: Duration::ZERO,
        }
    }
}

/// One OAuth provider. The endpoint URLs default to the provider's real ones
/// and may be pointed at a fake provider in tests.
#[derive(Clone)]
pub struct ProviderConfig {
    /// Sign-in with this provider is offered; otherwise `/authorize` answers
    /// `provider_disabled`.
    pub enabled: bool,
    pub client_id: String,
    /// The OAuth client secret (never printed).
    pub secret: String,
    /// Where the browser is sent to sign in.
    pub authorize_url: String,
    /// Where the code is exchanged for the provider's access token.
    pub token_url: String,
    /// Where the user's profile is read.
    pub userinfo_url: String,
    /// GitHub only: the user's e-mail addresses with their verified flags.
    pub emails_url: String,
    /// Scopes always asked for (the client's `scopes` are added).
    pub scopes: Vec<String>,
}

impl fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProviderConfig")
            .field("enabled", &self.enabled)
            .field("client_id", &self.client_id)
            .field("secret", &"<redacted>")
            .field("authorize_url", &self.authorize_url)
            .field("token_url", &self.token_url)
            .field("userinfo_url", &self.userinfo_url)
            .field("emails_url", &self.emails_url)
            .field("scopes", &self.scopes)
            .finish()
    }
}

impl ProviderConfig {
    /// GitHub's real endpoints, disabled until configured.
    pub fn github() -> Self {
        Self {
            enabled: false,
            client_id: String::new(),
            secret: String::new(),
            authorize_url: "https://github.com/login/oauth/authorize".into(),
            token_url: "https://github.com/login/oauth/access_token".into(),
            userinfo_url: "https://api.github.com/user".into(),
            emails_url: "https://api.github.com/user/emails".into(),
            scopes: vec!["user:email".into()],
        }
    }

    /// Google's real endpoints, disabled until configured.
    pub fn google() -> Self {
        Self {
            enabled: false,
            client_id: String::new(),
            secret: String::new(),
            authorize_url: "https://accounts.google.com/o/oauth2/auth".into(),
            token_url: "https://oauth2.googleapis.com/token".into(),
            userinfo_url: "https://www.googleapis.com/userinfo/v2/me".into(),
            emails_url: String::new(),
            scopes: vec!["email".into(), "profile".into()],
        }
    }
}

/// argon2id cost parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HashCost {
    /// Memory in KiB (default 19456, the OWASP recommendation).
    pub memory_kib: u32,
    /// Passes over memory (default 2).
    pub iterations: u32,
    /// Lanes (default 1).
    pub parallelism: u32,
}

impl Default for HashCost {
    fn default() -> Self {
        Self {
            memory_kib: 19_456,
            iterations: 2,
            parallelism: 1,
        }
    }
}

impl HashCost {
    /// The cheapest valid parameters: for tests only.
    pub fn cheap() -> Self {
        Self {
            memory_kib: 64,
            iterations: 1,
            parallelism: 1,
        }
    }
}

#[cfg(test)]
mod rate_tests {
    use super::*;

    #[test]
    fn rates_parse_as_the_platform_writes_them() {
        assert_eq!("30".parse::<Rate>().unwrap(), Rate::per_hour(30));
        assert_eq!("2.0".parse::<Rate>().unwrap(), Rate::per_hour(2));
        assert_eq!(
            "10/5m".parse::<Rate>().unwrap(),
            Rate {
                events: 10,
                over: Duration::from_secs(300)
            }
        );
        assert_eq!(
            "1/1h30m".parse::<Rate>().unwrap().over,
            Duration::from_secs(5400)
        );
        assert_eq!("1e12".parse::<Rate>().unwrap().events, u32::MAX);
        for bad in [
            "", "x", "-1", "10/", "10/0s", "10/5d", "10/m", "a/5m", "1/2/3",
        ] {
            assert!(bad.parse::<Rate>().is_err(), "{bad}");
        }
    }
}
