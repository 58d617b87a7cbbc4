//! Payments behind one trait: [`StripeProvider`] (async-stripe, any API base)
//! and [`SimulatedProvider`] (no network; its payments and connected
//! accounts live in the `functions` schema and are confirmed on a local page).

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;

use sqlx::PgPool;

use crate::payouts::{self, PayoutStatus};
use crate::secrets;

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Why the provider failed; logged, never sent to clients.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ProviderError(pub String);

/// A payment to start.
#[derive(Debug, Clone, PartialEq)]
pub struct PaymentRequest {
    /// In the smallest currency unit, from the database.
    pub amount: i64,
    /// ISO code, lowercase.
    pub currency: String,
    /// The creator's connected account, when they have one.
    pub destination: Option<String>,
    /// The platform's fee, charged only with a destination.
    pub application_fee: Option<i64>,
    pub receipt_email: String,
    pub description: String,
    /// `order_id`, `template_id`, `buyer_email`.
    pub metadata: HashMap<String, String>,
}

/// A started payment: the provider's id and the secret the browser confirms
/// it with.
#[derive(Debug, Clone)]
pub struct CreatedPayment {
    pub id: String,
    pub client_secret: String,
}

/// Where a payment stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaymentState {
    Succeeded,
    Pending,
    Failed,
}

/// What the provider knows of a connected account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountState {
    /// The `user_id` the account was created for (its metadata).
    pub user_id: Option<String>,
    /// Charges enabled and details submitted.
    pub ready: bool,
}

/// A payment provider. Object safe: the state holds an `Arc<dyn PaymentProvider>`.
pub trait PaymentProvider: Send + Sync + 'static {
    /// `stripe` or `simulated` (sent to the browser so the checkout knows
    /// which confirmation to use).
    fn name(&self) -> &'static str;
    fn create_payment<'a>(
        &'a self,
        request: &'a PaymentRequest,
    ) -> BoxFuture<'a, Result<CreatedPayment, ProviderError>>;
    fn payment_state<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<PaymentState, ProviderError>>;
    /// A new connected account for `user_id`, its id.
    fn create_account<'a>(
        &'a self,
        user_id: &'a str,
        email: Option<&'a str>,
    ) -> BoxFuture<'a, Result<String, ProviderError>>;
    /// The URL of an onboarding link for `account`.
    fn account_link<'a>(
        &'a self,
        account: &'a str,
        refresh_url: &'a str,
        return_url: &'a str,
    ) -> BoxFuture<'a, Result<String, ProviderError>>;
    /// The account, or `None` when the provider does not know it.
    fn account_state<'a>(
        &'a self,
        account: &'a str,
    ) -> BoxFuture<'a, Result<Option<AccountState>, ProviderError>>;
    /// Whether `account` can take charges and receive payouts, its balance
    /// and recent payouts ([`crate::payouts`]); `None` when unknown.
    fn payout_status<'a>(
        &'a self,
        account: &'a str,
    ) -> BoxFuture<'a, Result<Option<PayoutStatus>, ProviderError>>;
}

// ------------------------------------------------------------------ Stripe

/// Stripe through async-stripe, against `api_base` (Stripe's by default).
#[derive(Clone)]
pub struct StripeProvider {
    client: stripe::Client,
}

impl std::fmt::Debug for StripeProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StripeProvider(..)")
    }
}

impl StripeProvider {
    pub fn new(secret_key: &str, api_base: Option<&str>) -> Result<Self, ProviderError> {
        // The HTTPS client uses rustls; ring is the only provider we build.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut builder = stripe::ClientBuilder::new(secret_key);
        if let Some(base) = api_base {
            builder = builder.url(base);
        }
        let client = builder
            .build()
            .map_err(|e| ProviderError(format!("Stripe client: {e}")))?;
        Ok(Self { client })
    }
}

fn stripe_error(e: stripe::StripeError) -> ProviderError {
    ProviderError(format!("Stripe: {e}"))
}

