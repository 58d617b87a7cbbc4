//! The auth service's id_token and web3 grants and its OAuth 2.1 server as
//! flags and environment variables (GoTrue's names where GoTrue has them),
//! turned into the parts of [`plinth_auth::AuthConfig`] they set.

use clap::Args;

use crate::services::GoogleArgs;

/// `POST /token?grant_type=id_token|web3` and `/oauth/*`.
#[derive(Debug, Clone, Args)]
pub struct GrantsArgs {
    /// The issuer Google ID tokens must name (a stand-in issuer in tests).
    #[arg(long, env = "GOOGLE_ID_TOKEN_ISSUER")]
    pub google_id_token_issuer: Option<String>,
    /// Where Google's signing keys are read (a JWKS document).
    #[arg(long, env = "GOOGLE_JWKS_URL")]
    pub google_jwks_url: Option<String>,
    /// Sign-in with Apple ID tokens is offered.
    #[arg(long, env = "GOTRUE_EXTERNAL_APPLE_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub apple_enabled: bool,
    /// The Apple client ids (services ids) ID tokens may be for, comma separated.
    #[arg(long, env = "GOTRUE_EXTERNAL_APPLE_CLIENT_ID", value_delimiter = ',')]
    pub apple_client_id: Vec<String>,
    /// An iOS app's bundle id, also accepted as an Apple ID token's audience.
    #[arg(long, env = "GOTRUE_EXTERNAL_IOS_BUNDLE_ID")]
    pub ios_bundle_id: Option<String>,
    /// The issuer Apple ID tokens must name (a stand-in issuer in tests).
    #[arg(long, env = "APPLE_ID_TOKEN_ISSUER")]
    pub apple_id_token_issuer: Option<String>,
    /// Where Apple's signing keys are read (a JWKS document).
    #[arg(long, env = "APPLE_JWKS_URL")]
    pub apple_jwks_url: Option<String>,

    /// Sign-In with Ethereum (`grant_type=web3`, chain `ethereum`).
    #[arg(long, env = "GOTRUE_EXTERNAL_WEB3_ETHEREUM_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub web3_ethereum_enabled: bool,
    /// How far an Ethereum message's Issued At may lie from now (e.g. 10m).
    #[arg(long, env = "GOTRUE_EXTERNAL_WEB3_ETHEREUM_MAXIMUM_VALIDITY_DURATION", default_value = "10m", value_parser = crate::services::parse_duration)]
    pub web3_ethereum_maximum_validity_duration: std::time::Duration,
    /// Sign-In with Solana (`grant_type=web3`, chain `solana`).
    #[arg(long, env = "GOTRUE_EXTERNAL_WEB3_SOLANA_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub web3_solana_enabled: bool,
    /// How far a Solana message's Issued At may lie from now (e.g. 10m).
    #[arg(long, env = "GOTRUE_EXTERNAL_WEB3_SOLANA_MAXIMUM_VALIDITY_DURATION", default_value = "10m", value_parser = crate::services::parse_duration)]
    pub web3_solana_maximum_validity_duration: std::time::Duration,

    /// The OAuth 2.1 server: this project as an OAuth provider for other apps.
    #[arg(long, env = "GOTRUE_OAUTH_SERVER_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub oauth_server_enabled: bool,
    /// The app's consent page under SITE_URL; it gets `?authorization_id=`.
    #[arg(
        long,
        env = "GOTRUE_OAUTH_SERVER_AUTHORIZATION_PATH",
        default_value = ""
    )]
    pub oauth_server_authorization_path: String,
    /// How long an authorization request and its code are good (e.g. 10m).
    #[arg(long, env = "GOTRUE_OAUTH_SERVER_AUTHORIZATION_TTL", default_value = "10m", value_parser = crate::services::parse_duration)]
    pub oauth_server_authorization_ttl: std::time::Duration,
    /// The scope of a request that names none.
    #[arg(
        long,
        env = "GOTRUE_OAUTH_SERVER_DEFAULT_SCOPE",
        default_value = "email"
    )]
    pub oauth_server_default_scope: String,
    /// Anyone may register a client at /oauth/clients/register.
    #[arg(long, env = "GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION", default_value_t = false, action = clap::ArgAction::Set)]
    pub oauth_server_allow_dynamic_registration: bool,
}

fn set(target: &mut String, value: &Option<String>) {
    if let Some(v) = value.as_ref().map(|v| v.trim()).filter(|v| !v.is_empty()) {
        *target = v.to_owned();
    }
}

