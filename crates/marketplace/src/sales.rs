//! A creator's sales (`POST /api/creator/sales`), orders
//! (`POST /api/creator/orders`) and payout status
//! (`POST /api/stripe/payout-status`, from the provider: `payouts.rs`).
//! Sales and orders are only the orders of the caller's own templates, read as the service role with the owner fixed to the signed-in
//! user (row-level security lets a buyer read their own orders, never a
//! creator the orders of their templates).
//!
//! Sales are paid orders, counted on the day they were paid (in the
//! creator's time zone); free downloads are counted apart. The platform fee
//! is the configured rate applied to each sale and rounded down, as the
//! payment is charged; the orders do not record it.
//!
//! Buyers' e-mail addresses are masked (`j***@example.com`): the platform
//! shows no creator their buyers' addresses anywhere else, and the sales
//! screen does not start.

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use typeshare::typeshare;
use uuid::Uuid;

use crate::FunctionsState;
use crate::caller::Caller;
use crate::error::{FunctionError, Result};
use crate::params::{Params, lenient_optional_text, lenient_text, present};
use crate::payouts::{Money, PayoutSummary};

const MUST_SIGN_IN: &str = "You must be logged in to see your sales.";
const MUST_SIGN_IN_PAYOUTS: &str = "You must be logged in to see your payouts.";
const STATUS_FAILED: &str = "Could not load your payout status. Please try again.";
/// The largest page of orders.
pub const MAX_PAGE_SIZE: u32 = 50;
const DEFAULT_PAGE_SIZE: u32 = 20;
/// The last page anyone may ask for (a bound on the scan an offset costs).
const MAX_PAGE: u32 = 10_000;
/// At most this many templates in the per-template table.
const MAX_TEMPLATES: i64 = 200;

// --------------------------------------------------------------------- wire

/// `POST /api/creator/sales`.
#[typeshare]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CreatorSalesRequest {
    /// `30d` (by day), `90d` (by week) or `12m` (by month); `30d` when absent.
    #[serde(deserialize_with = "lenient_text")]
    pub range: String,
    /// An IANA time zone (`Europe/Paris`) the days are counted in; UTC when
    /// absent.
    #[serde(
        deserialize_with = "lenient_optional_text",
        skip_serializing_if = "Option::is_none"
    )]
    pub time_zone: Option<String>,
}

/// One bar of the revenue chart.
#[typeshare]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SalesBucket {
    /// The first day of the bucket, `YYYY-MM-DD` in the time zone.
    pub start: String,
    /// Paid revenue, in the currency's smallest unit.
    #[typeshare(serialized_as = "I54")]
    pub gross: i64,
    pub sales: u32,
    pub free_downloads: u32,
}

/// One of the creator's published templates, all time.
#[typeshare]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TemplateSales {
    pub template_id: Uuid,
    pub title: String,
    pub price_in_cents: i32,
    pub total_views: i32,
    pub downloads_count: i32,
    pub sales: u32,
    #[typeshare(serialized_as = "I54")]
    pub gross: i64,
}

#[typeshare]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreatorSalesResponse {
    pub range: String,
    /// `day`, `week` (from Monday) or `month`.
    pub bucket: String,
    pub time_zone: String,
    /// ISO code, lowercase; every amount is in its smallest unit.
    pub currency: String,
    /// Oldest first, every bucket of the range (empty ones included).
    pub series: Vec<SalesBucket>,
    #[typeshare(serialized_as = "I54")]
    pub gross: i64,
    /// The platform's fee on those sales.
    #[typeshare(serialized_as = "I54")]
    pub fee: i64,
    #[typeshare(serialized_as = "I54")]
    pub net: i64,
    pub sales: u32,
    pub free_downloads: u32,
    pub platform_fee_bps: u32,
    /// Highest revenue first, then newest.
    pub templates: Vec<TemplateSales>,
}

/// `POST /api/creator/orders`.
#[typeshare]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CreatorOrdersRequest {
    /// From 1; 1 when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
    /// 1 to 50 ([`MAX_PAGE_SIZE`]); 20 when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_size: Option<u32>,
    /// `all` (the default), `paid`, `free`, `pending` or `failed`.
    #[serde(deserialize_with = "lenient_text")]
    pub status: String,
}

#[typeshare]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreatorOrder {
    pub id: Uuid,
    /// When it was placed (RFC 3339).
    pub created_at: String,
    /// When it was paid (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paid_at: Option<String>,
    pub template_id: Uuid,
    pub template_title: String,
    /// The buyer's address, masked: `j***@example.com`.
    pub buyer: String,
    pub amount: i32,
    pub currency: String,
    /// `paid`, `pending`, `failed` or `free`.
    pub status: String,
}

#[typeshare]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreatorOrdersResponse {
    /// Newest first.
    pub orders: Vec<CreatorOrder>,
    pub page: u32,
    pub page_size: u32,
    /// Orders of that status in all.
    pub total: u32,
}