impl PaymentProvider for StripeProvider {
    fn name(&self) -> &'static str {
        "stripe"
    }

    fn create_payment<'a>(
        &'a self,
        request: &'a PaymentRequest,
    ) -> BoxFuture<'a, Result<CreatedPayment, ProviderError>> {
        use stripe_core::payment_intent::{
            CreatePaymentIntent, CreatePaymentIntentAutomaticPaymentMethods,
            CreatePaymentIntentTransferData,
        };
        Box::pin(async move {
            let currency: stripe_types::Currency = match request.currency.parse() {
                Ok(c) => c,
                Err(never) => match never {},
            };
            let mut create = CreatePaymentIntent::new(request.amount, currency)
                .automatic_payment_methods(CreatePaymentIntentAutomaticPaymentMethods::new(true))
                .receipt_email(request.receipt_email.clone())
                .description(request.description.clone())
                .metadata(request.metadata.clone());
            if let Some(destination) = &request.destination {
                create =
                    create.transfer_data(CreatePaymentIntentTransferData::new(destination.clone()));
                if let Some(fee) = request.application_fee.filter(|f| *f > 0) {
                    create = create.application_fee_amount(fee);
                }
            }
            let intent = create.send(&self.client).await.map_err(stripe_error)?;
            let client_secret = intent.client_secret.ok_or_else(|| {
                ProviderError("Stripe: PaymentIntent without client_secret".into())
            })?;
            Ok(CreatedPayment {
                id: intent.id.as_str().to_owned(),
                client_secret,
            })
        })
    }

    fn payment_state<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<PaymentState, ProviderError>> {
        use stripe_core::payment_intent::RetrievePaymentIntent;
        Box::pin(async move {
            let intent = RetrievePaymentIntent::new(id)
                .send(&self.client)
                .await
                .map_err(stripe_error)?;
            Ok(match intent.status.as_str() {
                "succeeded" => PaymentState::Succeeded,
                "canceled" => PaymentState::Failed,
                _ => PaymentState::Pending,
            })
        })
    }

    fn create_account<'a>(
        &'a self,
        user_id: &'a str,
        email: Option<&'a str>,
    ) -> BoxFuture<'a, Result<String, ProviderError>> {
        use stripe_connect::account::{CreateAccount, CreateAccountType};
        Box::pin(async move {
            let mut create = CreateAccount::new()
                .type_(CreateAccountType::Express)
                .metadata(HashMap::from([("user_id".to_owned(), user_id.to_owned())]));
            if let Some(email) = email {
                create = create.email(email);
            }
            let account = create.send(&self.client).await.map_err(stripe_error)?;
            Ok(account.id.as_str().to_owned())
        })
    }

    fn account_link<'a>(
        &'a self,
        account: &'a str,
        refresh_url: &'a str,
        return_url: &'a str,
    ) -> BoxFuture<'a, Result<String, ProviderError>> {
        use stripe_connect::account_link::{CreateAccountLink, CreateAccountLinkType};
        Box::pin(async move {
            let link = CreateAccountLink::new(account, CreateAccountLinkType::AccountOnboarding)
                .refresh_url(refresh_url)
                .return_url(return_url)
                .send(&self.client)
                .await
                .map_err(stripe_error)?;
            Ok(link.url)
        })
    }

    fn account_state<'a>(
        &'a self,
        account: &'a str,
    ) -> BoxFuture<'a, Result<Option<AccountState>, ProviderError>> {
        use stripe_connect::account::RetrieveAccount;
        Box::pin(async move {
            match RetrieveAccount::new(account).send(&self.client).await {
                Ok(account) => Ok(Some(AccountState {
                    user_id: account
                        .metadata
                        .as_ref()
                        .and_then(|m| m.get("user_id").cloned()),
                    ready: account.charges_enabled.unwrap_or(false)
                        && account.details_submitted.unwrap_or(false),
                })),
                Err(stripe::StripeError::Stripe(_, 404)) => Ok(None),
                Err(e) => Err(stripe_error(e)),
            }
        })
    }

    fn payout_status<'a>(
        &'a self,
        account: &'a str,
    ) -> BoxFuture<'a, Result<Option<PayoutStatus>, ProviderError>> {
        Box::pin(async move {
            payouts::stripe_status(&self.client, account)
                .await
                .map_err(ProviderError)
        })
    }
}

// --------------------------------------------------------------- simulated

/// Why a card was declined, in Stripe's words: its error's `code`,
/// `decline_code` and `message` (`type` is always `card_error`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CardDecline {
    pub code: &'static str,
    pub decline_code: Option<&'static str>,
    pub message: &'static str,
}

/// What confirming a simulated payment did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confirmation {
    /// The payment succeeded (now or before).
    Succeeded,
    /// The card was declined; the payment is unchanged.
    Declined(CardDecline),
    /// Not this payment's secret, or no such payment.
    Refused,
}

