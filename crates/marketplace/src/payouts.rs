//! A connected account's payout status at the payment provider: whether it
//! can take charges and receive payouts, what the provider still needs, the
//! balance and the recent payouts (`PaymentProvider::payout_status`; the
//! route is `POST /api/stripe/payout-status` in `sales.rs`).
//!
//! Stripe answers from its Accounts, Balance and Payouts APIs (the last two
//! for the connected account, with the `Stripe-Account` header); the
//! simulated provider answers from its own tables: its accounts are
//! onboarded at once, a sale's share (amount less the platform fee) stays
//! pending for [`SIMULATED_PENDING_DAYS`] days and is available after, and
//! it makes no payouts. Errors are plain text: the provider wraps them.

use serde::{Deserialize, Serialize};
use sqlx::PgPool;
use typeshare::typeshare;

/// How many recent payouts are listed.
pub(crate) const RECENT_PAYOUTS: i64 = 5;
/// How long a simulated sale's share stays pending.
pub const SIMULATED_PENDING_DAYS: i32 = 7;

/// An amount in a currency's smallest unit.
#[typeshare]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Money {
    #[typeshare(serialized_as = "I54")]
    pub amount: i64,
    /// ISO code, lowercase.
    pub currency: String,
}

/// One payout to the creator's bank account.
#[typeshare]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PayoutSummary {
    pub id: String,
    #[typeshare(serialized_as = "I54")]
    pub amount: i64,
    pub currency: String,
    /// `paid`, `pending`, `in_transit`, `canceled` or `failed`.
    pub status: String,
    /// When it arrives (or arrived), seconds since the epoch.
    #[typeshare(serialized_as = "I54")]
    pub arrival_date: i64,
    #[typeshare(serialized_as = "I54")]
    pub created: i64,
}

/// What the provider says of a connected account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayoutStatus {
    pub charges_enabled: bool,
    pub payouts_enabled: bool,
    pub details_submitted: bool,
    /// Information the provider needs now (currently and past due).
    pub requirements_due: Vec<String>,
    /// Why the account is disabled, when it is.
    pub disabled_reason: Option<String>,
    pub available: Vec<Money>,
    pub pending: Vec<Money>,
    /// Newest first, at most [`RECENT_PAYOUTS`].
    pub payouts: Vec<PayoutSummary>,
}

fn stripe_error(e: stripe::StripeError) -> String {
    format!("Stripe: {e}")
}

/// Stripe: the account (`GET /v1/accounts/{id}`), then its balance and its
/// last payouts as the connected account (`Stripe-Account: {id}`). `None`
/// when Stripe does not know the account.
pub(crate) async fn stripe_status(
    client: &stripe::Client,
    account: &str,
) -> Result<Option<PayoutStatus>, String> {
    use stripe::StripeRequest;
    use stripe_connect::account::RetrieveAccount;
    use stripe_core::balance::RetrieveForMyAccountBalance;
    use stripe_core::payout::ListPayout;

    let found = match RetrieveAccount::new(account).send(client).await {
        Ok(found) => found,
        Err(stripe::StripeError::Stripe(_, 404)) => return Ok(None),
        Err(e) => return Err(stripe_error(e)),
    };
    let requirements = found.requirements.as_ref();
    let mut requirements_due: Vec<String> = requirements
        .map(|r| {
            r.past_due
                .iter()
                .flatten()
                .chain(r.currently_due.iter().flatten())
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    requirements_due.sort();
    requirements_due.dedup();
    let disabled_reason = requirements
        .and_then(|r| r.disabled_reason.as_ref())
        .map(|reason| reason.as_str().to_owned());
    let as_account = || stripe::AccountId::from(account.to_owned());
    let balance = RetrieveForMyAccountBalance::new()
        .customize()
        .account_id(as_account())
        .send(client)
        .await
        .map_err(stripe_error)?;
    let money = |amounts: &[stripe_core::BalanceAmount]| {
        amounts
            .iter()
            .map(|a| Money {
                amount: a.amount,
                currency: a.currency.to_string(),
            })
            .collect::<Vec<_>>()
    };
    let payouts = ListPayout::new()
        .limit(RECENT_PAYOUTS)
        .customize()
        .account_id(as_account())
        .send(client)
        .await
        .map_err(stripe_error)?;
    Ok(Some(PayoutStatus {
        charges_enabled: found.charges_enabled.unwrap_or(false),
        payouts_enabled: found.payouts_enabled.unwrap_or(false),
        details_submitted: found.details_submitted.unwrap_or(false),
        requirements_due,
        disabled_reason,
        available: money(&balance.available),
        pending: money(&balance.pending),
        payouts: payouts
            .data
            .iter()
            .map(|p| PayoutSummary {
                id: p.id.as_str().to_owned(),
                amount: p.amount,
                currency: p.currency.to_string(),
                status: p.status.clone(),
                arrival_date: p.arrival_date,
                created: p.created,
            })
            .collect(),
    }))
}

/// The simulated provider: its account row, and as balance the creator's
/// share of the simulated payments made to it (amount less the platform's
/// fee), pending for [`SIMULATED_PENDING_DAYS`] days after confirmation.
pub(crate) async fn simulated_status(
    pool: &PgPool,
    account: &str,
) -> Result<Option<PayoutStatus>, String> {
    let db = |e: sqlx::Error| format!("simulated provider: {e}");
    let known: Option<String> =
        sqlx::query_scalar("select id from functions.simulated_accounts where id = $1")
            .bind(account)
            .fetch_optional(pool)
            .await
            .map_err(db)?;
    if known.is_none() {
        return Ok(None);
    }
    let rows: Vec<(String, i64, i64)> = sqlx::query_as(
        "select currency, \
                coalesce(sum(amount - coalesce(application_fee, 0)) \
                  filter (where confirmed_at > now() - make_interval(days => $2)), 0)::bigint, \
                coalesce(sum(amount - coalesce(application_fee, 0)) \
                  filter (where confirmed_at <= now() - make_interval(days => $2)), 0)::bigint \
           from functions.simulated_payments \
          where destination = $1 and status = 'succeeded' \
          group by currency order by currency",
    )
    .bind(account)
    .bind(SIMULATED_PENDING_DAYS)
    .fetch_all(pool)
    .await
    .map_err(db)?;
    let pending = rows
        .iter()
        .map(|(currency, pending, _)| Money {
            amount: *pending,
            currency: currency.clone(),
        })
        .collect();
    let available = rows
        .iter()
        .map(|(currency, _, available)| Money {
            amount: *available,
            currency: currency.clone(),
        })
        .collect();
    Ok(Some(PayoutStatus {
        charges_enabled: true,
        payouts_enabled: true,
        details_submitted: true,
        requirements_due: Vec::new(),
        disabled_reason: None,
        available,
        pending,
        payouts: Vec::new(),
    }))
}
