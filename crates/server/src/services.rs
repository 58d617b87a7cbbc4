//! Each service's settings as flags and environment variables (the
//! self-hosted platform's names), turned into the service crates' own config
//! structs. The service crates know nothing of flags or environment.

use clap::Args;

use crate::config::Secret;

/// Auth (`/auth/v1`).
#[derive(Debug, Clone, Args)]
pub struct AuthArgs {
    /// Where the browser app lives: default target of e-mail links and sign-in redirects.
    #[arg(long, env = "SITE_URL")]
    pub site_url: Option<String>,

    /// The public URL of this server (e-mail links, OAuth callbacks); default http://localhost:<port>.
    #[arg(long, env = "API_EXTERNAL_URL")]
    pub api_external_url: Option<String>,

    /// Lifetime of access tokens, in seconds.
    #[arg(long, env = "JWT_EXPIRY", default_value_t = 3600)]
    pub jwt_expiry: i64,

    /// Further allowed redirect targets after sign-in, comma separated (globs).
    #[arg(long, env = "ADDITIONAL_REDIRECT_URLS", value_delimiter = ',')]
    pub additional_redirect_urls: Vec<String>,

    /// New users may not sign up.
    #[arg(long, env = "DISABLE_SIGNUP", default_value_t = false, action = clap::ArgAction::Set)]
    pub disable_signup: bool,

    /// E-mail sign-up and sign-in are offered.
    #[arg(long, env = "ENABLE_EMAIL_SIGNUP", default_value_t = true, action = clap::ArgAction::Set)]
    pub enable_email_signup: bool,

    /// Sign-ups are confirmed at once, without an e-mail.
    #[arg(long, env = "ENABLE_EMAIL_AUTOCONFIRM", default_value_t = false, action = clap::ArgAction::Set)]
    pub enable_email_autoconfirm: bool,

    /// Anonymous sign-ins are offered.
    #[arg(long, env = "ENABLE_ANONYMOUS_USERS", default_value_t = false, action = clap::ArgAction::Set)]
    pub enable_anonymous_users: bool,

    /// Shortest password accepted.
    #[arg(long, env = "GOTRUE_PASSWORD_MIN_LENGTH", default_value_t = 6)]
    pub password_min_length: usize,

    /// SMTP relay for auth e-mails; unset: the built-in dev mailbox at /_/mailbox.
    #[arg(long, env = "SMTP_HOST")]
    pub smtp_host: Option<String>,
    #[arg(long, env = "SMTP_PORT", default_value_t = 587)]
    pub smtp_port: u16,
    #[arg(long, env = "SMTP_USER")]
    pub smtp_user: Option<String>,
    #[arg(long, env = "SMTP_PASS", hide_env_values = true)]
    pub smtp_pass: Option<Secret>,
    /// The From address of auth e-mails.
    #[arg(long, env = "SMTP_ADMIN_EMAIL", default_value = "no-reply@localhost")]
    pub smtp_admin_email: String,
    #[arg(long, env = "SMTP_SENDER_NAME")]
    pub smtp_sender_name: Option<String>,
    /// Serve although PLINTH_HOST is not a loopback address and no SMTP_HOST
    /// is set: auth e-mails then wait in the dev mailbox, readable only with
    /// the link printed at start-up or the service_role key.
    #[arg(
        long,
        env = "PLINTH_ALLOW_DEV_MAILBOX",
        default_value_t = false,
        num_args = 0..=1,
        default_missing_value = "true",
        action = clap::ArgAction::Set
    )]
    pub allow_dev_mailbox: bool,

    /// Sign-ups and password sign-ins per client address per 5 minutes.
    #[arg(long, env = "GOTRUE_RATE_LIMIT_SIGN_IN_SIGN_UPS", default_value_t = 30)]
    pub rate_limit_sign_in_sign_ups: u32,
    /// Refresh-token grants per client address per 5 minutes.
    #[arg(long, env = "GOTRUE_RATE_LIMIT_TOKEN_REFRESH", default_value_t = 150)]
    pub rate_limit_token_refresh: u32,
    /// Verifications per client address per 5 minutes.
    #[arg(long, env = "GOTRUE_RATE_LIMIT_VERIFY", default_value_t = 30)]
    pub rate_limit_verify: u32,
    /// E-mails the whole instance sends: a number per hour, or `10/5m`.
    #[arg(long, env = "GOTRUE_RATE_LIMIT_EMAIL_SENT", default_value = "30")]
    pub rate_limit_email_sent: plinth_auth::Rate,
    /// Text messages the whole instance sends: a number per hour, or `10/5m`.
    #[arg(long, env = "GOTRUE_RATE_LIMIT_SMS_SENT", default_value = "30")]
    pub rate_limit_sms_sent: plinth_auth::Rate,
    /// Requests for an e-mail link or code (recover, resend, otp) per client per 5 minutes.
    #[arg(long, env = "GOTRUE_RATE_LIMIT_OTP", default_value_t = 30)]
    pub rate_limit_otp: u32,
    /// Anonymous sign-ins per client per hour.
    #[arg(long, env = "GOTRUE_RATE_LIMIT_ANONYMOUS_USERS", default_value_t = 30)]
    pub rate_limit_anonymous_users: u32,
    /// Count requests per value of this header instead of per client address
    /// (requests without it are then not limited).
    #[arg(long, env = "GOTRUE_RATE_LIMIT_HEADER")]
    pub rate_limit_header: Option<String>,
    /// E-mails asked for per e-mail address per 5 minutes (with or without an account).
    #[arg(
        long,
        env = "PLINTH_RATE_LIMIT_EMAILS_PER_ADDRESS",
        default_value_t = 30
    )]
    pub rate_limit_emails_per_address: u32,
    /// One auth e-mail per address per this long (e.g. 60s, 1m, 500ms; bare numbers are seconds).
    #[arg(long, env = "GOTRUE_SMTP_MAX_FREQUENCY", default_value = "60s", value_parser = parse_duration)]
    pub smtp_max_frequency: std::time::Duration,
    /// Lifetime of e-mail links and codes, in seconds.
    #[arg(long, env = "GOTRUE_MAILER_OTP_EXP", default_value_t = 3600)]
    pub mailer_otp_exp: i64,
    /// Failed password sign-ins per account from one client address per 5
    /// minutes; past it that address is refused for that account (the owner
    /// elsewhere is not).
    #[arg(long, env = "PLINTH_RATE_LIMIT_SIGN_IN_FAILURES", default_value_t = 10)]
    pub rate_limit_sign_in_failures: u32,
    /// Failed sign-ins of one account (from anywhere) per 5 minutes after which
    /// its sign-ins wait a little (up to 2 s); never refused.
    #[arg(long, env = "PLINTH_SIGN_IN_BACKOFF_AFTER", default_value_t = 20)]
    pub sign_in_backoff_after: u32,
    /// Wrong e-mail codes per account per 5 minutes; past it codes for that
    /// address are refused (links still work).
    #[arg(long, env = "PLINTH_RATE_LIMIT_VERIFY_FAILURES", default_value_t = 5)]
    pub rate_limit_verify_failures: u32,
    /// /auth/v1 wants an API key (the hosted gateway); false: none needed (the local stack's gateway).
    #[arg(long, env = "PLINTH_AUTH_REQUIRE_APIKEY", default_value_t = true, action = clap::ArgAction::Set)]
    pub auth_require_apikey: bool,
    /// A new e-mail address is confirmed from the current address too (both links).
    #[arg(long, env = "GOTRUE_MAILER_SECURE_EMAIL_CHANGE_ENABLED", default_value_t = true, action = clap::ArgAction::Set)]
    pub mailer_secure_email_change_enabled: bool,

    #[command(flatten)]
    pub github: GithubArgs,
    #[command(flatten)]
    pub google: GoogleArgs,
    #[command(flatten)]
    pub grants: crate::grants_args::GrantsArgs,
    #[command(flatten)]
    pub phone: PhoneArgs,
    #[command(flatten)]
    pub mfa: crate::mfa_args::MfaArgs,

    /// Users may sign in with passkeys (/auth/v1/passkeys; the relying party
    /// is GOTRUE_WEBAUTHN_RP_*).
    #[arg(long, env = "GOTRUE_PASSKEY_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub passkey_enabled: bool,
    /// Passkeys one user may have.
    #[arg(
        long,
        env = "GOTRUE_PASSKEY_MAX_PASSKEYS_PER_USER",
        default_value_t = 10
    )]
    pub passkey_max_passkeys_per_user: usize,
    /// How long a passkey ceremony's options may be answered.
    #[arg(long, env = "GOTRUE_WEBAUTHN_CHALLENGE_EXPIRY_DURATION", default_value = "5m", value_parser = parse_duration)]
    pub webauthn_challenge_expiry_duration: std::time::Duration,
    /// Passkey sign-in options per client per 5 minutes.
    #[arg(long, env = "GOTRUE_RATE_LIMIT_PASSKEY", default_value_t = 30)]
    pub rate_limit_passkey: u32,
}