/// `POST /api/stripe/payout-status`: the signed-in creator's own account.
#[typeshare]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PayoutStatusRequest {
    /// Must be the signed-in user.
    #[serde(deserialize_with = "lenient_text")]
    pub user_id: String,
}

#[typeshare]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PayoutStatusResponse {
    /// `stripe` or `simulated`.
    pub provider: String,
    /// Whether the creator has a connected account the provider knows.
    pub connected: bool,
    /// The connected account's id, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub account_id: Option<String>,
    pub charges_enabled: bool,
    pub payouts_enabled: bool,
    pub details_submitted: bool,
    pub requirements_due: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disabled_reason: Option<String>,
    pub available: Vec<Money>,
    pub pending: Vec<Money>,
    pub payouts: Vec<PayoutSummary>,
    /// The platform's fee on a sale, in basis points (1000 = 10%).
    pub platform_fee_bps: u32,
}

// ---------------------------------------------------------------- the range

/// A range the chart can show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Range {
    Days30,
    Days90,
    Months12,
}

impl Range {
    pub(crate) fn parse(text: &str) -> Option<Self> {
        match text {
            "" | "30d" => Some(Self::Days30),
            "90d" => Some(Self::Days90),
            "12m" => Some(Self::Months12),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Days30 => "30d",
            Self::Days90 => "90d",
            Self::Months12 => "12m",
        }
    }

    /// Postgres' `date_trunc` unit of a bucket.
    fn unit(self) -> &'static str {
        match self {
            Self::Days30 => "day",
            Self::Days90 => "week",
            Self::Months12 => "month",
        }
    }

    /// The first day of the first bucket of the range ending `today`.
    pub(crate) fn start(self, today: NaiveDate) -> NaiveDate {
        use chrono::{Datelike, Days, Months};
        match self {
            Self::Days30 => today - Days::new(29),
            Self::Days90 => {
                let monday = today - Days::new(u64::from(today.weekday().num_days_from_monday()));
                monday - Days::new(7 * 12)
            }
            Self::Months12 => {
                let first = today.with_day(1).unwrap_or(today);
                first - Months::new(11)
            }
        }
    }
}

/// `j***@example.com`: the first character of the local part, the domain.
pub(crate) fn mask_email(email: &str) -> String {
    match email.rsplit_once('@') {
        Some((local, domain)) => {
            let first: String = local.chars().take(1).collect();
            format!("{first}***@{domain}")
        }
        None => "***".into(),
    }
}

fn signed_in(caller: &Caller) -> Result<Uuid> {
    caller
        .user_id()
        .ok_or_else(|| FunctionError::Unauthorized(MUST_SIGN_IN.into()))
}

// ----------------------------------------------------------------- handlers

