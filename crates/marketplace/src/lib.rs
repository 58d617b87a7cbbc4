//! Plinth's function host: the handlers behind `/functions/v1/{name}` and
//! the marketplace's `/api/...` routes — orders, payments, secure download
//! links, view counting and the newsletter.
//!
//! Every handler gets the caller's verified claims ([`Caller`]: the
//! `Authorization` bearer token, else `apikey`; a bad token is a 401 before
//! the function runs), a service-role database handle, the mailer of
//! `plinth-auth` and a [`PaymentProvider`]: [`StripeProvider`] (async-stripe,
//! configurable API base) when a Stripe key is configured, else the
//! [`SimulatedProvider`], which needs no network and confirms payments on a
//! local page. Errors are `{"error": "..."}` with a real status, which
//! `supabase.functions.invoke` surfaces as `FunctionsHttpError`.
//!
//! # Invariants
//!
//! * **Amounts come from the database**, never from the client: an order
//!   records the template's `price_in_cents` and that is what is charged.
//! * **Download tokens are random (≈256 bits), shown once, stored as
//!   SHA-256** (`orders.download_token_hash`) and compared in constant time;
//!   a token opens only its own order.
//! * **A paid file is released only once the order is paid** (webhook,
//!   provider check, or simulated confirmation) and only as a signed,
//!   expiring storage URL; paid files live in the private bucket
//!   `template-files`, which no client role can read, list or sign.
//! * **Webhooks are verified** (`Stripe-Signature`, HMAC-SHA256 over
//!   `{t}.{payload}`, 300 s tolerance, constant-time) and idempotent: an
//!   order moves to `paid` once; redeliveries change nothing.
//! * **Views count once per visitor per template per window** (a keyed hash
//!   of the user id, else of the client's address as the server sees it,
//!   which a request cannot choose; never the raw values).
//! * **A free download counts once per e-mail address and template**, and
//!   its link is e-mailed at most once per address and template per window
//!   and to one address at most `emails_per_address` times per window; the
//!   answer is the same whether a mail went out or was not due.
//! * **Anyone's functions have budgets per client address** (free orders,
//!   views, newsletter; [`RateLimits`]): past one, a 429 with `Retry-After`.
//!
//! # API
//!
//! [`FunctionsConfig`], [`FunctionsState::new`] (or
//! [`FunctionsState::with_provider`]), [`migrations`] (the simulated
//! provider's private tables, set `functions`), [`router`] (nested at
//! `/functions/v1`) and [`api_router`] (nested at `/api`); [`wire`] holds the
//! request and response bodies (typeshare: `sdk-ts/src/functions-types.ts`).

#![cfg_attr(test, allow(clippy::unwrap_used))]

mod api;
mod caller;
mod config;
mod error;
mod files;
mod limits;
mod marketplace;
mod orders;
mod pages;
mod params;
mod payouts;
mod provider;
mod sales;
mod secrets;
pub mod wire;

use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use plinth_auth::Mailer;
use plinth_db::{Database, JwtSecret, MigrationSet, RequestContext};
use serde_json::json;
use sqlx::{Postgres, Transaction};

pub use caller::{Caller, ClientAddress};
pub use config::{FunctionsConfig, RateLimits};
pub use error::FunctionError;
pub use files::{FileLocation, PAID_FILES_BUCKET, locate};
pub use pages::{SITE_NAME, pages_router};
pub use payouts::{Money, PayoutStatus, PayoutSummary};
pub use provider::{
    AccountState, CardDecline, Confirmation, CreatedPayment, PaymentProvider, PaymentRequest,
    PaymentState, ProviderError, SimulatedProvider, StripeProvider, test_card,
};
pub use secrets::{SignatureError, sign_webhook, verify_webhook};

/// The function host's own SQL (set `functions`): the simulated payment
/// provider's tables in schema `functions`, reachable by the owner only.
pub fn migrations() -> MigrationSet {
    MigrationSet::embedded(
        "functions",
        "crates/marketplace/migrations",
        &[(
            "0001_simulated_payments.sql",
            include_str!("../migrations/0001_simulated_payments.sql"),
        )],
    )
    .expect("the embedded functions migrations are well named")
}

