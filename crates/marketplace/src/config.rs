//! Configuration of the function host. The server fills it from its
//! environment (`STRIPE_SECRET_KEY`, `STRIPE_WEBHOOK_SECRET`,
//! `STRIPE_API_BASE`, `PLATFORM_FEE_BPS`, ...); this crate reads no
//! environment itself.

use std::fmt;
use std::time::Duration;

/// Everything the functions need besides the database, the JWT secret and
/// the mailer.
#[derive(Clone)]
pub struct FunctionsConfig {
    /// Stripe secret key (`STRIPE_SECRET_KEY`). `None`: the simulated
    /// provider, which needs no network (purchases are confirmed on a local
    /// page, see [`crate::api_router`]).
    pub stripe_secret_key: Option<String>,
    /// Base URL of the Stripe API (`STRIPE_API_BASE`); `None`: Stripe's own.
    /// Tests point it at a local fake.
    pub stripe_api_base: Option<String>,
    /// Signing secret of the webhook endpoint, `whsec_...`
    /// (`STRIPE_WEBHOOK_SECRET`). `None`: the webhook refuses every event.
    pub stripe_webhook_secret: Option<String>,
    /// The platform's cut of a sale paid to a creator's connected account,
    /// in basis points (`PLATFORM_FEE_BPS`; 1000 = 10 %). Charged as the
    /// PaymentIntent's `application_fee_amount`.
    pub platform_fee_bps: u32,
    /// Currency of every order (ISO code, lowercase).
    pub currency: String,
    /// Where the browser app lives (`SITE_URL`): e-mailed links point to its
    /// `/download-secure/{orderId}?token=...` page.
    pub site_url: String,
    /// The public URL of this server (`API_EXTERNAL_URL`): signed storage
    /// URLs are `{api_external_url}/storage/v1/object/sign/...`.
    pub api_external_url: String,
    /// Where Stripe Connect onboarding returns to; `?stripe_account={id}` is
    /// appended (`STRIPE_CONNECT_RETURN_URL`; default
    /// `{site_url}/dashboard/settings`).
    pub connect_return_url: Option<String>,
    /// Where an expired onboarding link sends the creator
    /// (`STRIPE_CONNECT_REFRESH_URL`; default as the return URL).
    pub connect_refresh_url: Option<String>,
    /// One view per visitor per template per this window
    /// (`VIEW_DEDUP_WINDOW_SECS`, default 30 minutes).
    pub view_window: Duration,
    /// Lifetime of a signed download URL handed out for a template file
    /// (`DOWNLOAD_URL_EXPIRY_SECS`, default 10 minutes).
    pub download_url_expiry: Duration,
    /// Limits of the functions anyone may call, per client address, and of
    /// the download e-mails per recipient.
    pub rate_limits: RateLimits,
}

/// Limits of the functions anyone may call without an account
/// (`PLINTH_FUNCTIONS_RATE_LIMIT_*`). A count of 0 turns that limit off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateLimits {
    /// The period every count below is per (`…_WINDOW_SECS`, default one
    /// hour). A budget refills steadily: `n` per window is `n` at once, then
    /// one every `window / n`.
    pub window: Duration,
    /// `create-free-order` calls per client address (`…_FREE_ORDERS`, 30).
    pub free_orders: u32,
    /// `track-template-view` calls per client address (`…_VIEWS`, 600).
    pub views: u32,
    /// `subscribe-to-newsletter` calls per client address (`…_NEWSLETTER`, 20).
    pub newsletter: u32,
    /// Download e-mails of free orders per recipient address, across
    /// templates (`…_EMAILS_PER_ADDRESS`, 10); one address gets at most one
    /// per template per window whatever this says.
    pub emails_per_address: u32,
}

impl Default for RateLimits {
    fn default() -> Self {
        Self {
            window: Duration::from_secs(3600),
            free_orders: 30,
            views: 600,
            newsletter: 20,
            emails_per_address: 10,
        }
    }
}

impl Default for FunctionsConfig {
    fn default() -> Self {
        Self {
            stripe_secret_key: None,
            stripe_api_base: None,
            stripe_webhook_secret: None,
            platform_fee_bps: 1000,
            currency: "usd".into(),
            site_url: "http://localhost:8000".into(),
            api_external_url: "http://localhost:8000".into(),
            connect_return_url: None,
            connect_refresh_url: None,
            view_window: Duration::from_secs(30 * 60),
            download_url_expiry: Duration::from_secs(10 * 60),
            rate_limits: RateLimits::default(),
        }
    }
}

impl FunctionsConfig {
    pub(crate) fn site(&self) -> &str {
        self.site_url.trim_end_matches('/')
    }

    pub(crate) fn api(&self) -> &str {
        self.api_external_url.trim_end_matches('/')
    }

    pub(crate) fn return_url(&self) -> String {
        self.connect_return_url
            .clone()
            .unwrap_or_else(|| format!("{}/dashboard/settings", self.site()))
    }

    pub(crate) fn refresh_url(&self) -> String {
        self.connect_refresh_url
            .clone()
            .unwrap_or_else(|| self.return_url())
    }

    /// The platform fee of a sale of `amount` cents, rounded down.
    pub(crate) fn fee_for(&self, amount: i64) -> i64 {
        amount.saturating_mul(i64::from(self.platform_fee_bps)) / 10_000
    }
}

impl fmt::Debug for FunctionsConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FunctionsConfig")
            .field(
                "stripe_secret_key",
                &self.stripe_secret_key.as_ref().map(|_| ".."),
            )
            .field("stripe_api_base", &self.stripe_api_base)
            .field(
                "stripe_webhook_secret",
                &self.stripe_webhook_secret.as_ref().map(|_| ".."),
            )
            .field("platform_fee_bps", &self.platform_fee_bps)
            .field("currency", &self.currency)
            .field("site_url", &self.site_url)
            .field("api_external_url", &self.api_external_url)
            .field("connect_return_url", &self.connect_return_url)
            .field("connect_refresh_url", &self.connect_refresh_url)
            .field("view_window", &self.view_window)
            .field("download_url_expiry", &self.download_url_expiry)
            .field("rate_limits", &self.rate_limits)
            .finish()
    }
}