/// Phone sign-in, SMS, identity linking and reauthentication (GoTrue's names).
#[derive(Debug, Clone, Args)]
pub struct PhoneArgs {
    /// Phone sign-up and sign-in are offered.
    #[arg(long, env = "GOTRUE_EXTERNAL_PHONE_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub external_phone_enabled: bool,
    /// Phone sign-ups are confirmed at once, without an SMS code.
    #[arg(long, env = "GOTRUE_SMS_AUTOCONFIRM", default_value_t = false, action = clap::ArgAction::Set)]
    pub sms_autoconfirm: bool,
    /// Lifetime of SMS codes, in seconds.
    #[arg(long, env = "GOTRUE_SMS_OTP_EXP", default_value_t = 60)]
    pub sms_otp_exp: i64,
    /// Digits of SMS codes (6 to 10).
    #[arg(long, env = "GOTRUE_SMS_OTP_LENGTH", default_value_t = 6, value_parser = clap::value_parser!(u8).range(6..=10))]
    pub sms_otp_length: u8,
    /// One SMS code per number and purpose per this long (e.g. 60s).
    #[arg(long, env = "GOTRUE_SMS_MAX_FREQUENCY", default_value = "60s", value_parser = parse_duration)]
    pub sms_max_frequency: std::time::Duration,
    /// The SMS text; `{{ .Code }}` becomes the code.
    #[arg(long, env = "GOTRUE_SMS_TEMPLATE")]
    pub sms_template: Option<String>,
    /// `twilio`; unset: SMS land in the dev mailbox at /_/mailbox.
    #[arg(long, env = "GOTRUE_SMS_PROVIDER", value_parser = parse_sms_provider)]
    pub sms_provider: Option<plinth_auth::SmsProvider>,
    #[arg(long, env = "GOTRUE_SMS_TWILIO_ACCOUNT_SID")]
    pub sms_twilio_account_sid: Option<String>,
    #[arg(long, env = "GOTRUE_SMS_TWILIO_AUTH_TOKEN", hide_env_values = true)]
    pub sms_twilio_auth_token: Option<Secret>,
    #[arg(long, env = "GOTRUE_SMS_TWILIO_MESSAGE_SERVICE_SID")]
    pub sms_twilio_message_service_sid: Option<String>,
    #[arg(long, env = "GOTRUE_SMS_TWILIO_CONTENT_SID")]
    pub sms_twilio_content_sid: Option<String>,
    /// Twilio's API root (a stand-in in tests).
    #[arg(long, env = "PLINTH_SMS_TWILIO_API_BASE")]
    pub sms_twilio_api_base: Option<String>,
    /// Fixed codes for test numbers, no SMS sent: `+15550001111=123456,...`.
    #[arg(long, env = "GOTRUE_SMS_TEST_OTP", value_parser = parse_test_otp)]
    pub sms_test_otp: Option<std::collections::HashMap<String, String>>,
    /// The test codes stop working at this time (RFC 3339).
    #[arg(long, env = "GOTRUE_SMS_TEST_OTP_VALID_UNTIL")]
    pub sms_test_otp_valid_until: Option<chrono::DateTime<chrono::Utc>>,
    /// linkIdentity / unlinkIdentity are offered.
    #[arg(long, env = "GOTRUE_SECURITY_MANUAL_LINKING_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub security_manual_linking_enabled: bool,
    /// A new password needs the nonce of GET /reauthenticate (unless the session is less than a day old).
    #[arg(long, env = "GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION", default_value_t = false, action = clap::ArgAction::Set)]
    pub security_update_password_require_reauthentication: bool,
}

