//! Plinth's auth service: the hosted platform's auth server (GoTrue) API,
//! so that the unmodified `@supabase/supabase-js` v2 client works against
//! `/auth/v1`.
//!
//! **What it does.** E-mail/password sign-up and sign-in, sessions with
//! HS256 access tokens and opaque, rotated refresh tokens, e-mail
//! confirmation / recovery / e-mail change links, GitHub and Google OAuth
//! (implicit and PKCE flows), admin endpoints for the service role, rate
//! limits, and a dev mailbox for machines without a mail server.
//!
//! **Invariants.**
//! * The `auth` schema belongs to this crate and is read and written only
//!   through the owner pool (`Database::owner`); the API roles get no
//!   privileges on it. Nothing in `public` is touched at request time.
//! * Table and column names are the platform's, so platform SQL (triggers on
//!   `auth.users`, seeds using `crypt(password, gen_salt('bf'))`) works.
//! * Passwords are stored as argon2id, hashed on the blocking pool; bcrypt
//!   hashes are verified and replaced at the next sign-in. E-mail codes and
//!   links are stored only as SHA-256 hashes.
//! * Every refusal is a stable snake_case code in one of the platform's two
//!   error shapes; internal causes are logged, never sent.
//! * "Now" comes from [`Clock`], so expiry is tested without sleeping.
//!
//! **API surface.** [`migrations`] (set `auth`, applied after
//! `plinth_db::platform_migrations()`), [`AuthConfig`], [`AuthState::new`],
//! [`router`] (nest at `/auth/v1`), [`mailbox_router`] (nest at
//! `/_/mailbox`), [`Mailer`], [`Clock`], [`AuthError`].

#![cfg_attr(test, allow(clippy::unwrap_used))]

mod admin;
mod admin_links;
mod apikey;
mod clock;
mod config;
mod email_address;
mod email_change;
mod error;
mod external;
mod handlers;
mod id_token;
mod identities;
mod mailbox;
mod mailer;
mod mfa;
mod oauth_server;
mod passkeys;
mod password;
mod phone;
mod ratelimit;
mod reauth;
mod redirect;
mod request;
mod sessions;
mod sms;
mod sso;
mod tokens;
mod users;
mod web3;

use std::sync::Arc;

use axum::Router;
use axum::routing::{get, post};
use chrono::{DateTime, Utc};
use plinth_db::{Database, JwtSecret, MigrationSet};

pub use clock::Clock;
pub use config::{
    AuthConfig, HashCost, IdTokenProvider, OAuthServerConfig, ProviderConfig, Rate, RateLimits,
    SmtpConfig, Web3Config,
};
pub use error::{API_VERSION, AuthError};
/// Text escaped for HTML content and quoted attribute values (mails, pages).
pub use mailbox::escape as html_escape;
pub use mailer::{Mail, Mailer, MailerError};
pub use mfa::MfaConfig;
pub use passkeys::PasskeyConfig;
/// The client's address (the peer, or a trusted proxy's `X-Forwarded-For`):
/// one reading of it for every service's per-address limits.
pub use request::client_ip;
pub use sms::{SmsConfig, SmsProvider, TwilioConfig, parse_test_otp};

/// The auth schema: users, identities, sessions, refresh tokens, flow
/// state, one-time tokens, the dev mailbox.
pub fn migrations() -> MigrationSet {
    MigrationSet::embedded("auth", "crates/auth/migrations", MIGRATION_FILES)
        .expect("the embedded auth migrations are well named")
}

const MIGRATION_FILES: &[(&str, &str)] = &[
    (
        "0001_auth_schema.sql",
        include_str!("../migrations/0001_auth_schema.sql"),
    ),
    ("0002_mfa.sql", include_str!("../migrations/0002_mfa.sql")),
    (
        "0004_oauth_server.sql",
        include_str!("../migrations/0004_oauth_server.sql"),
    ),
    (
        "0005_passkeys.sql",
        include_str!("../migrations/0005_passkeys.sql"),
    ),
];

/// Everything a request handler needs; cheap to clone.
#[derive(Clone, Debug)]
pub struct AuthState {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    db: Database,
    jwt: JwtSecret,
    config: AuthConfig,
    mailer: Mailer,
    clock: Clock,
    limits: ratelimit::Limits,
    /// Client for the OAuth providers (no redirects followed).
    http: reqwest::Client,
    /// The secret of the dev mailbox's pages (`None` with SMTP): new at
    /// every start, printed by the server as a `?token=` link.
    mailbox_token: Option<String>,
    /// Sign-in password checks that take as long for any account.
    checker: password::Checker,
    /// The key of e-mail link tokens, derived from the JWT secret.
    email_token_key: [u8; 32],
}

impl AuthState {
    /// The service over `db`, signing with `jwt`. Mail goes to SMTP when
    /// `config.smtp` is set, else to the dev mailbox.
    pub fn new(db: Database, jwt: JwtSecret, config: AuthConfig) -> Result<Self, MailerError> {
        let mailer = Mailer::from_config(config.smtp.as_ref(), db.owner.clone())?;
        Ok(Self::with_parts(db, jwt, config, mailer, Clock::system()))
    }