/// The simulated provider's test cards, as Stripe's
/// (docs.stripe.com/testing#declined-payments): these numbers are declined
/// with Stripe's codes and texts; any other number that passes the Luhn
/// check succeeds (4242 4242 4242 4242, for one). Spaces and dashes are
/// ignored; anything else that is not 12 to 19 digits passing the check is
/// declined as Stripe declines a mistyped number (`incorrect_number`).
pub fn test_card(number: &str) -> Result<(), CardDecline> {
    const DECLINED: &str = "Your card was declined.";
    let digits: String = number.chars().filter(|c| !matches!(c, ' ' | '-')).collect();
    let well_formed = (12..=19).contains(&digits.len())
        && digits.bytes().all(|b| b.is_ascii_digit())
        && luhn(&digits);
    let decline = |code, decline_code, message| {
        Err(CardDecline {
            code,
            decline_code,
            message,
        })
    };
    if !well_formed {
        return decline("incorrect_number", None, "Your card number is incorrect.");
    }
    match digits.as_str() {
        "4000000000000002" => decline("card_declined", Some("generic_decline"), DECLINED),
        "4000000000009995" => decline(
            "card_declined",
            Some("insufficient_funds"),
            "Your card has insufficient funds.",
        ),
        "4000000000000119" => decline(
            "processing_error",
            None,
            "An error occurred while processing your card. Try again in a little bit.",
        ),
        _ => Ok(()),
    }
}

