//! The order queries more than one route shares: download links, marking
//! an order paid (webhook, provider check, simulated confirmation).

use sqlx::PgConnection;
use uuid::Uuid;

use crate::FunctionsState;
use crate::error::Result;
use crate::files::{FileLocation, locate};

/// The page of the app that validates a token and offers the file.
pub fn secure_page(state: &FunctionsState, order_id: Uuid, token: &str) -> String {
    format!(
        "{}/download-secure/{order_id}?token={token}",
        state.config().site()
    )
}

/// What a buyer may download for a template: a signed, expiring URL when the
/// file is in storage, the URL itself when it is elsewhere, else the
/// template's link (`template_url`); `None` when there is nothing.
pub fn download_link(
    state: &FunctionsState,
    template_file_url: Option<&str>,
    template_url: Option<&str>,
) -> Option<String> {
    let location = template_file_url
        .and_then(locate)
        .or_else(|| template_url.and_then(locate))?;
    Some(match location {
        FileLocation::Stored { bucket, name } => crate::files::signed_url(
            state.jwt(),
            state.config().api(),
            &bucket,
            &name,
            crate::now_secs(),
            state.config().download_url_expiry.as_secs().max(1) as i64,
        ),
        FileLocation::External(url) => url,
    })
}

/// The durable link recorded in `orders.download_url`: only a file anyone
/// may read anyway (a public bucket, or elsewhere). Never a signed URL (it
/// expires) and never a private file's path.
pub async fn durable_link(
    conn: &mut PgConnection,
    template_file_url: Option<&str>,
) -> Result<Option<String>> {
    let Some(raw) = template_file_url else {
        return Ok(None);
    };
    match locate(raw) {
        Some(FileLocation::Stored { bucket, .. }) => {
            let public: Option<bool> =
                sqlx::query_scalar("select public from storage.buckets where id = $1")
                    .bind(&bucket)
                    .fetch_optional(conn)
                    .await?;
            Ok((public == Some(true)).then(|| raw.to_owned()))
        }
        Some(FileLocation::External(url)) => Ok(Some(url)),
        None => Ok(None),
    }
}

/// Marks the order of payment `intent_id` paid (or, when no order carries
/// the id yet, order `order_hint` without one). Only a `pending` or `failed`
/// order moves, and only when `amount` (when known) is what it costs: the
/// ids of the orders that changed (none on a redelivery).
pub async fn mark_paid(
    conn: &mut PgConnection,
    intent_id: &str,
    order_hint: Option<Uuid>,
    amount: Option<i64>,
) -> Result<Vec<Uuid>> {
    let ids = sqlx::query_scalar(
        "update public.orders set payment_status = 'paid', paid_at = now(), \
                payment_intent_id = $1 \
          where (payment_intent_id = $1 or (id = $2 and payment_intent_id is null)) \
            and payment_status in ('pending', 'failed') \
            and ($3::bigint is null or price_in_cents = $3) \
         returning id",
    )
    .bind(intent_id)
    .bind(order_hint)
    .bind(amount)
    .fetch_all(conn)
    .await?;
    Ok(ids)
}

/// Marks the pending order of payment `intent_id` failed.
pub async fn mark_failed(conn: &mut PgConnection, intent_id: &str) -> Result<u64> {
    let done = sqlx::query(
        "update public.orders set payment_status = 'failed' \
          where payment_intent_id = $1 and payment_status = 'pending'",
    )
    .bind(intent_id)
    .execute(conn)
    .await?;
    Ok(done.rows_affected())
}
