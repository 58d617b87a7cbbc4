//! The order queries more than one route shares: download links, marking
//! an order paid (webhook, provider check, simulated confirmation).

use sqlx::PgConnection;
use uuid::Uuid;

use crate::FunctionsState;
use crate::error::Result;
use crate::files::{
    FileLocation, PAID_FILES_BUCKET, PUBLIC_FILES_BUCKET, locate, public_url, web_link,
};

/// The page of the app that validates a token and offers the file.
pub fn secure_page(state: &FunctionsState, order_id: Uuid, token: &str) -> String {
    format!(
        "{}/download-secure/{order_id}?token={token}",
        state.config().site()
    )
}

/// What a template delivers, as stored: who made it, whether it is paid
/// now, its file (`template_file_url`, from `paid_template_links` when paid)
/// and its link (`template_url`, likewise).
#[derive(Debug, Clone)]
pub struct Deliverable {
    pub creator: Uuid,
    pub paid: bool,
    pub template_file_url: Option<String>,
    pub template_url: Option<String>,
}

/// The links of a template for one buyer: `now`, the link to follow at once
/// (a signed, expiring URL for a stored file, else the template's web link);
/// `durable`, the one an order may record (`orders.download_url`): a public
/// file's public URL or the web link, never a signed URL (it expires) and
/// never a private file's path.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Links {
    pub now: Option<String>,
    pub durable: Option<String>,
}

/// A template's links, derived here from what it stores and nothing a
/// caller sent: its file only when that is an object of the template's own
/// creator in a bucket its price allows ([`own_object`]), else its link only
/// when it is a web link ([`web_link`]: never `javascript:`, `data:`...).
/// `template_url` is never read as a stored file.
pub async fn links(
    state: &FunctionsState,
    conn: &mut PgConnection,
    template: &Deliverable,
) -> Result<Links> {
    if let Some(raw) = template.template_file_url.as_deref() {
        match locate(raw) {
            Some(FileLocation::Stored { bucket, name }) => {
                if let Some(public) = own_object(conn, template, &bucket, &name).await? {
                    let config = state.config();
                    let now = crate::files::signed_url(
                        state.jwt(),
                        config.api(),
                        &bucket,
                        &name,
                        crate::now_secs(),
                        config.download_url_expiry.as_secs().max(1) as i64,
                    );
                    return Ok(Links {
                        now: Some(now),
                        durable: public.then(|| public_url(config.api(), &bucket, &name)),
                    });
                }
                tracing::warn!(
                    %bucket, %name, creator = %template.creator,
                    "a template's file is not an object of its creator in a bucket its price allows; not handed out"
                );
            }
            _ => tracing::warn!(
                creator = %template.creator,
                "a template's file names no stored object; not handed out"
            ),
        }
    }
    let link = match template.template_url.as_deref() {
        Some(raw) => {
            let link = web_link(state.config().site(), raw);
            if link.is_none() {
                tracing::warn!(creator = %template.creator, "a template's link is not a web link; not handed out");
            }
            link
        }
        None => None,
    };
    Ok(Links {
        now: link.clone(),
        durable: link,
    })
}

/// Whether `bucket/name` may be handed out as `template`'s file: in the
/// public or the paid-files bucket (only the latter for a paid template),
/// under the creator's own folder with no empty, `.` or `..` part, and, when
/// stored, uploaded by that creator (or by the server). Only the creator may
/// write in that folder (policies/0100, 0110), so a name there that is not
/// stored yet is theirs too (its signed URL answers 404 until it is).
/// `Some(the bucket is public)` when it may, `None` otherwise. The database
/// refuses such rows already
/// (migrations/20261124000100_template_files_are_the_creators.sql); this is
/// the same rule where the link is signed.
async fn own_object(
    conn: &mut PgConnection,
    template: &Deliverable,
    bucket: &str,
    name: &str,
) -> Result<Option<bool>> {
    let bucket_allowed =
        bucket == PAID_FILES_BUCKET || (bucket == PUBLIC_FILES_BUCKET && !template.paid);
    let creator = template.creator.to_string();
    let in_own_folder = name.split('/').next() == Some(creator.as_str())
        && !name.contains('\\')
        && name
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..");
    if !bucket_allowed || !in_own_folder {
        return Ok(None);
    }
    let uploaded_by_creator: Option<bool> = sqlx::query_scalar(
        "select (o.owner is null or o.owner = $3) and (o.owner_id is null or o.owner_id = $3::text) \
           from storage.objects o where o.bucket_id = $1 and o.name = $2",
    )
    .bind(bucket)
    .bind(name)
    .bind(template.creator)
    .fetch_optional(&mut *conn)
    .await?;
    if uploaded_by_creator == Some(false) {
        return Ok(None);
    }
    let public: Option<bool> =
        sqlx::query_scalar("select public from storage.buckets where id = $1")
            .bind(bucket)
            .fetch_optional(&mut *conn)
            .await?;
    Ok(public)
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