    /// The service with an explicit mailer and clock (tests).
    pub fn with_parts(
        db: Database,
        jwt: JwtSecret,
        config: AuthConfig,
        mailer: Mailer,
        clock: Clock,
    ) -> Self {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(std::time::Duration::from_secs(15))
            .user_agent("plinth-auth")
            .build()
            .unwrap_or_default();
        let limits = ratelimit::Limits::new(
            &config.rate_limits,
            config.mfa.rate_limit_challenge_and_verify,
            config.passkeys.rate_limit,
        );
        let mailbox_token = mailer.is_dev_mailbox().then(|| plinth_db::random_token(40));
        let checker = password::Checker::new(config.password_hash);
        let email_token_key = jwt.derive_key("plinth-auth/email-link-token");
        Self {
            inner: Arc::new(Inner {
                db,
                jwt,
                config,
                mailer,
                clock,
                limits,
                http,
                mailbox_token,
                checker,
                email_token_key,
            }),
        }
    }

    pub fn db(&self) -> &Database {
        &self.inner.db
    }

    pub fn jwt(&self) -> &JwtSecret {
        &self.inner.jwt
    }

    pub fn config(&self) -> &AuthConfig {
        &self.inner.config
    }

    pub fn mailer(&self) -> &Mailer {
        &self.inner.mailer
    }

    pub fn clock(&self) -> &Clock {
        &self.inner.clock
    }

    /// The dev mailbox's secret, when mail goes to the dev mailbox: its pages
    /// open with `?token=<it>` (or the service-role key). Made anew at every
    /// start; the server prints the link.
    pub fn mailbox_token(&self) -> Option<&str> {
        self.inner.mailbox_token.as_deref()
    }

    pub(crate) fn now(&self) -> DateTime<Utc> {
        self.inner.clock.now()
    }

    pub(crate) fn limits(&self) -> &ratelimit::Limits {
        &self.inner.limits
    }

    /// Each rate limiter's name and what it holds (for `/metrics`).
    pub fn rate_limit_stats(&self) -> Vec<(&'static str, plinth_limits::Stats)> {
        self.inner.limits.stats()
    }

    pub(crate) fn http(&self) -> &reqwest::Client {
        &self.inner.http
    }

    pub(crate) fn checker(&self) -> &password::Checker {
        &self.inner.checker
    }

    pub(crate) fn email_token_key(&self) -> &[u8] {
        &self.inner.email_token_key
    }

    /// `<api_external_url>/auth/v1`.
    pub(crate) fn auth_base(&self) -> String {
        format!(
            "{}/auth/v1",
            self.config().api_external_url.trim_end_matches('/')
        )
    }
}

/// The auth API, to be nested at `/auth/v1`.
pub fn router(state: AuthState) -> Router {
    Router::new()
        .route("/signup", post(handlers::signup))
        .route("/token", post(handlers::token))
        .route("/logout", post(handlers::logout))
        .route("/user", get(handlers::get_user).put(handlers::update_user))
        .route("/user/identities/authorize", get(identities::authorize))
        .route(
            "/user/identities/{identity_id}",
            axum::routing::delete(identities::unlink),
        )
        .route("/reauthenticate", get(reauth::reauthenticate))
        .route("/recover", post(handlers::recover))
        .route("/resend", post(handlers::resend))
        .route("/otp", post(handlers::otp))
        .route(
            "/verify",
            get(handlers::verify_link).post(handlers::verify_post),
        )
        .route("/settings", get(handlers::settings))
        .route("/health", get(handlers::health))
        .route("/.well-known/jwks.json", get(handlers::jwks))
        .route("/authorize", get(external::authorize))
        .route("/callback", get(external::callback))
        .route("/invite", post(admin_links::invite))
        .route("/admin/generate_link", post(admin_links::generate_link))
        .merge(sso::router())
        .route("/admin/users", get(admin::list).post(admin::create))
        .route(
            "/admin/users/{id}",
            get(admin::get).put(admin::update).delete(admin::delete),
        )
        .merge(oauth_server::router())
        .merge(mfa::router())
        .merge(passkeys::router(&state))
        .fallback(handlers::not_found)
        .layer(axum::middleware::from_fn(error::error_shape))
        .layer(axum::extract::DefaultBodyLimit::max(1024 * 1024))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            apikey::gate,
        ))
        .with_state(state)
}

/// The dev mailbox pages, to be nested at `/_/mailbox`: `/` lists messages,
/// `/{id}` shows one with clickable links, `/api/messages?to=<email>` lists
/// them as JSON (for scripted tests). Only when mail goes to the dev mailbox;
/// with SMTP configured every page answers 404. Only for the operator: the
/// [`AuthState::mailbox_token`] (as `?token=`, then a cookie) or the
/// service-role key; anyone else gets 401 / 403.
pub fn mailbox_router(state: AuthState) -> Router {
    mailbox::router(state)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_migration_file_is_embedded() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
        plinth_db::migrate::matches_folder(&migrations(), &dir).unwrap();
        assert_eq!(migrations().name(), "auth");
    }
}
