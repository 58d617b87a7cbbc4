//! The auth service's MFA settings as flags and environment variables
//! (GoTrue's `GOTRUE_MFA_*` names), turned into [`plinth_auth::MfaConfig`].

use clap::Args;

/// Multi-factor authentication (`/auth/v1/factors`).
#[derive(Debug, Clone, Args)]
pub struct MfaArgs {
    /// Users may enrol authenticator apps (TOTP).
    #[arg(long, env = "GOTRUE_MFA_TOTP_ENROLL_ENABLED", default_value_t = true, action = clap::ArgAction::Set)]
    pub mfa_totp_enroll_enabled: bool,
    /// TOTP factors may be challenged and verified.
    #[arg(long, env = "GOTRUE_MFA_TOTP_VERIFY_ENABLED", default_value_t = true, action = clap::ArgAction::Set)]
    pub mfa_totp_verify_enabled: bool,
    /// Users may enrol phone factors (codes by SMS).
    #[arg(long, env = "GOTRUE_MFA_PHONE_ENROLL_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub mfa_phone_enroll_enabled: bool,
    /// Phone factors may be challenged and verified.
    #[arg(long, env = "GOTRUE_MFA_PHONE_VERIFY_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub mfa_phone_verify_enabled: bool,
    /// Factors a user may have, verified or not.
    #[arg(long, env = "GOTRUE_MFA_MAX_ENROLLED_FACTORS", default_value_t = 10)]
    pub mfa_max_enrolled_factors: usize,
    /// Verified factors a user may have.
    #[arg(long, env = "GOTRUE_MFA_MAX_VERIFIED_FACTORS", default_value_t = 10)]
    pub mfa_max_verified_factors: usize,
    /// Seconds a challenge may be answered (at least 300).
    #[arg(
        long,
        env = "GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION",
        default_value_t = 300
    )]
    pub mfa_challenge_expiry_duration: u64,
    /// Unverified factors older than this go at the next enrolment (at least 300s).
    #[arg(long, env = "GOTRUE_MFA_FACTOR_EXPIRY_DURATION", default_value = "300s", value_parser = crate::services::parse_duration)]
    pub mfa_factor_expiry_duration: std::time::Duration,
    /// Challenges and verifications per client address per minute.
    #[arg(
        long,
        env = "GOTRUE_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY",
        default_value_t = 15
    )]
    pub mfa_rate_limit_challenge_and_verify: u32,
    /// Digits of a phone factor's code (6 to 10).
    #[arg(long, env = "GOTRUE_MFA_PHONE_OTP_LENGTH", default_value_t = 6)]
    pub mfa_phone_otp_length: usize,
    /// One phone challenge per factor per this long.
    #[arg(long, env = "GOTRUE_MFA_PHONE_MAX_FREQUENCY", default_value = "60s", value_parser = crate::services::parse_duration)]
    pub mfa_phone_max_frequency: std::time::Duration,
    /// The text of a phone challenge; `{{ .Code }}` becomes the code.
    #[arg(
        long,
        env = "GOTRUE_MFA_PHONE_TEMPLATE",
        default_value = "Your code is {{ .Code }}"
    )]
    pub mfa_phone_template: String,
    /// Users may enrol WebAuthn credentials (security keys, passkeys) as factors.
    #[arg(long, env = "GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub mfa_web_authn_enroll_enabled: bool,
    /// WebAuthn factors may be challenged and verified.
    #[arg(long, env = "GOTRUE_MFA_WEB_AUTHN_VERIFY_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub mfa_web_authn_verify_enabled: bool,
    /// The WebAuthn relying party id (the site's domain, e.g. example.com).
    #[arg(long, env = "GOTRUE_WEBAUTHN_RP_ID", default_value = "")]
    pub webauthn_rp_id: String,
    /// The relying party's name shown by authenticators.
    #[arg(long, env = "GOTRUE_WEBAUTHN_RP_DISPLAY_NAME", default_value = "")]
    pub webauthn_rp_display_name: String,
    /// Origins WebAuthn answers may come from, comma separated (e.g. https://example.com).
    #[arg(long, env = "GOTRUE_WEBAUTHN_RP_ORIGINS", value_delimiter = ',')]
    pub webauthn_rp_origins: Vec<String>,
}

impl MfaArgs {
    /// The auth service's MFA config; durations below the platform's
    /// minimum are raised to it, as GoTrue does.
    pub fn to_config(&self) -> plinth_auth::MfaConfig {
        let minimum = std::time::Duration::from_secs(300);
        plinth_auth::MfaConfig {
            totp_enroll_enabled: self.mfa_totp_enroll_enabled,
            totp_verify_enabled: self.mfa_totp_verify_enabled,
            phone_enroll_enabled: self.mfa_phone_enroll_enabled,
            phone_verify_enabled: self.mfa_phone_verify_enabled,
            max_enrolled_factors: self.mfa_max_enrolled_factors,
            max_verified_factors: self.mfa_max_verified_factors,
            challenge_expiry: std::time::Duration::from_secs(self.mfa_challenge_expiry_duration)
                .max(minimum),
            factor_expiry: self.mfa_factor_expiry_duration.max(minimum),
            rate_limit_challenge_and_verify: self.mfa_rate_limit_challenge_and_verify,
            phone_otp_length: if (6..=10).contains(&self.mfa_phone_otp_length) {
                self.mfa_phone_otp_length
            } else {
                6
            },
            phone_max_frequency: if self.mfa_phone_max_frequency.is_zero() {
                std::time::Duration::from_secs(60)
            } else {
                self.mfa_phone_max_frequency
            },
            phone_template: self.mfa_phone_template.clone(),
            webauthn_enroll_enabled: self.mfa_web_authn_enroll_enabled,
            webauthn_verify_enabled: self.mfa_web_authn_verify_enabled,
            webauthn_rp_id: self.webauthn_rp_id.trim().to_owned(),
            webauthn_rp_display_name: self.webauthn_rp_display_name.clone(),
            webauthn_rp_origins: self
                .webauthn_rp_origins
                .iter()
                .map(|o| o.trim().to_owned())
                .filter(|o| !o.is_empty())
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        mfa: MfaArgs,
    }

    #[test]
    fn defaults_are_the_platforms_and_short_expiries_are_raised() {
        let config = Cli::parse_from(["plinth"]).mfa.to_config();
        assert!(config.totp_enroll_enabled && config.totp_verify_enabled);
        assert!(!config.phone_enroll_enabled && !config.phone_verify_enabled);
        assert_eq!(config.max_enrolled_factors, 10);
        assert_eq!(config.challenge_expiry.as_secs(), 300);
        let config = Cli::parse_from([
            "plinth",
            "--mfa-challenge-expiry-duration",
            "10",
            "--mfa-totp-enroll-enabled",
            "false",
            "--mfa-phone-otp-length",
            "3",
            "--webauthn-rp-origins",
            "https://a.test, https://b.test",
        ])
        .mfa
        .to_config();
        assert_eq!(config.challenge_expiry.as_secs(), 300);
        assert!(!config.totp_enroll_enabled);
        assert_eq!(config.phone_otp_length, 6);
        assert_eq!(
            config.webauthn_rp_origins,
            ["https://a.test", "https://b.test"]
        );
        assert!(!config.webauthn_enroll_enabled);
    }
}