fn parse_sms_provider(text: &str) -> Result<plinth_auth::SmsProvider, String> {
    plinth_auth::SmsProvider::parse(text)?.ok_or_else(|| "empty SMS provider".to_owned())
}

fn parse_test_otp(text: &str) -> Result<std::collections::HashMap<String, String>, String> {
    plinth_auth::parse_test_otp(text)
}

impl PhoneArgs {
    fn sms_config(&self) -> plinth_auth::SmsConfig {
        let defaults = plinth_auth::SmsConfig::default();
        let mut twilio = plinth_auth::TwilioConfig {
            account_sid: self.sms_twilio_account_sid.clone().unwrap_or_default(),
            auth_token: self
                .sms_twilio_auth_token
                .as_ref()
                .map(|s| s.expose().to_owned())
                .unwrap_or_default(),
            message_service_sid: self
                .sms_twilio_message_service_sid
                .clone()
                .unwrap_or_default(),
            content_sid: self.sms_twilio_content_sid.clone().unwrap_or_default(),
            ..plinth_auth::TwilioConfig::default()
        };
        override_url(&mut twilio.api_base, &self.sms_twilio_api_base);
        plinth_auth::SmsConfig {
            phone_enabled: self.external_phone_enabled,
            autoconfirm: self.sms_autoconfirm,
            otp_exp: self.sms_otp_exp,
            otp_length: usize::from(self.sms_otp_length),
            max_frequency: self.sms_max_frequency,
            template: self
                .sms_template
                .clone()
                .filter(|t| !t.trim().is_empty())
                .unwrap_or(defaults.template),
            provider: self.sms_provider,
            twilio,
            test_otp: self.sms_test_otp.clone().unwrap_or_default(),
            test_otp_valid_until: self.sms_test_otp_valid_until,
        }
    }
}

/// Sign-in with GitHub. The URL overrides point it at GitHub Enterprise or a test double.
#[derive(Debug, Clone, Args)]
pub struct GithubArgs {
    #[arg(long = "github-enabled", env = "GITHUB_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub github_enabled: bool,
    #[arg(long = "github-client-id", env = "GITHUB_CLIENT_ID")]
    pub github_client_id: Option<String>,
    #[arg(long = "github-secret", env = "GITHUB_SECRET", hide_env_values = true)]
    pub github_secret: Option<Secret>,
    #[arg(long = "github-authorize-url", env = "GITHUB_AUTHORIZE_URL")]
    pub github_authorize_url: Option<String>,
    #[arg(long = "github-token-url", env = "GITHUB_TOKEN_URL")]
    pub github_token_url: Option<String>,
    #[arg(long = "github-userinfo-url", env = "GITHUB_USERINFO_URL")]
    pub github_userinfo_url: Option<String>,
    #[arg(long = "github-emails-url", env = "GITHUB_EMAILS_URL")]
    pub github_emails_url: Option<String>,
}

/// Sign-in with Google. The URL overrides point it at a test double.
#[derive(Debug, Clone, Args)]
pub struct GoogleArgs {
    #[arg(long = "google-enabled", env = "GOOGLE_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub google_enabled: bool,
    #[arg(long = "google-client-id", env = "GOOGLE_CLIENT_ID")]
    pub google_client_id: Option<String>,
    #[arg(long = "google-secret", env = "GOOGLE_SECRET", hide_env_values = true)]
    pub google_secret: Option<Secret>,
    #[arg(long = "google-authorize-url", env = "GOOGLE_AUTHORIZE_URL")]
    pub google_authorize_url: Option<String>,
    #[arg(long = "google-token-url", env = "GOOGLE_TOKEN_URL")]
    pub google_token_url: Option<String>,
    #[arg(long = "google-userinfo-url", env = "GOOGLE_USERINFO_URL")]
    pub google_userinfo_url: Option<String>,
}

impl AuthArgs {
    /// The SMTP relay, when one is named: a blank `SMTP_HOST` (as an env
    /// file or a compose file with an empty default sets it) names none.
    pub fn smtp_host(&self) -> Option<&str> {
        self.smtp_host.as_deref().filter(|h| !h.trim().is_empty())
    }

    /// The auth service's config; `public_url` is this server's own URL,
    /// used where `API_EXTERNAL_URL` / `SITE_URL` are not set.
    pub fn to_config(&self, public_url: &str) -> plinth_auth::AuthConfig {
        let defaults = plinth_auth::AuthConfig::default();
        let api_external_url = self
            .api_external_url
            .clone()
            .unwrap_or_else(|| public_url.to_owned());
        let mut github = plinth_auth::ProviderConfig::github();
        github.enabled = self.github.github_enabled;
        github.client_id = self.github.github_client_id.clone().unwrap_or_default();
        github.secret = self
            .github
            .github_secret
            .as_ref()
            .map(|s| s.expose().to_owned())
            .unwrap_or_default();
        override_url(&mut github.authorize_url, &self.github.github_authorize_url);
        override_url(&mut github.token_url, &self.github.github_token_url);
        override_url(&mut github.userinfo_url, &self.github.github_userinfo_url);
        override_url(&mut github.emails_url, &self.github.github_emails_url);
        let mut google = plinth_auth::ProviderConfig::google();
        google.enabled = self.google.google_enabled;
        google.client_id = self.google.google_client_id.clone().unwrap_or_default();
        google.secret = self
            .google
            .google_secret
            .as_ref()
            .map(|s| s.expose().to_owned())
            .unwrap_or_default();
        override_url(&mut google.authorize_url, &self.google.google_authorize_url);
        override_url(&mut google.token_url, &self.google.google_token_url);
        override_url(&mut google.userinfo_url, &self.google.google_userinfo_url);
        let mut config = plinth_auth::AuthConfig {
            site_url: self
                .site_url
                .clone()
                .unwrap_or_else(|| public_url.to_owned()),
            api_external_url,
            jwt_expiry: self.jwt_expiry,
            password_min_length: self.password_min_length,
            mailer_autoconfirm: self.enable_email_autoconfirm,
            disable_signup: self.disable_signup,
            email_enabled: self.enable_email_signup,
            anonymous_users: self.enable_anonymous_users,
            uri_allow_list: self
                .additional_redirect_urls
                .iter()
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .collect(),
            smtp: self.smtp_host().map(|host| plinth_auth::SmtpConfig {
                host: host.to_owned(),
                port: self.smtp_port,
                user: self.smtp_user.clone().filter(|u| !u.trim().is_empty()),
                pass: self.smtp_pass.as_ref().map(|s| s.expose().to_owned()),
                sender_email: self.smtp_admin_email.clone(),
                sender_name: self.smtp_sender_name.clone(),
            }),
            otp_expiry: self.mailer_otp_exp,
            rate_limits: plinth_auth::RateLimits {
                sign_in_sign_ups: self.rate_limit_sign_in_sign_ups,
                token_refresh: self.rate_limit_token_refresh,
                verify: self.rate_limit_verify,
                per_email: self.rate_limit_emails_per_address,
                email_sent: self.rate_limit_email_sent,
                sms_sent: self.rate_limit_sms_sent,
                recover: self.rate_limit_otp,
                anonymous_users: self.rate_limit_anonymous_users,
                header: self
                    .rate_limit_header
                    .clone()
                    .filter(|h| !h.trim().is_empty()),
                sign_in_failures_per_account_ip: self.rate_limit_sign_in_failures,
                sign_in_backoff_after: self.sign_in_backoff_after,
                verify_failures_per_account: self.rate_limit_verify_failures,
                email_max_frequency: self.smtp_max_frequency,
                ..defaults.rate_limits.clone()
            },
            github,
            google,
            sms: self.phone.sms_config(),
            mfa: self.mfa.to_config(),
            passkeys: plinth_auth::PasskeyConfig {
                enabled: self.passkey_enabled,
                max_per_user: self.passkey_max_passkeys_per_user,
                challenge_expiry: self.webauthn_challenge_expiry_duration,
                rate_limit: self.rate_limit_passkey,
            },
            manual_linking_enabled: self.phone.security_manual_linking_enabled,
            update_password_require_reauthentication: self
                .phone
                .security_update_password_require_reauthentication,
            require_apikey: self.auth_require_apikey,
            secure_email_change: self.mailer_secure_email_change_enabled,
            ..defaults
        };
        self.grants.apply(&self.google, &mut config);
        config
    }
}