/// `{range, timeZone}`: the caller's revenue per bucket, totals and
/// per-template figures.
pub async fn creator_sales(
    State(state): State<FunctionsState>,
    caller: Caller,
    body: Bytes,
) -> Result<Json<CreatorSalesResponse>> {
    let request: CreatorSalesRequest = Params::json(&body)?.into_request()?;
    let user = signed_in(&caller)?;
    let range = Range::parse(&request.range)
        .ok_or_else(|| FunctionError::BadRequest("Unknown range: use 30d, 90d or 12m.".into()))?;
    let time_zone = request.time_zone.unwrap_or_else(|| "UTC".into());
    let currency = state.config().currency.to_lowercase();
    let fee_bps = state.config().platform_fee_bps;
    let mut tx = state.service_tx().await?;
    // Only names Postgres knows; anything else is a 400, never an error
    // from deep inside a query.
    let today: Option<NaiveDate> = sqlx::query_scalar(
        "select (now() at time zone name)::date from pg_timezone_names where name = $1 limit 1",
    )
    .bind(&time_zone)
    .fetch_optional(&mut *tx)
    .await?;
    let today = today.ok_or_else(|| FunctionError::BadRequest("Unknown time zone.".into()))?;
    let start = range.start(today);
    let rows: Vec<(NaiveDate, i64, i64, i64, i64)> = sqlx::query_as(
        "with buckets as ( \
           select g::date as start \
             from generate_series($3::date::timestamp, $4::date::timestamp, ('1 ' || $2)::interval) g \
         ), counted as ( \
           select date_trunc($2, coalesce(o.paid_at, o.created_at) at time zone $5)::date as bucket, \
                  o.payment_status, o.price_in_cents \
             from public.orders o join public.templates t on t.id = o.product_id \
            where t.user_id = $1 \
              and lower(o.currency) = $6 \
              and o.payment_status in ('paid', 'free') \
              and coalesce(o.paid_at, o.created_at) >= ($3::date::timestamp at time zone $5) \
         ) \
         select b.start, \
                coalesce(sum(c.price_in_cents) filter (where c.payment_status = 'paid'), 0)::bigint, \
                count(c.payment_status) filter (where c.payment_status = 'paid'), \
                count(c.payment_status) filter (where c.payment_status = 'free'), \
                coalesce(sum(c.price_in_cents::bigint * $7 / 10000) \
                  filter (where c.payment_status = 'paid'), 0)::bigint \
           from buckets b left join counted c on c.bucket = b.start \
          group by b.start order by b.start",
    )
    .bind(user)
    .bind(range.unit())
    .bind(start)
    .bind(today)
    .bind(&time_zone)
    .bind(&currency)
    .bind(i64::from(fee_bps))
    .fetch_all(&mut *tx)
    .await?;
    let templates: Vec<(Uuid, String, i32, i32, i32, i64, i64)> = sqlx::query_as(
        "select t.id, t.title, t.price_in_cents, t.total_views, t.downloads_count, \
                count(o.id) filter (where o.payment_status = 'paid'), \
                coalesce(sum(o.price_in_cents) filter (where o.payment_status = 'paid'), 0)::bigint \
           from public.templates t \
           left join public.orders o on o.product_id = t.id and lower(o.currency) = $2 \
          where t.user_id = $1 \
          group by t.id \
          order by 7 desc, t.created_at desc, t.id \
          limit $3",
    )
    .bind(user)
    .bind(&currency)
    .bind(MAX_TEMPLATES)
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;

    let count = |n: i64| u32::try_from(n).unwrap_or(u32::MAX);
    let series: Vec<SalesBucket> = rows
        .iter()
        .map(|(start, gross, sales, free, _)| SalesBucket {
            start: start.to_string(),
            gross: *gross,
            sales: count(*sales),
            free_downloads: count(*free),
        })
        .collect();
    let gross: i64 = rows.iter().map(|r| r.1).sum();
    let fee: i64 = rows.iter().map(|r| r.4).sum();
    Ok(Json(CreatorSalesResponse {
        range: range.name().into(),
        bucket: range.unit().into(),
        time_zone,
        currency,
        gross,
        fee,
        net: gross - fee,
        sales: count(rows.iter().map(|r| r.2).sum()),
        free_downloads: count(rows.iter().map(|r| r.3).sum()),
        series,
        platform_fee_bps: fee_bps,
        templates: templates
            .into_iter()
            .map(
                |(template_id, title, price_in_cents, views, downloads, sales, gross)| {
                    TemplateSales {
                        template_id,
                        title,
                        price_in_cents,
                        total_views: views,
                        downloads_count: downloads,
                        sales: count(sales),
                        gross,
                    }
                },
            )
            .collect(),
    }))
}

/// `{page, pageSize, status}`: one page of the orders of the caller's
/// templates, newest first, buyers masked.
pub async fn creator_orders(
    State(state): State<FunctionsState>,
    caller: Caller,
    body: Bytes,
) -> Result<Json<CreatorOrdersResponse>> {
    let request: CreatorOrdersRequest = Params::json(&body)?.into_request()?;
    let user = signed_in(&caller)?;
    let page = request.page.unwrap_or(1);
    if !(1..=MAX_PAGE).contains(&page) {
        return Err(FunctionError::BadRequest(format!(
            "page must be between 1 and {MAX_PAGE}."
        )));
    }
    let page_size = request.page_size.unwrap_or(DEFAULT_PAGE_SIZE);
    if !(1..=MAX_PAGE_SIZE).contains(&page_size) {
        return Err(FunctionError::BadRequest(format!(
            "pageSize must be between 1 and {MAX_PAGE_SIZE}."
        )));
    }
    let status = match request.status.as_str() {
        "" | "all" => None,
        s @ ("paid" | "free" | "pending" | "failed") => Some(s.to_owned()),
        _ => {
            return Err(FunctionError::BadRequest(
                "Unknown status: use all, paid, free, pending or failed.".into(),
            ));
        }
    };
    let mut tx = state.service_tx().await?;
    let total: i64 = sqlx::query_scalar(
        "select count(*) from public.orders o join public.templates t on t.id = o.product_id \
          where t.user_id = $1 and ($2::text is null or o.payment_status = $2)",
    )
    .bind(user)
    .bind(&status)
    .fetch_one(&mut *tx)
    .await?;
    type Row = (
        Uuid,
        chrono::DateTime<chrono::Utc>,
        Option<chrono::DateTime<chrono::Utc>>,
        Uuid,
        String,
        String,
        i32,
        String,
        String,
    );
    let rows: Vec<Row> = sqlx::query_as(
        "select o.id, o.created_at, o.paid_at, t.id, t.title, o.buyer_email, o.price_in_cents, \
                o.currency, o.payment_status \
           from public.orders o join public.templates t on t.id = o.product_id \
          where t.user_id = $1 and ($2::text is null or o.payment_status = $2) \
          order by o.created_at desc, o.id desc \
          limit $3 offset $4",
    )
    .bind(user)
    .bind(&status)
    .bind(i64::from(page_size))
    .bind(i64::from(page - 1) * i64::from(page_size))
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;
    let rfc3339 =
        |t: chrono::DateTime<chrono::Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    Ok(Json(CreatorOrdersResponse {
        orders: rows
            .into_iter()
            .map(
                |(id, created, paid, template_id, title, email, amount, currency, status)| {
                    CreatorOrder {
                        id,
                        created_at: rfc3339(created),
                        paid_at: paid.map(rfc3339),
                        template_id,
                        template_title: title,
                        buyer: mask_email(&email),
                        amount,
                        currency,
                        status,
                    }
                },
            )
            .collect(),
        page,
        page_size,
        total: u32::try_from(total).unwrap_or(u32::MAX),
    }))
}