fn ids(list: &[String]) -> Vec<String> {
    list.iter()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

impl GrantsArgs {
    /// Sets the grants' and the OAuth server's parts of `config`; Google's ID
    /// tokens are on with Google sign-in, for its client ids (comma separated).
    pub fn apply(&self, google: &GoogleArgs, config: &mut plinth_auth::AuthConfig) {
        let mut google_tokens = plinth_auth::IdTokenProvider::google();
        google_tokens.enabled = google.google_enabled;
        google_tokens.client_ids = google
            .google_client_id
            .as_deref()
            .map(|ids| ids.split(',').map(str::trim).map(str::to_owned).collect())
            .unwrap_or_default();
        set(&mut google_tokens.issuer, &self.google_id_token_issuer);
        set(&mut google_tokens.jwks_url, &self.google_jwks_url);
        let mut apple = plinth_auth::IdTokenProvider::apple();
        apple.enabled = self.apple_enabled;
        apple.client_ids = ids(&self.apple_client_id);
        if let Some(bundle) = self.ios_bundle_id.as_ref().filter(|b| !b.trim().is_empty()) {
            apple.client_ids.push(bundle.trim().to_owned());
        }
        set(&mut apple.issuer, &self.apple_id_token_issuer);
        set(&mut apple.jwks_url, &self.apple_jwks_url);
        config.id_token_google = google_tokens;
        config.id_token_apple = apple;
        config.web3 = plinth_auth::Web3Config {
            ethereum_enabled: self.web3_ethereum_enabled,
            solana_enabled: self.web3_solana_enabled,
            ethereum_max_validity: self.web3_ethereum_maximum_validity_duration,
            solana_max_validity: self.web3_solana_maximum_validity_duration,
        };
        config.oauth_server = plinth_auth::OAuthServerConfig {
            enabled: self.oauth_server_enabled,
            authorization_path: self.oauth_server_authorization_path.trim().to_owned(),
            authorization_ttl: self.oauth_server_authorization_ttl,
            default_scope: self.oauth_server_default_scope.trim().to_owned(),
            allow_dynamic_registration: self.oauth_server_allow_dynamic_registration,
        };
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use crate::config::{Cli, Command};

    fn auth_config(args: &[&str]) -> plinth_auth::AuthConfig {
        let mut argv = vec!["plinth", "serve"];
        argv.extend_from_slice(args);
        let Ok(cli) = Cli::try_parse_from(argv) else {
            panic!("the arguments parse")
        };
        let Command::Serve(serve) = cli.command else {
            panic!("not serve")
        };
        serve.auth.to_config("http://localhost:8000")
    }

    #[test]
    fn defaults_leave_everything_off() {
        let config = auth_config(&[]);
        assert!(!config.id_token_google.enabled);
        assert_eq!(config.id_token_google.issuer, "https://accounts.google.com");
        assert!(!config.id_token_apple.enabled);
        assert!(!config.web3.ethereum_enabled && !config.web3.solana_enabled);
        assert_eq!(config.web3.ethereum_max_validity.as_secs(), 600);
        assert!(!config.oauth_server.enabled);
        assert_eq!(config.oauth_server.default_scope, "email");
    }

    #[test]
    fn grant_and_oauth_server_settings_reach_the_auth_config() {
        let config = auth_config(&[
            "--google-enabled",
            "true",
            "--google-client-id",
            "web-id, ios-id",
            "--google-jwks-url",
            "http://127.0.0.1:9/jwks",
            "--apple-enabled",
            "true",
            "--apple-client-id",
            "com.example.web",
            "--ios-bundle-id",
            "com.example.app",
            "--web3-ethereum-enabled",
            "true",
            "--web3-solana-maximum-validity-duration",
            "2m",
            "--oauth-server-enabled",
            "true",
            "--oauth-server-authorization-path",
            "/oauth/consent",
            "--oauth-server-authorization-ttl",
            "5m",
        ]);
        assert!(config.id_token_google.enabled);
        assert_eq!(config.id_token_google.client_ids, vec!["web-id", "ios-id"]);
        assert_eq!(config.id_token_google.jwks_url, "http://127.0.0.1:9/jwks");
        assert!(config.id_token_apple.enabled);
        assert_eq!(
            config.id_token_apple.client_ids,
            vec!["com.example.web", "com.example.app"]
        );
        assert!(config.web3.ethereum_enabled);
        assert!(!config.web3.solana_enabled);
        assert_eq!(config.web3.solana_max_validity.as_secs(), 120);
        assert!(config.oauth_server.enabled);
        assert_eq!(config.oauth_server.authorization_path, "/oauth/consent");
        assert_eq!(config.oauth_server.authorization_ttl.as_secs(), 300);
    }
}