/// A duration as the platform writes them (`60s`, `1m`, `500ms`, `1h`), or
/// a bare number of seconds.
pub(crate) fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    let text = text.trim();
    let digits = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(digits);
    let number: f64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a duration like 60s, 1m or 500ms"))?;
    let seconds = match unit.trim() {
        "" | "s" => number,
        "ms" => number / 1000.0,
        "m" => number * 60.0,
        "h" => number * 3600.0,
        other => {
            return Err(format!(
                "unknown unit {other:?} in {text:?} (use ms, s, m or h)"
            ));
        }
    };
    std::time::Duration::try_from_secs_f64(seconds).map_err(|e| format!("{text:?}: {e}"))
}

fn override_url(target: &mut String, value: &Option<String>) {
    if let Some(v) = value.as_ref().filter(|v| !v.trim().is_empty()) {
        *target = v.trim().to_owned();
    }
}

/// The REST gateway (`/rest/v1`), with PostgREST's setting names.
#[derive(Debug, Clone, Args)]
pub struct RestArgs {
    /// Schemas served, comma separated; the first is the default profile.
    #[arg(
        long,
        env = "PGRST_DB_SCHEMAS",
        value_delimiter = ',',
        default_value = "public"
    )]
    pub db_schemas: Vec<String>,
    /// The role of requests without a user.
    #[arg(long, env = "PGRST_DB_ANON_ROLE", default_value = "anon")]
    pub db_anon_role: String,
    /// Most rows one read returns (unset: no limit).
    #[arg(long, env = "PGRST_DB_MAX_ROWS")]
    pub db_max_rows: Option<i64>,
    /// Schemas added to the search path of every request.
    #[arg(
        long,
        env = "PGRST_DB_EXTRA_SEARCH_PATH",
        value_delimiter = ',',
        default_value = "public,extensions"
    )]
    pub db_extra_search_path: Vec<String>,
    /// Allow count(), sum(), avg(), min(), max() in select.
    #[arg(long, env = "PGRST_DB_AGGREGATES_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub db_aggregates_enabled: bool,
    /// Allow execution plans (Accept: application/vnd.pgrst.plan+json).
    #[arg(long, env = "PGRST_DB_PLAN_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub db_plan_enabled: bool,
    /// commit, commit-allow-override, rollback or rollback-allow-override.
    #[arg(long, env = "PGRST_DB_TX_END", default_value = "commit")]
    pub db_tx_end: String,
}

impl RestArgs {
    pub fn to_config(&self) -> plinth_rest::RestConfig {
        let clean = |v: &[String]| -> Vec<String> {
            v.iter()
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .collect()
        };
        plinth_rest::RestConfig {
            db_schemas: clean(&self.db_schemas),
            anon_role: self.db_anon_role.clone(),
            max_rows: self.db_max_rows,
            extra_search_path: clean(&self.db_extra_search_path),
            aggregates_enabled: self.db_aggregates_enabled,
            plan_enabled: self.db_plan_enabled,
            tx_end: self.db_tx_end.clone(),
            schema_poll: None,
        }
    }
}