// ----------------------------------------------------------- payout status

/// `{userId}`: the payout status of the caller's own connected account.
/// Anonymous callers are refused (401), another user's id is a 403; a
/// creator without an account is `connected: false`.
pub async fn payout_status(
    State(state): State<FunctionsState>,
    caller: Caller,
    body: Bytes,
) -> Result<Json<PayoutStatusResponse>> {
    let request: PayoutStatusRequest = Params::json(&body)?.into_request()?;
    let user = caller
        .user_id()
        .ok_or_else(|| FunctionError::Unauthorized(MUST_SIGN_IN_PAYOUTS.into()))?;
    let Some(claimed) = present(&request.user_id) else {
        return Err(FunctionError::BadRequest("Missing userId.".into()));
    };
    if claimed != user.to_string() {
        return Err(FunctionError::Forbidden(
            "You can only see your own payouts.".into(),
        ));
    }
    let account = stored_account(&state, user).await?;
    let mut response = PayoutStatusResponse {
        provider: state.provider_name().to_owned(),
        connected: false,
        account_id: None,
        charges_enabled: false,
        payouts_enabled: false,
        details_submitted: false,
        requirements_due: Vec::new(),
        disabled_reason: None,
        available: Vec::new(),
        pending: Vec::new(),
        payouts: Vec::new(),
        platform_fee_bps: state.config().platform_fee_bps,
    };
    let Some(account) = account else {
        return Ok(Json(response));
    };
    let status = state
        .provider()
        .payout_status(&account)
        .await
        .map_err(|e| FunctionError::Provider {
            message: STATUS_FAILED.into(),
            cause: e.0,
        })?;
    response.account_id = Some(account);
    if let Some(status) = status {
        response.connected = true;
        response.charges_enabled = status.charges_enabled;
        response.payouts_enabled = status.payouts_enabled;
        response.details_submitted = status.details_submitted;
        response.requirements_due = status.requirements_due;
        response.disabled_reason = status.disabled_reason;
        response.available = status.available;
        response.pending = status.pending;
        response.payouts = status.payouts;
    }
    Ok(Json(response))
}

/// The user's stored connected account (`payment_accounts`), if any.
async fn stored_account(state: &FunctionsState, user: Uuid) -> Result<Option<String>> {
    let mut tx = state.service_tx().await?;
    let account: Option<String> = sqlx::query_scalar(
        "select stripe_account_id from public.payment_accounts where user_id = $1",
    )
    .bind(user)
    .fetch_optional(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(account.filter(|a| !a.trim().is_empty()))
}

#[cfg(test)]
mod tests {
    use super::{Range, mask_email};
    use chrono::NaiveDate;

    #[test]
    fn buyers_are_masked() {
        assert_eq!(mask_email("john@example.com"), "j***@example.com");
        assert_eq!(mask_email("a@b.co"), "a***@b.co");
        assert_eq!(mask_email("élodie+x@mail.fr"), "é***@mail.fr");
        assert_eq!(mask_email("weird@name@host.test"), "w***@host.test");
        assert_eq!(mask_email("nobody"), "***");
    }

    #[test]
    fn ranges_start_on_their_buckets() {
        let day = |y, m, d| NaiveDate::from_ymd_opt(y, m, d).unwrap();
        // Saturday 28 November 2026.
        let today = day(2026, 11, 28);
        assert_eq!(Range::Days30.start(today), day(2026, 10, 30));
        // Monday of this week (23rd) less 12 weeks: 13 weekly bars.
        assert_eq!(Range::Days90.start(today), day(2026, 8, 31));
        assert_eq!(Range::Months12.start(today), day(2025, 12, 1));
        assert_eq!(Range::parse(""), Some(Range::Days30));
        assert_eq!(Range::parse("12m"), Some(Range::Months12));
        assert_eq!(Range::parse("1y"), None);
    }
}
