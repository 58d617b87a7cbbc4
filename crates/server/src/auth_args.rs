//! Auth's settings (`/auth/v1`) as flags and environment variables, with
//! the self-hosted platform's names, turned into `plinth_auth::AuthConfig`.

use clap::Args;

use crate::config::Secret;
use crate::services::parse_duration;

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

fn override_url(target: &mut String, value: &Option<String>) {
    if let Some(v) = value.as_ref().filter(|v| !v.trim().is_empty()) {
        *target = v.trim().to_owned();
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