/// Storage (`/storage/v1`), with the self-hosted platform's setting names.
#[derive(Debug, Clone, Args)]
pub struct StorageArgs {
    /// Where bytes live: `file` (a folder) or `s3` (any S3-compatible store).
    #[arg(long, env = "STORAGE_BACKEND", default_value = "file")]
    pub storage_backend: String,
    /// The folder of the `file` backend (default: `<data dir>/storage`).
    #[arg(long, env = "FILE_STORAGE_BACKEND_PATH")]
    pub file_storage_backend_path: Option<std::path::PathBuf>,
    /// The `file` backend's eTags: `md5` (of the bytes) or `mtime` (upload
    /// time and size, no hashing: faster uploads of large files).
    #[arg(long, env = "STORAGE_FILE_ETAG_ALGORITHM", default_value = "md5")]
    pub storage_file_etag_algorithm: plinth_storage::FileEtag,
    /// How long an unfinished resumable (TUS) upload can be continued, in
    /// milliseconds (the platform's default: one hour); then it is swept.
    #[arg(long, env = "TUS_URL_EXPIRY_MS", default_value_t = 3_600_000,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub tus_url_expiry_ms: u64,
    /// Largest upload, in bytes (buckets may set less).
    #[arg(long, env = "FILE_SIZE_LIMIT", default_value_t = 52_428_800)]
    pub file_size_limit: u64,
    /// Public base URL of storage links (default: this server's).
    #[arg(long, env = "STORAGE_PUBLIC_URL")]
    pub storage_public_url: Option<String>,
    /// Serve image transformations at `/render/image/...`.
    #[arg(long, env = "ENABLE_IMAGE_TRANSFORMATION", default_value_t = true, action = clap::ArgAction::Set)]
    pub enable_image_transformation: bool,
    /// Smallest and largest rendition width/height (larger asks are clamped).
    #[arg(long, env = "IMG_LIMITS_MIN_SIZE", default_value_t = 1)]
    pub img_limits_min_size: u32,
    #[arg(long, env = "IMG_LIMITS_MAX_SIZE", default_value_t = 2000)]
    pub img_limits_max_size: u32,
    /// Largest source object that is rendered, in bytes.
    #[arg(long, env = "IMGPROXY_MAX_SRC_FILE_SIZE", default_value_t = 20_000_000)]
    pub imgproxy_max_src_file_size: u64,
    /// Most megapixels a source may have (read before decoding).
    #[arg(long, env = "IMGPROXY_MAX_SRC_RESOLUTION", default_value_t = 16.8)]
    pub imgproxy_max_src_resolution: f64,
    #[arg(long, env = "GLOBAL_S3_BUCKET")]
    pub global_s3_bucket: Option<String>,
    #[arg(long, env = "GLOBAL_S3_ENDPOINT")]
    pub global_s3_endpoint: Option<String>,
    #[arg(long, env = "GLOBAL_S3_FORCE_PATH_STYLE", default_value_t = false, action = clap::ArgAction::Set)]
    pub global_s3_force_path_style: bool,
    #[arg(long, env = "REGION")]
    pub region: Option<String>,
    #[arg(long, env = "AWS_ACCESS_KEY_ID")]
    pub aws_access_key_id: Option<String>,
    #[arg(long, env = "AWS_SECRET_ACCESS_KEY", hide_env_values = true)]
    pub aws_secret_access_key: Option<Secret>,
    /// Megabytes the buffers of uploads being received may take in all;
    /// further uploads wait for a place.
    #[arg(long, env = "PLINTH_STORAGE_UPLOAD_MEMORY_MB", default_value_t = 128)]
    pub storage_upload_memory_mb: usize,
    /// Megabytes of stored image renditions in all; past it the least
    /// recently used go (0: none stored).
    #[arg(
        long,
        env = "PLINTH_STORAGE_RENDITION_CACHE_MB",
        default_value_t = 1024
    )]
    pub storage_rendition_cache_mb: u64,
    /// Renditions stored per object version; more distinct asks are
    /// rendered and sent, not stored.
    #[arg(
        long,
        env = "PLINTH_STORAGE_RENDITIONS_PER_OBJECT",
        default_value_t = 12
    )]
    pub storage_renditions_per_object: usize,
    /// Renditions rendered (cache misses) per client address per minute
    /// (that many at once, then one a second; 429 past it); 0: no limit.
    #[arg(long, env = "PLINTH_STORAGE_RENDERS_PER_MINUTE", default_value_t = 60)]
    pub storage_renders_per_minute: u32,
}

impl StorageArgs {
    pub fn to_config(
        &self,
        data_dir: &std::path::Path,
    ) -> anyhow::Result<plinth_storage::StorageConfig> {
        let backend = match self.storage_backend.as_str() {
            "file" => plinth_storage::Backend::FileSystem {
                root: self
                    .file_storage_backend_path
                    .clone()
                    .unwrap_or_else(|| data_dir.join("storage")),
            },
            "s3" => plinth_storage::Backend::S3(plinth_storage::S3Config {
                bucket: self
                    .global_s3_bucket
                    .clone()
                    .ok_or_else(|| anyhow::anyhow!("STORAGE_BACKEND=s3 needs GLOBAL_S3_BUCKET"))?,
                endpoint: self.global_s3_endpoint.clone(),
                region: self.region.clone(),
                access_key_id: self.aws_access_key_id.clone(),
                secret_access_key: self
                    .aws_secret_access_key
                    .as_ref()
                    .map(|s| s.expose().to_owned()),
                force_path_style: self.global_s3_force_path_style,
                prefix: None,
            }),
            other => anyhow::bail!("STORAGE_BACKEND must be file or s3, not {other:?}"),
        };
        Ok(plinth_storage::StorageConfig {
            backend,
            file_size_limit: self.file_size_limit,
            public_url: self.storage_public_url.clone(),
            file_etag: self.storage_file_etag_algorithm,
            upload_memory: self.storage_upload_memory_mb.saturating_mul(1024 * 1024),
            tus_url_expiry: std::time::Duration::from_millis(self.tus_url_expiry_ms),
            image_transformation_enabled: self.enable_image_transformation,
            image_min_size: self.img_limits_min_size,
            image_max_size: self.img_limits_max_size,
            image_max_source_bytes: self.imgproxy_max_src_file_size,
            image_max_source_pixels: (self.imgproxy_max_src_resolution.max(0.0) * 1e6) as u64,
            rendition_cache_bytes: self.storage_rendition_cache_mb.saturating_mul(1024 * 1024),
            renditions_per_object: self.storage_renditions_per_object,
            renders_per_minute: self.storage_renders_per_minute,
            ..Default::default()
        })
    }
}