/// The Luhn check digit of card numbers holds for `digits` (ASCII digits).
fn luhn(digits: &str) -> bool {
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| {
            let d = u32::from(b - b'0');
            if i % 2 == 1 {
                if d > 4 { d * 2 - 9 } else { d * 2 }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// Payments without a network: a payment is a row of
/// `functions.simulated_payments`, confirmed when the buyer presses Pay on
/// the local page (`/api/simulated-payments/{id}`); connected accounts are
/// rows of `functions.simulated_accounts`, onboarded at once.
#[derive(Debug, Clone)]
pub struct SimulatedProvider {
    /// The owner pool: these are the function host's private tables.
    pool: PgPool,
}

impl SimulatedProvider {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }

    /// Confirms payment `id` with `client_secret` and, when the browser sent
    /// one, the card number the buyer typed ([`test_card`] decides its
    /// outcome; the number is neither stored nor logged). A wrong secret or
    /// an unknown payment is [`Confirmation::Refused`]; a declined card
    /// leaves the payment as it was (`requires_payment_method`, as Stripe
    /// leaves a PaymentIntent after a decline), so the buyer can try another
    /// card. Confirming twice is harmless.
    pub async fn confirm(
        &self,
        id: &str,
        client_secret: &str,
        card_number: Option<&str>,
    ) -> Result<Confirmation, ProviderError> {
        let stored: Option<String> = sqlx::query_scalar(
            "select client_secret_hash from functions.simulated_payments where id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await
        .map_err(db_error)?;
        if !secrets::token_matches(client_secret, stored.as_deref()) {
            return Ok(Confirmation::Refused);
        }
        if let Some(Err(decline)) = card_number.map(test_card) {
            return Ok(Confirmation::Declined(decline));
        }
        sqlx::query(
            "update functions.simulated_payments set status = 'succeeded', confirmed_at = now() \
             where id = $1 and status <> 'succeeded'",
        )
        .bind(id)
        .execute(&self.pool)
        .await
        .map_err(db_error)?;
        Ok(Confirmation::Succeeded)
    }

    /// Amount, currency and status of a payment (the confirmation page).
    pub async fn describe(&self, id: &str) -> Result<Option<(i64, String, String)>, ProviderError> {
        sqlx::query_as(
            "select amount, currency, status from functions.simulated_payments where id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await
        .map_err(db_error)
    }
}

fn db_error(e: sqlx::Error) -> ProviderError {
    ProviderError(format!("simulated provider: {e}"))
}

impl PaymentProvider for SimulatedProvider {
    fn name(&self) -> &'static str {
        "simulated"
    }

    fn create_payment<'a>(
        &'a self,
        request: &'a PaymentRequest,
    ) -> BoxFuture<'a, Result<CreatedPayment, ProviderError>> {
        Box::pin(async move {
            let id = format!("pi_sim_{}", plinth_db::random_token(24));
            let client_secret = format!("{id}_secret_{}", plinth_db::random_token(24));
            let metadata = serde_json::to_value(&request.metadata)
                .map_err(|e| ProviderError(e.to_string()))?;
            sqlx::query(
                "insert into functions.simulated_payments \
                   (id, client_secret_hash, amount, currency, destination, application_fee, \
                    receipt_email, metadata) \
                 values ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .bind(&id)
            .bind(secrets::token_hash(&client_secret))
            .bind(request.amount)
            .bind(&request.currency)
            .bind(&request.destination)
            .bind(request.application_fee)
            .bind(&request.receipt_email)
            .bind(metadata)
            .execute(&self.pool)
            .await
            .map_err(db_error)?;
            Ok(CreatedPayment { id, client_secret })
        })
    }

    fn payment_state<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<PaymentState, ProviderError>> {
        Box::pin(async move {
            let status: Option<String> =
                sqlx::query_scalar("select status from functions.simulated_payments where id = $1")
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await
                    .map_err(db_error)?;
            Ok(match status.as_deref() {
                Some("succeeded") => PaymentState::Succeeded,
                Some(_) => PaymentState::Pending,
                None => PaymentState::Failed,
            })
        })
    }

    fn create_account<'a>(
        &'a self,
        user_id: &'a str,
        email: Option<&'a str>,
    ) -> BoxFuture<'a, Result<String, ProviderError>> {
        Box::pin(async move {
            let id = format!("acct_sim_{}", plinth_db::random_token(16));
            sqlx::query(
                "insert into functions.simulated_accounts (id, user_id, email) values ($1, $2, $3)",
            )
            .bind(&id)
            .bind(user_id)
            .bind(email)
            .execute(&self.pool)
            .await
            .map_err(db_error)?;
            Ok(id)
        })
    }

    fn account_link<'a>(
        &'a self,
        _account: &'a str,
        _refresh_url: &'a str,
        return_url: &'a str,
    ) -> BoxFuture<'a, Result<String, ProviderError>> {
        // Onboarding is instantaneous: straight back to the app.
        Box::pin(async move { Ok(return_url.to_owned()) })
    }

    fn account_state<'a>(
        &'a self,
        account: &'a str,
    ) -> BoxFuture<'a, Result<Option<AccountState>, ProviderError>> {
        Box::pin(async move {
            let user: Option<String> = sqlx::query_scalar(
                "select user_id from functions.simulated_accounts where id = $1",
            )
            .bind(account)
            .fetch_optional(&self.pool)
            .await
            .map_err(db_error)?;
            Ok(user.map(|user_id| AccountState {
                user_id: Some(user_id),
                ready: true,
            }))
        })
    }

    fn payout_status<'a>(
        &'a self,
        account: &'a str,
    ) -> BoxFuture<'a, Result<Option<PayoutStatus>, ProviderError>> {
        Box::pin(async move {
            payouts::simulated_status(&self.pool, account)
                .await
                .map_err(ProviderError)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::test_card;

    #[test]
    fn test_cards_decline_as_stripe_does() {
        for ok in [
            "4242 4242 4242 4242",
            "4242-4242-4242-4242",
            "5555555555554444",
            "4000056655665556",
        ] {
            assert_eq!(test_card(ok), Ok(()), "{ok}");
        }
        let outcome = |n| test_card(n).unwrap_err();
        let generic = outcome("4000 0000 0000 0002");
        assert_eq!(
            (generic.code, generic.decline_code, generic.message),
            (
                "card_declined",
                Some("generic_decline"),
                "Your card was declined."
            )
        );
        let funds = outcome("4000000000009995");
        assert_eq!(
            (funds.code, funds.decline_code, funds.message),
            (
                "card_declined",
                Some("insufficient_funds"),
                "Your card has insufficient funds."
            )
        );
        let processing = outcome("4000 0000 0000 0119");
        assert_eq!(processing.code, "processing_error");
        assert_eq!(processing.decline_code, None);
        assert!(
            processing
                .message
                .starts_with("An error occurred while processing your card.")
        );
        for bad in [
            "4242424242424241",
            "4242",
            "",
            "4242 4242 4242 424x",
            "42424242424242424242",
            "\u{0664}242424242424242",
        ] {
            assert_eq!(outcome(bad).code, "incorrect_number", "{bad:?}");
        }
    }
}