/// Why the function host could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("the Stripe client cannot be built: {0}")]
    Stripe(String),
}

/// Everything the handlers share; cheap to clone.
#[derive(Clone)]
pub struct FunctionsState {
    inner: Arc<Inner>,
}

struct Inner {
    db: Database,
    jwt: JwtSecret,
    config: FunctionsConfig,
    mailer: Mailer,
    provider: Arc<dyn PaymentProvider>,
    /// Set when `provider` is the simulated one (its confirmation routes).
    simulated: Option<SimulatedProvider>,
    /// Key of the visitor hashes of view tracking, derived from the JWT
    /// secret (the same on every node, never stored).
    view_key: String,
    /// Per-client-address budgets of the functions anyone may call.
    limits: limits::ClientLimits,
}

impl std::fmt::Debug for FunctionsState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FunctionsState")
            .field("config", &self.inner.config)
            .field("provider", &self.inner.provider.name())
            .finish_non_exhaustive()
    }
}

impl FunctionsState {
    /// Stripe when `config.stripe_secret_key` is set (against
    /// `config.stripe_api_base` when given), else the simulated provider.
    pub fn new(
        db: Database,
        jwt: JwtSecret,
        config: FunctionsConfig,
        mailer: Mailer,
    ) -> Result<Self, StartError> {
        match config
            .stripe_secret_key
            .clone()
            .filter(|k| !k.trim().is_empty())
        {
            Some(key) => {
                let stripe = StripeProvider::new(key.trim(), config.stripe_api_base.as_deref())
                    .map_err(|e| StartError::Stripe(e.0))?;
                Ok(Self::build(db, jwt, config, mailer, Arc::new(stripe), None))
            }
            None => {
                let simulated = SimulatedProvider::new(db.owner.clone());
                Ok(Self::build(
                    db,
                    jwt,
                    config,
                    mailer,
                    Arc::new(simulated.clone()),
                    Some(simulated),
                ))
            }
        }
    }

    /// With a provider of the caller's choosing.
    pub fn with_provider(
        db: Database,
        jwt: JwtSecret,
        config: FunctionsConfig,
        mailer: Mailer,
        provider: Arc<dyn PaymentProvider>,
    ) -> Self {
        Self::build(db, jwt, config, mailer, provider, None)
    }

    fn build(
        db: Database,
        jwt: JwtSecret,
        config: FunctionsConfig,
        mailer: Mailer,
        provider: Arc<dyn PaymentProvider>,
        simulated: Option<SimulatedProvider>,
    ) -> Self {
        // HS256 signatures are deterministic: a stable key only this
        // project's secret can produce (the secret's, not the key set's
        // signing key: it stays the same across key rotations).
        let view_key = jwt.sign_with_secret(&json!({ "purpose": "plinth-functions/visitor-hash" }));
        let limits = limits::ClientLimits::new(&config.rate_limits);
        Self {
            inner: Arc::new(Inner {
                db,
                jwt,
                config,
                mailer,
                provider,
                simulated,
                view_key,
                limits,
            }),
        }
    }

    pub fn config(&self) -> &FunctionsConfig {
        &self.inner.config
    }