/// Realtime (`/realtime/v1`): limits of one node.
#[derive(Debug, Clone, Args)]
pub struct RealtimeArgs {
    /// Most websocket connections one node accepts.
    #[arg(long, env = "REALTIME_MAX_CONNECTIONS", default_value_t = 10_000)]
    pub realtime_max_connections: usize,
    /// Most websocket connections from one client address (the peer, or the
    /// first X-Forwarded-For entry with PLINTH_TRUST_PROXY_HEADERS).
    #[arg(long, env = "REALTIME_MAX_CONNECTIONS_PER_IP", default_value_t = 200)]
    pub realtime_max_connections_per_ip: usize,
    /// Most websocket connections of one signed-in user, from any address.
    #[arg(long, env = "REALTIME_MAX_CONNECTIONS_PER_USER", default_value_t = 50)]
    pub realtime_max_connections_per_user: usize,
    /// Most channels one connection may join (the platform's name,
    /// TENANT_MAX_CHANNELS_PER_CLIENT, is read too).
    #[arg(
        long,
        env = "REALTIME_MAX_CHANNELS_PER_CONNECTION",
        default_value_t = 100
    )]
    pub realtime_max_channels_per_connection: usize,
    #[arg(long, env = "TENANT_MAX_CHANNELS_PER_CLIENT", hide = true)]
    pub tenant_max_channels_per_client: Option<usize>,
    /// Largest broadcast or presence message, in bytes (the platform's
    /// max_payload_size_in_kb): a larger one is refused as the platform
    /// refuses it, and the socket stays open.
    #[arg(long, env = "REALTIME_MAX_MESSAGE_SIZE", default_value_t = 262_144)]
    pub realtime_max_message_size: usize,
    /// Largest websocket message read at all, in bytes; a larger one closes
    /// the socket (1009).
    #[arg(long, env = "REALTIME_MAX_FRAME_SIZE", default_value_t = 524_288)]
    pub realtime_max_frame_size: usize,
    /// Most events a connection may send per second (the platform's name,
    /// TENANT_MAX_EVENTS_PER_SECOND, is read too).
    #[arg(long, env = "REALTIME_MAX_EVENTS_PER_SECOND", default_value_t = 100)]
    pub realtime_max_events_per_second: u32,
    #[arg(long, env = "TENANT_MAX_EVENTS_PER_SECOND", hide = true)]
    pub tenant_max_events_per_second: Option<u32>,
    /// Most channel joins a connection may make per second; past it the
    /// socket is closed (the platform's name, TENANT_MAX_JOINS_PER_SECOND,
    /// is read too).
    #[arg(long, env = "REALTIME_MAX_JOINS_PER_SECOND", default_value_t = 100)]
    pub realtime_max_joins_per_second: u32,
    #[arg(long, env = "TENANT_MAX_JOINS_PER_SECOND", hide = true)]
    pub tenant_max_joins_per_second: Option<u32>,
    /// Most presence tracks and untracks a connection may make per second;
    /// past it the channel is closed.
    #[arg(
        long,
        env = "REALTIME_MAX_PRESENCE_EVENTS_PER_SECOND",
        default_value_t = 10
    )]
    pub realtime_max_presence_events_per_second: u32,
    /// Most presence members (keys) of one channel topic, across nodes.
    #[arg(long, env = "REALTIME_MAX_PRESENCE_MEMBERS", default_value_t = 1000)]
    pub realtime_max_presence_members: usize,
    /// Only private channels may be joined (the platform's "allow public
    /// access" off): their rights come from the policies on
    /// `realtime.messages`.
    #[arg(long, env = "REALTIME_PRIVATE_ONLY", default_value_t = false, action = clap::ArgAction::Set)]
    pub realtime_private_only: bool,
}

impl RealtimeArgs {
    pub fn to_config(&self) -> plinth_realtime::RealtimeConfig {
        plinth_realtime::RealtimeConfig {
            max_connections: self.realtime_max_connections,
            max_connections_per_ip: self.realtime_max_connections_per_ip,
            max_connections_per_user: self.realtime_max_connections_per_user,
            max_channels_per_connection: self
                .tenant_max_channels_per_client
                .unwrap_or(self.realtime_max_channels_per_connection),
            max_message_size: self.realtime_max_message_size,
            max_frame_size: self.realtime_max_frame_size,
            max_events_per_second: self
                .tenant_max_events_per_second
                .unwrap_or(self.realtime_max_events_per_second),
            max_joins_per_second: self
                .tenant_max_joins_per_second
                .unwrap_or(self.realtime_max_joins_per_second),
            max_presence_events_per_second: self.realtime_max_presence_events_per_second,
            max_presence_members: self.realtime_max_presence_members,
            private_only: self.realtime_private_only,
            ..Default::default()
        }
    }
}

/// The marketplace's functions and payments (`/functions/v1`, `/api`).
#[derive(Debug, Clone, Args)]
pub struct FunctionsArgs {
    /// Stripe secret key; unset: the simulated payment provider (no network needed).
    #[arg(long, env = "STRIPE_SECRET_KEY", hide_env_values = true)]
    pub stripe_secret_key: Option<Secret>,
    /// Stripe publishable key (`pk_…`), given to the app's checkout form.
    #[arg(long, env = "STRIPE_PUBLISHABLE_KEY")]
    pub stripe_publishable_key: Option<String>,
    /// Stripe API base URL (a test double's, in tests).
    #[arg(long, env = "STRIPE_API_BASE")]
    pub stripe_api_base: Option<String>,
    /// Signing secret of the Stripe webhook (`whsec_…`); unset: the webhook answers 503.
    #[arg(long, env = "STRIPE_WEBHOOK_SECRET", hide_env_values = true)]
    pub stripe_webhook_secret: Option<Secret>,
    /// The platform's fee on paid templates, in basis points (1000 = 10 %).
    #[arg(long, env = "PLATFORM_FEE_BPS", default_value_t = 1000)]
    pub platform_fee_bps: u32,
    /// Currency of prices.
    #[arg(long, env = "PAYMENT_CURRENCY", default_value = "usd")]
    pub payment_currency: String,
    /// Where the payment provider sends creators back after onboarding.
    #[arg(long, env = "STRIPE_CONNECT_RETURN_URL")]
    pub stripe_connect_return_url: Option<String>,
    #[arg(long, env = "STRIPE_CONNECT_REFRESH_URL")]
    pub stripe_connect_refresh_url: Option<String>,
    /// A visitor's views of one template count once per this many seconds.
    #[arg(long, env = "VIEW_DEDUP_WINDOW_SECS", default_value_t = 1800)]
    pub view_dedup_window_secs: u64,
    /// Lifetime of download links, in seconds.
    #[arg(long, env = "DOWNLOAD_URL_EXPIRY_SECS", default_value_t = 600)]
    pub download_url_expiry_secs: u64,
    /// The period (seconds) the functions' limits below count in; a budget
    /// of n refills one call every window/n.
    #[arg(
        long,
        env = "PLINTH_FUNCTIONS_RATE_LIMIT_WINDOW_SECS",
        default_value_t = 3600
    )]
    pub functions_rate_limit_window_secs: u64,
    /// create-free-order calls per client address per window (0: no limit).
    #[arg(
        long,
        env = "PLINTH_FUNCTIONS_RATE_LIMIT_FREE_ORDERS",
        default_value_t = 30
    )]
    pub functions_rate_limit_free_orders: u32,
    /// track-template-view calls per client address per window (0: no limit).
    #[arg(long, env = "PLINTH_FUNCTIONS_RATE_LIMIT_VIEWS", default_value_t = 600)]
    pub functions_rate_limit_views: u32,
    /// subscribe-to-newsletter calls per client address per window (0: no limit).
    #[arg(
        long,
        env = "PLINTH_FUNCTIONS_RATE_LIMIT_NEWSLETTER",
        default_value_t = 20
    )]
    pub functions_rate_limit_newsletter: u32,
    /// Free-download e-mails per recipient address per window, across
    /// templates (0: no limit); one per address and template per window.
    #[arg(
        long,
        env = "PLINTH_FUNCTIONS_RATE_LIMIT_EMAILS_PER_ADDRESS",
        default_value_t = 10
    )]
    pub functions_rate_limit_emails_per_address: u32,
}

impl FunctionsArgs {
    pub fn to_config(
        &self,
        site_url: &str,
        api_external_url: &str,
    ) -> plinth_marketplace::FunctionsConfig {
        plinth_marketplace::FunctionsConfig {
            stripe_secret_key: self
                .stripe_secret_key
                .as_ref()
                .map(|s| s.expose().to_owned()),
            stripe_api_base: self.stripe_api_base.clone(),
            stripe_webhook_secret: self
                .stripe_webhook_secret
                .as_ref()
                .map(|s| s.expose().to_owned()),
            platform_fee_bps: self.platform_fee_bps,
            currency: self.payment_currency.clone(),
            site_url: site_url.to_owned(),
            api_external_url: api_external_url.to_owned(),
            connect_return_url: self.stripe_connect_return_url.clone(),
            connect_refresh_url: self.stripe_connect_refresh_url.clone(),
            view_window: std::time::Duration::from_secs(self.view_dedup_window_secs),
            download_url_expiry: std::time::Duration::from_secs(self.download_url_expiry_secs),
            rate_limits: plinth_marketplace::RateLimits {
                window: std::time::Duration::from_secs(self.functions_rate_limit_window_secs),
                free_orders: self.functions_rate_limit_free_orders,
                views: self.functions_rate_limit_views,
                newsletter: self.functions_rate_limit_newsletter,
                emails_per_address: self.functions_rate_limit_emails_per_address,
            },
        }
    }
}

#[cfg(test)]
mod auth_args_tests {
    use super::parse_duration;
    use std::time::Duration;

    #[test]
    fn durations_read_as_the_platform_writes_them() {
        assert_eq!(parse_duration("60s"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_duration("1m"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2h"), Ok(Duration::from_secs(7200)));
        assert_eq!(parse_duration("0"), Ok(Duration::ZERO));
        assert_eq!(parse_duration(" 90 "), Ok(Duration::from_secs(90)));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("5d").is_err());
        assert!(parse_duration("-1s").is_err());
    }
}

#[cfg(test)]
mod phone_tests {
    use clap::Parser;

    use crate::config::{Cli, Command};

    fn auth_config(args: &[&str]) -> plinth_auth::AuthConfig {
        let mut argv = vec!["plinth", "serve"];
        argv.extend_from_slice(args);
        let Command::Serve(serve) = Cli::try_parse_from(argv).unwrap().command else {
            panic!("not serve")
        };
        serve.auth.to_config("http://localhost:8000")
    }

    #[test]
    fn phone_settings_reach_the_auth_config() {
        let config = auth_config(&[
            "--external-phone-enabled",
            "true",
            "--sms-provider",
            "twilio",
            "--sms-twilio-account-sid",
            "AC1",
            "--sms-twilio-auth-token",
            "tok",
            "--sms-twilio-message-service-sid",
            "MG1",
            "--sms-test-otp",
            "+15550001111=123456",
            "--sms-otp-length",
            "8",
            "--sms-max-frequency",
            "30s",
            "--security-manual-linking-enabled",
            "true",
            "--security-update-password-require-reauthentication",
            "true",
        ]);
        assert!(config.sms.phone_enabled);
        assert_eq!(config.sms.provider, Some(plinth_auth::SmsProvider::Twilio));
        assert_eq!(config.sms.twilio.account_sid, "AC1");
        assert_eq!(config.sms.twilio.auth_token, "tok");
        assert_eq!(config.sms.twilio.api_base, "https://api.twilio.com");
        assert_eq!(config.sms.test_otp["15550001111"], "123456");
        assert_eq!(config.sms.otp_length, 8);
        assert_eq!(config.sms.max_frequency.as_secs(), 30);
        assert_eq!(config.sms.template, "Your code is {{ .Code }}");
        assert!(config.manual_linking_enabled);
        assert!(config.update_password_require_reauthentication);

        let defaults = auth_config(&[]);
        assert!(!defaults.sms.phone_enabled);
        assert_eq!(defaults.sms.provider, None);
        assert_eq!(defaults.sms.otp_exp, 60);
        assert!(!defaults.manual_linking_enabled);

        let bad = |args: &[&str]| {
            let mut argv = vec!["plinth", "serve"];
            argv.extend_from_slice(args);
            Cli::try_parse_from(argv).is_err()
        };
        assert!(bad(&["--sms-provider", "pigeon"]));
        assert!(bad(&["--sms-otp-length", "4"]));
        assert!(bad(&["--sms-test-otp", "nonsense"]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        storage: StorageArgs,
    }

    fn storage(args: &[&str]) -> Result<plinth_storage::StorageConfig, String> {
        let cli = Cli::try_parse_from(std::iter::once("plinth").chain(args.iter().copied()))
            .map_err(|e| e.to_string())?;
        cli.storage
            .to_config(std::path::Path::new("/tmp/data"))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn storage_settings_take_the_platforms_names_defaults_and_limits() {
        let config = storage(&[]).unwrap();
        assert_eq!(config.tus_url_expiry.as_secs(), 3600);
        assert_eq!(config.file_etag, plinth_storage::FileEtag::Md5);
        let config = storage(&[
            "--tus-url-expiry-ms",
            "90000",
            "--storage-file-etag-algorithm",
            "mtime",
        ])
        .unwrap();
        assert_eq!(config.tus_url_expiry.as_millis(), 90_000);
        assert_eq!(config.file_etag, plinth_storage::FileEtag::Mtime);
        for bad in [
            ["--tus-url-expiry-ms", "0"],
            ["--tus-url-expiry-ms", "soon"],
            ["--storage-file-etag-algorithm", "sha1"],
        ] {
            let error = storage(&bad).unwrap_err();
            assert!(error.contains(bad[1]), "{error}");
        }
    }
}

/// The function host: the project's own TypeScript functions in Deno
/// workers (`/functions/v1/{name}`).
#[derive(Debug, Args)]
pub struct FunctionHostArgs {
    /// Folder of the project's own functions: `<name>/index.ts` each (the
    /// platform's layout), and an optional `config.toml` with
    /// `[functions.<name>]` settings.
    #[arg(long, env = "PLINTH_FUNCTIONS_DIR", default_value = "functions")]
    pub functions_dir: std::path::PathBuf,

    /// The Deno binary that runs them (else `deno` on PATH; `scripts/serve`
    /// installs one from the npm registry).
    #[arg(long, env = "PLINTH_DENO_BIN")]
    pub deno_bin: Option<std::path::PathBuf>,

    /// A worker's memory limit (its V8 heap and resident set), in MB.
    #[arg(long, env = "PLINTH_FUNCTIONS_MEMORY_MB", default_value_t = 256,
          value_parser = clap::value_parser!(u64).range(32..))]
    pub functions_memory_mb: u64,

    /// A request's wall-clock limit, in seconds (546 past it).
    #[arg(long, env = "PLINTH_FUNCTIONS_WALL_CLOCK_SECS", default_value_t = 150,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub functions_wall_clock_secs: u64,

    /// A worker's soft CPU-time limit, in ms (from when it was ready, all
    /// its threads): past it, the worker takes no new request and stops once
    /// those it has are answered. 0: none.
    #[arg(
        long,
        env = "PLINTH_FUNCTIONS_CPU_SOFT_LIMIT_MS",
        default_value_t = 2000
    )]
    pub functions_cpu_soft_limit_ms: u64,

    /// A worker's hard CPU-time limit, in ms, counted as the soft one: past
    /// it, the worker is stopped and its requests answered 546. At least the
    /// soft limit; 0: none.
    #[arg(
        long,
        env = "PLINTH_FUNCTIONS_CPU_HARD_LIMIT_MS",
        default_value_t = 4000
    )]
    pub functions_cpu_hard_limit_ms: u64,

    /// Warm workers per function, at most.
    #[arg(long, env = "PLINTH_FUNCTIONS_MAX_WORKERS", default_value_t = 2,
          value_parser = clap::value_parser!(u64).range(1..=64))]
    pub functions_max_workers: u64,

    /// Requests one worker serves at once.
    #[arg(long, env = "PLINTH_FUNCTIONS_WORKER_CONCURRENCY", default_value_t = 64,
          value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub functions_worker_concurrency: u64,

    /// How long a request waits for a busy function's worker before a 503,
    /// in seconds.
    #[arg(long, env = "PLINTH_FUNCTIONS_QUEUE_SECS", default_value_t = 5)]
    pub functions_queue_secs: u64,

    /// A worker idle this long (seconds) is stopped.
    #[arg(long, env = "PLINTH_FUNCTIONS_IDLE_SECS", default_value_t = 60)]
    pub functions_idle_secs: u64,

    /// How long a worker may take to start, in seconds (its first start may
    /// fetch `npm:` packages).
    #[arg(long, env = "PLINTH_FUNCTIONS_BOOT_SECS", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub functions_boot_secs: u64,

    /// Serve a changed function's new code from its next request (`plinth
    /// functions serve` turns it on).
    #[arg(long, env = "PLINTH_FUNCTIONS_WATCH", default_value_t = false, action = clap::ArgAction::Set)]
    pub functions_watch: bool,
}