    /// `stripe` or `simulated`.
    pub fn provider_name(&self) -> &'static str {
        self.inner.provider.name()
    }

    pub(crate) fn jwt(&self) -> &JwtSecret {
        &self.inner.jwt
    }

    pub(crate) fn mailer(&self) -> &Mailer {
        &self.inner.mailer
    }

    pub(crate) fn provider(&self) -> &dyn PaymentProvider {
        self.inner.provider.as_ref()
    }

    pub(crate) fn simulated(&self) -> Option<&SimulatedProvider> {
        self.inner.simulated.as_ref()
    }

    pub(crate) fn view_key(&self) -> &[u8] {
        self.inner.view_key.as_bytes()
    }

    /// Counts a call of `what` against `client`'s budget (a 429 past it).
    pub(crate) fn limit(
        &self,
        what: limits::Limited,
        caller: &Caller,
        client: &ClientAddress,
    ) -> Result<(), FunctionError> {
        self.inner.limits.check(what, caller, client)
    }

    /// Each rate limiter's name and what it holds (for `/metrics`).
    pub fn rate_limit_stats(&self) -> Vec<(&'static str, plinth_limits::Stats)> {
        self.inner.limits.stats()
    }

    /// A transaction as `service_role` (row-level security bypassed): the
    /// functions decide who may do what themselves.
    pub(crate) async fn service_tx(&self) -> Result<Transaction<'static, Postgres>, sqlx::Error> {
        let ctx = RequestContext::new("service_role", json!({ "role": "service_role" }));
        self.inner.db.begin_as(&ctx).await
    }

    /// A transaction as a visitor without a session (`anon`): row-level
    /// security decides, as for the app's own anonymous reads.
    pub(crate) async fn anon_tx(&self) -> Result<Transaction<'static, Postgres>, sqlx::Error> {
        let ctx = RequestContext::new("anon", json!({ "role": "anon" }));
        self.inner.db.begin_as(&ctx).await
    }
}

/// The names [`router`] serves, which the server registers with the
/// function host.
pub const FUNCTION_NAMES: [&str; 5] = [
    "track-template-view",
    "create-free-order",
    "create-payment-intent",
    "validate-download",
    "subscribe-to-newsletter",
];

/// The functions, each at `/{name}`; the server registers this with the
/// function host under [`FUNCTION_NAMES`]. POST only; CORS preflight is the
/// server's.
pub fn router(state: FunctionsState) -> Router {
    use marketplace as m;
    Router::new()
        .route(
            "/track-template-view",
            post(m::track_template_view).fallback(method_not_allowed),
        )
        .route(
            "/create-free-order",
            post(m::create_free_order).fallback(method_not_allowed),
        )
        .route(
            "/create-payment-intent",
            post(m::create_payment_intent).fallback(method_not_allowed),
        )
        .route(
            "/validate-download",
            post(m::validate_download).fallback(method_not_allowed),
        )
        .route(
            "/subscribe-to-newsletter",
            post(m::subscribe_to_newsletter).fallback(method_not_allowed),
        )
        .fallback(function_not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(axum::middleware::map_response(error::framework_refusals))
        .with_state(state)
}

/// The marketplace's `/api/...` routes; the server nests this at `/api`.
pub fn api_router(state: FunctionsState) -> Router {
    Router::new()
        .route(
            "/paid-download-confirmation",
            post(api::paid_download_confirmation),
        )
        .route("/stripe/connect", post(api::connect))
        .route(
            "/user/update-stripe-account",
            post(api::update_stripe_account),
        )
        .route("/stripe/webhook", post(api::webhook))
        .route("/stripe/payout-status", post(sales::payout_status))
        .route("/creator/sales", post(sales::creator_sales))
        .route("/creator/orders", post(sales::creator_orders))
        .route("/simulated-payments/{id}", get(api::simulated_page))
        .route(
            "/simulated-payments/{id}/confirm",
            post(api::simulated_confirm),
        )
        .fallback(api_not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(axum::middleware::map_response(error::framework_refusals))
        .with_state(state)
}

/// The largest request body of a function or `/api` route (JSON, a form,
/// a payment provider's webhook event). A larger one is a 413 in the
/// functions' shape.
pub const BODY_LIMIT: usize = 2 * 1024 * 1024;

async fn method_not_allowed() -> FunctionError {
    FunctionError::MethodNotAllowed
}

async fn function_not_found() -> FunctionError {
    FunctionError::NotFound("Function not found".into())
}

async fn api_not_found() -> FunctionError {
    FunctionError::NotFound("Not found".into())
}

/// Seconds since the Unix epoch.
pub(crate) fn now_secs() -> i64 {
    chrono::Utc::now().timestamp()
}