impl FunctionHostArgs {
    /// The host's limits; refused when the hard CPU limit is below the soft
    /// one (both set).
    pub fn limits(&self) -> anyhow::Result<plinth_functions::Limits> {
        use std::time::Duration;
        let count = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        let cpu = |ms: u64| (ms > 0).then(|| Duration::from_millis(ms));
        let (soft, hard) = (
            self.functions_cpu_soft_limit_ms,
            self.functions_cpu_hard_limit_ms,
        );
        if soft > 0 && hard > 0 && hard < soft {
            anyhow::bail!(
                "PLINTH_FUNCTIONS_CPU_HARD_LIMIT_MS ({hard}) must be at least \
                 PLINTH_FUNCTIONS_CPU_SOFT_LIMIT_MS ({soft}), or 0 for no hard limit"
            );
        }
        Ok(plinth_functions::Limits {
            memory_mb: self.functions_memory_mb,
            wall_clock: Duration::from_secs(self.functions_wall_clock_secs),
            cpu_soft_limit: cpu(soft),
            cpu_hard_limit: cpu(hard),
            max_workers: count(self.functions_max_workers),
            worker_concurrency: count(self.functions_worker_concurrency),
            queue_wait: Duration::from_secs(self.functions_queue_secs),
            idle: Duration::from_secs(self.functions_idle_secs),
            boot: Duration::from_secs(self.functions_boot_secs),
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod function_host_tests {
    use super::FunctionHostArgs;
    use clap::Parser;
    use std::time::Duration;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        host: FunctionHostArgs,
    }

    fn limits(args: &[&str]) -> Result<plinth_functions::Limits, String> {
        let cli = Cli::try_parse_from(std::iter::once("plinth").chain(args.iter().copied()))
            .map_err(|e| e.to_string())?;
        cli.host.limits().map_err(|e| e.to_string())
    }

    #[test]
    fn the_cpu_limits_default_to_2_and_4_s_and_0_turns_one_off() {
        let defaults = limits(&[]).unwrap();
        assert_eq!(defaults.cpu_soft_limit, Some(Duration::from_millis(2000)));
        assert_eq!(defaults.cpu_hard_limit, Some(Duration::from_millis(4000)));
        let off = limits(&["--functions-cpu-soft-limit-ms", "0"]).unwrap();
        assert_eq!(off.cpu_soft_limit, None);
        let error = limits(&["--functions-cpu-hard-limit-ms", "1000"]).unwrap_err();
        assert!(error.contains("must be at least"), "{error}");
        let only_soft = limits(&["--functions-cpu-hard-limit-ms", "0"]).unwrap();
        assert_eq!(only_soft.cpu_hard_limit, None);
    }
}
