//! The marketplace's functions (`/functions/v1/{name}`), with the request
//! and response field names of the spec (section 7).

use std::collections::HashMap;

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use plinth_auth::Mail;
use sqlx::Row;
use sqlx::postgres::PgRow;
use uuid::Uuid;

use crate::caller::{Caller, ClientAddress};
use crate::error::{FunctionError, Result};
use crate::limits::Limited;
use crate::params::{Params, is_email, present};
use crate::provider::{PaymentRequest, PaymentState};
use crate::wire::{
    CreateFreeOrderRequest, CreateFreeOrderResponse, CreatePaymentIntentRequest,
    CreatePaymentIntentResponse, SubscribeToNewsletterRequest, SubscribeToNewsletterResponse,
    TrackTemplateViewRequest, TrackTemplateViewResponse, ValidateDownloadRequest,
    ValidateDownloadResponse,
};
use crate::{FunctionsState, orders, secrets};

const TEMPLATE_NOT_FOUND: &str = "Template not found";
const ORDER_NOT_FOUND: &str = "Order not found or you do not have access.";
const INVALID_LINK: &str = "Invalid or expired download link.";

fn not_found(message: &str) -> FunctionError {
    FunctionError::NotFound(message.into())
}

/// A UUID parameter; one that does not parse names nothing, so `missing`.
fn parse_id(text: &str, missing: &str) -> Result<Uuid> {
    text.parse().map_err(|_| not_found(missing))
}

// ------------------------------------------------------ track-template-view

/// `{template_id, ip_address, user_agent}` -> `{success, counted, total_views}`.
/// One view per visitor per template per `view_window`: the visitor is the
/// signed-in user, else the client's address as the server sees it (an IPv6
/// address by its /64), kept only as a keyed hash. What the request says of
/// itself (`ip_address`, `user_agent`, its headers) never makes another
/// visitor, except `ip_address` from the service role (a server of the
/// operator's tracking for a visitor). Past the address's budget: 429.
pub async fn track_template_view(
    State(state): State<FunctionsState>,
    caller: Caller,
    client: ClientAddress,
    body: Bytes,
) -> Result<Json<TrackTemplateViewResponse>> {
    state.limit(Limited::View, &caller, &client)?;
    let request: TrackTemplateViewRequest = Params::json(&body)?.into_request()?;
    let template_id = present(&request.template_id).ok_or_else(|| {
        FunctionError::BadRequest("Missing required parameter: template_id.".into())
    })?;
    let template_id = parse_id(template_id, TEMPLATE_NOT_FOUND)?;
    let visitor = match (caller.user_id(), request.ip_address) {
        (Some(user), _) => format!("user:{user}"),
        (None, Some(named)) if caller.role() == "service_role" => {
            format!("anon:{}", ClientAddress::new(named).key())
        }
        (None, _) => format!("anon:{}", client.key()),
    };
    let viewer_hash = secrets::hmac_hex(state.view_key(), visitor.as_bytes());
    let window = state.config().view_window.as_secs_f64();

    let mut tx = state.service_tx().await?;
    let published: Option<bool> =
        sqlx::query_scalar("select is_published from public.templates where id = $1")
            .bind(template_id)
            .fetch_optional(&mut *tx)
            .await?;
    if published != Some(true) {
        return Err(not_found(TEMPLATE_NOT_FOUND));
    }
    // Concurrent first views of one visitor count once.
    sqlx::query("select pg_advisory_xact_lock(hashtextextended($1::text || $2, 7))")
        .bind(template_id)
        .bind(&viewer_hash)
        .execute(&mut *tx)
        .await?;
    let counted = sqlx::query(
        "insert into public.template_views (template_id, viewer_hash, user_id) \
         select $1, $2, $3 \
          where not exists (select 1 from public.template_views \
                             where template_id = $1 and viewer_hash = $2 \
                               and created_at > now() - make_interval(secs => $4))",
    )
    .bind(template_id)
    .bind(&viewer_hash)
    .bind(caller.user_id())
    .bind(window)
    .execute(&mut *tx)
    .await?
    .rows_affected()
        == 1;
    let total_views: i32 = if counted {
        sqlx::query_scalar(
            "update public.templates set total_views = total_views + 1 where id = $1 \
             returning total_views",
        )
        .bind(template_id)
        .fetch_one(&mut *tx)
        .await?
    } else {
        sqlx::query_scalar("select total_views from public.templates where id = $1")
            .bind(template_id)
            .fetch_one(&mut *tx)
            .await?
    };
    tx.commit().await?;
    Ok(Json(TrackTemplateViewResponse {
        success: true,
        counted,
        total_views,
    }))
}

// -------------------------------------------------------- create-free-order

struct TemplateRow {
    title: String,
    price_in_cents: i32,
    is_published: bool,
    deliverable: orders::Deliverable,
    stripe_account_id: Option<String>,
}

/// What a template delivers, from its row and (paid) its kept links.
fn deliverable(row: &PgRow) -> sqlx::Result<orders::Deliverable> {
    Ok(orders::Deliverable {
        creator: row.try_get("creator")?,
        paid: row.try_get::<i32, _>("template_price_in_cents")? > 0,
        template_file_url: row.try_get("template_file_url")?,
        template_url: row.try_get("template_url")?,
    })
}

/// The columns [`deliverable`] reads, of `templates t` left-joined to
/// `paid_template_links l`.
macro_rules! deliverable_columns {
    () => {
        "t.user_id as creator, t.price_in_cents as template_price_in_cents, \
         coalesce(t.template_file_url, l.template_file_url) as template_file_url, \
         coalesce(t.template_url, l.template_url) as template_url"
    };
}

impl<'r> sqlx::FromRow<'r, PgRow> for TemplateRow {
    fn from_row(row: &'r PgRow) -> sqlx::Result<Self> {
        Ok(Self {
            title: row.try_get("title")?,
            price_in_cents: row.try_get("price_in_cents")?,
            is_published: row.try_get("is_published")?,
            deliverable: deliverable(row)?,
            stripe_account_id: row.try_get("stripe_account_id")?,
        })
    }
}

impl<'r> sqlx::FromRow<'r, PgRow> for OrderRow {
    fn from_row(row: &'r PgRow) -> sqlx::Result<Self> {
        Ok(Self {
            payment_status: row.try_get("payment_status")?,
            payment_intent_id: row.try_get("payment_intent_id")?,
            download_token_hash: row.try_get("download_token_hash")?,
            receipt_token_hash: row.try_get("receipt_token_hash")?,
            price_in_cents: row.try_get("price_in_cents")?,
            buyer_email: row.try_get("buyer_email")?,
            buyer_id: row.try_get("buyer_id")?,
            deliverable: deliverable(row)?,
        })
    }
}

async fn template(tx: &mut sqlx::PgConnection, id: Uuid) -> Result<TemplateRow> {
    // The creator's payment account is theirs and the server's only
    // (migrations/20261124000300_payment_accounts.sql).
    sqlx::query_as::<_, TemplateRow>(concat!(
        "select t.title, t.price_in_cents, t.is_published, a.stripe_account_id, ",
        deliverable_columns!(),
        " from public.templates t left join public.payment_accounts a on a.user_id = t.user_id \
          left join public.paid_template_links l on l.template_id = t.id \
         where t.id = $1",
    ))
    .bind(id)
    .fetch_optional(tx)
    .await?
    .filter(|t| t.is_published)
    .ok_or_else(|| not_found(TEMPLATE_NOT_FOUND))
}

/// `{product_id, buyer_email}` -> `{downloadUrl, orderId, emailSent}`, for
/// free published templates only. Records a `free` order once per e-mail
/// address and template (asking again reuses it: the download counts once,
/// every answer carries the download) and e-mails a link to the secure
/// download page when one is due ([`mail_download_link`]). Past the client
/// address's budget: 429.
pub async fn create_free_order(
    State(state): State<FunctionsState>,
    caller: Caller,
    client: ClientAddress,
    body: Bytes,
) -> Result<Json<CreateFreeOrderResponse>> {
    state.limit(Limited::FreeOrder, &caller, &client)?;
    let request: CreateFreeOrderRequest = Params::json(&body)?.into_request()?;
    let (Some(product_id), Some(email)) =
        (present(&request.product_id), present(&request.buyer_email))
    else {
        return Err(FunctionError::BadRequest(
            "Missing required parameters: product_id and/or buyer_email.".into(),
        ));
    };
    if !is_email(email) {
        return Err(FunctionError::BadRequest(
            "Please enter a valid email.".into(),
        ));
    }
    let email = email.to_owned();
    let product_id = parse_id(product_id, TEMPLATE_NOT_FOUND)?;
    let mut tx = state.service_tx().await?;
    let template = template(&mut tx, product_id).await?;
    if template.price_in_cents > 0 {
        return Err(FunctionError::BadRequest(
            "This template is not free; buy it through checkout.".into(),
        ));
    }
    let links = orders::links(&state, &mut tx, &template.deliverable).await?;
    let download_url = links
        .now
        .ok_or_else(|| not_found("No download available for this order."))?;
    let durable = links.durable;
    let token = secrets::new_token();
    // One order per e-mail address and template: asking again (in any letter
    // case) reuses it, so the download counts once.
    sqlx::query("select pg_advisory_xact_lock(hashtextextended($1::text || lower($2), 11))")
        .bind(product_id)
        .bind(&email)
        .execute(&mut *tx)
        .await?;
    let earlier: Option<Uuid> = sqlx::query_scalar(
        "select id from public.orders \
          where product_id = $1 and lower(buyer_email) = lower($2) and payment_status = 'free' \
          order by created_at limit 1",
    )
    .bind(product_id)
    .bind(&email)
    .fetch_optional(&mut *tx)
    .await?;
    let order_id = match earlier {
        Some(order_id) => {
            // The signed-in owner of the address finds it in their library.
            let owner = caller.user_id().filter(|_| {
                caller
                    .email()
                    .is_some_and(|e| e.eq_ignore_ascii_case(&email))
            });
            if let Some(owner) = owner {
                sqlx::query(
                    "update public.orders set buyer_id = $2 where id = $1 and buyer_id is null",
                )
                .bind(order_id)
                .bind(owner)
                .execute(&mut *tx)
                .await?;
            }
            order_id
        }
        None => {
            let order_id: Uuid = sqlx::query_scalar(
                "insert into public.orders (product_id, buyer_id, buyer_email, price_in_cents, currency, \
                                            payment_status, download_token_hash, download_url) \
                 values ($1, $2, $3, 0, $4, 'free', $5, $6) returning id",
            )
            .bind(product_id)
            .bind(caller.user_id())
            .bind(&email)
            .bind(&state.config().currency)
            .bind(secrets::token_hash(&token))
            .bind(&durable)
            .fetch_one(&mut *tx)
            .await?;
            sqlx::query(
                "update public.templates set downloads_count = downloads_count + 1 where id = $1",
            )
            .bind(product_id)
            .execute(&mut *tx)
            .await?;
            order_id
        }
    };
    tx.commit().await?;
    let email_sent = mail_download_link(&state, order_id, &email, &template.title, &token).await?;
    Ok(Json(CreateFreeOrderResponse {
        download_url,
        order_id,
        email_sent,
    }))
}

/// E-mails the lasting link of free order `order_id` (the site's secure
/// download page with `token`) unless it is not due: the order's link went
/// out within the window, or `email` got `emails_per_address` download
/// mails in it. `token`'s hash becomes the order's only with the mail, so a
/// link mailed before stays valid until a newer one is sent. `false` only
/// when a due mail could not be sent: a mail not due answers as sent, so the
/// answer tells nothing of what the address asked for before.
async fn mail_download_link(
    state: &FunctionsState,
    order_id: Uuid,
    email: &str,
    title: &str,
    token: &str,
) -> Result<bool> {
    let limits = &state.config().rate_limits;
    let mut tx = state.service_tx().await?;
    // One address's mails are decided one at a time (the cap counts them).
    sqlx::query("select pg_advisory_xact_lock(hashtextextended(lower($1), 12))")
        .bind(email)
        .execute(&mut *tx)
        .await?;
    let due = sqlx::query(
        "update public.orders o set download_mail_sent_at = now(), download_token_hash = $2 \
          where o.id = $1 \
            and (o.download_mail_sent_at is null \
                 or o.download_mail_sent_at <= now() - make_interval(secs => $3)) \
            and ($4::bigint = 0 \
                 or (select count(*) from public.orders m \
                      where lower(m.buyer_email) = lower($5) \
                        and m.download_mail_sent_at > now() - make_interval(secs => $3)) < $4)",
    )
    .bind(order_id)
    .bind(secrets::token_hash(token))
    .bind(limits.window.as_secs_f64())
    .bind(i64::from(limits.emails_per_address))
    .bind(email)
    .execute(&mut *tx)
    .await?
    .rows_affected()
        == 1;
    if !due {
        return Ok(true);
    }
    let link = orders::secure_page(state, order_id, token);
    let sent = state
        .mailer()
        .send(Mail {
            to: email.to_owned(),
            subject: format!("Your download: {title}"),
            text: format!(
                "Thank you for getting \"{title}\".\n\nDownload it here (the link is yours; keep it):\n{link}\n\nOrder: {order_id}\n"
            ),
        })
        .await;
    match sent {
        Ok(()) => {
            tx.commit().await?;
            Ok(true)
        }
        Err(e) => {
            // Rolled back: the order's earlier link (if any) stays valid and
            // the next request tries again.
            tracing::warn!(error = %e, %order_id, "free order: the download e-mail was not sent");
            Ok(false)
        }
    }
}

// ---------------------------------------------------- create-payment-intent

/// `{templateId, buyerEmail, buyerId?}` -> `{clientSecret, orderId,
/// downloadToken, provider, amount, currency[, confirmUrl]}` for paid
/// published templates. The amount is the template's `price_in_cents`; the
/// creator's connected account (when set) receives it less the platform fee.
pub async fn create_payment_intent(
    State(state): State<FunctionsState>,
    caller: Caller,
    body: Bytes,
) -> Result<Json<CreatePaymentIntentResponse>> {
    let request: CreatePaymentIntentRequest = Params::json(&body)?.into_request()?;
    let (Some(template_id), Some(email)) =
        (present(&request.template_id), present(&request.buyer_email))
    else {
        return Err(FunctionError::BadRequest(
            "Missing required parameters: templateId and/or buyerEmail.".into(),
        ));
    };
    if !is_email(email) {
        return Err(FunctionError::BadRequest(
            "Please enter a valid email.".into(),
        ));
    }
    let email = email.to_owned();
    // The buyer is who signed in; a buyerId naming someone else is refused,
    // one without a session is ignored (a guest purchase).
    let buyer_id = caller.user_id();
    if let (Some(claimed), Some(user)) = (request.buyer_id.as_deref(), buyer_id)
        && claimed != user.to_string()
    {
        return Err(FunctionError::Forbidden(
            "buyerId does not match the signed-in user.".into(),
        ));
    }
    let template_id = parse_id(template_id, TEMPLATE_NOT_FOUND)?;
    let mut tx = state.service_tx().await?;
    let template = template(&mut tx, template_id).await?;
    if template.price_in_cents <= 0 {
        return Err(FunctionError::BadRequest(
            "This template is free; use create-free-order.".into(),
        ));
    }
    let amount = i64::from(template.price_in_cents);
    let currency = state.config().currency.clone();
    let token = secrets::new_token();
    let order_id: Uuid = sqlx::query_scalar(
        "insert into public.orders (product_id, buyer_id, buyer_email, price_in_cents, currency, \
                                    payment_status, download_token_hash) \
         values ($1, $2, $3, $4, $5, 'pending', $6) returning id",
    )
    .bind(template_id)
    .bind(buyer_id)
    .bind(&email)
    .bind(template.price_in_cents)
    .bind(&currency)
    .bind(secrets::token_hash(&token))
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;

    let destination = template.stripe_account_id.clone().filter(|a| !a.is_empty());
    let request = PaymentRequest {
        amount,
        currency: currency.clone(),
        application_fee: destination.as_ref().map(|_| state.config().fee_for(amount)),
        destination,
        receipt_email: email.clone(),
        description: format!("Template: {}", template.title),
        metadata: HashMap::from([
            ("order_id".to_owned(), order_id.to_string()),
            ("template_id".to_owned(), template_id.to_string()),
            ("buyer_email".to_owned(), email.clone()),
        ]),
    };
    let payment = match state.provider().create_payment(&request).await {
        Ok(payment) => payment,
        Err(e) => {
            let mut tx = state.service_tx().await?;
            sqlx::query("update public.orders set payment_status = 'failed' where id = $1")
                .bind(order_id)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            return Err(FunctionError::Provider {
                message: "Failed to initiate payment.".into(),
                cause: e.0,
            });
        }
    };
    let mut tx = state.service_tx().await?;
    sqlx::query("update public.orders set payment_intent_id = $2 where id = $1")
        .bind(order_id)
        .bind(&payment.id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;

    let confirm_url = state.simulated().is_some().then(|| {
        format!(
            "{}/api/simulated-payments/{}?client_secret={}",
            state.config().api(),
            payment.id,
            payment.client_secret
        )
    });
    Ok(Json(CreatePaymentIntentResponse {
        client_secret: payment.client_secret,
        order_id,
        download_token: token,
        provider: state.provider_name().to_owned(),
        amount,
        currency,
        confirm_url,
    }))
}

// -------------------------------------------------------- validate-download

struct OrderRow {
    payment_status: String,
    payment_intent_id: Option<String>,
    download_token_hash: Option<String>,
    receipt_token_hash: Option<String>,
    price_in_cents: i32,
    buyer_email: String,
    buyer_id: Option<Uuid>,
    deliverable: orders::Deliverable,
}

/// `{orderId, token}` -> `{downloadUrl, isPaid, price_in_cents,
/// buyer_email, orderId}`; 402 while the payment is not confirmed, 403 for
/// a token that is not this order's.
pub async fn validate_download(
    State(state): State<FunctionsState>,
    caller: Caller,
    body: Bytes,
) -> Result<Json<ValidateDownloadResponse>> {
    let request: ValidateDownloadRequest = Params::json(&body)?.into_request()?;
    let token = request.token.as_deref().and_then(present);
    // The token opens the order for whoever holds the link; the order's
    // signed-in buyer needs none (their library's download page).
    let buyer = caller.user_id();
    let order_id = present(&request.order_id)
        .filter(|_| token.is_some() || buyer.is_some())
        .ok_or_else(|| FunctionError::BadRequest("Missing order ID or token.".into()))?;
    let order_id = parse_id(order_id, ORDER_NOT_FOUND)?;
    let mut tx = state.service_tx().await?;
    let order = sqlx::query_as::<_, OrderRow>(concat!(
        "select o.payment_status, o.payment_intent_id, o.download_token_hash, \
                o.receipt_token_hash, o.price_in_cents, o.buyer_email, o.buyer_id, ",
        deliverable_columns!(),
        " from public.orders o join public.templates t on t.id = o.product_id \
          left join public.paid_template_links l on l.template_id = t.id \
         where o.id = $1",
    ))
    .bind(order_id)
    .fetch_optional(&mut *tx)
    .await?
    .ok_or_else(|| not_found(ORDER_NOT_FOUND))?;
    let token_ok = match token {
        Some(token) => {
            secrets::token_matches(token, order.download_token_hash.as_deref())
                | secrets::token_matches(token, order.receipt_token_hash.as_deref())
        }
        None => buyer.is_some() && order.buyer_id == buyer,
    };
    if !token_ok {
        return Err(FunctionError::Forbidden(INVALID_LINK.into()));
    }
    // Derived now, handed out only once the order is paid (or free).
    let links = orders::links(&state, &mut tx, &order.deliverable).await?;
    tx.commit().await?;
    let mut status = order.payment_status.clone();
    if status != "paid" && status != "free" {
        // No webhook yet? Ask the provider (no transaction held meanwhile).
        if let Some(intent) = &order.payment_intent_id {
            match state.provider().payment_state(intent).await {
                Ok(PaymentState::Succeeded) => {
                    let mut tx = state.service_tx().await?;
                    orders::mark_paid(&mut tx, intent, Some(order_id), None).await?;
                    tx.commit().await?;
                    status = "paid".into();
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e.0, %order_id, "payment state unknown"),
            }
        }
    }
    if status != "paid" && status != "free" {
        return Err(FunctionError::PaymentRequired);
    }
    if status == "paid" && links.now.is_some() {
        count_paid_download(&state, order_id).await?;
    }
    Ok(Json(ValidateDownloadResponse {
        download_url: links.now,
        is_paid: true,
        price_in_cents: order.price_in_cents,
        buyer_email: order.buyer_email,
        order_id,
    }))
}

/// Counts the first download of paid order `order_id` in its template's
/// `downloads_count`, where free orders are counted (create-free-order counts
/// a free order when it is made): once per order, however often the buyer
/// opens it, marked by `orders.download_counted_at`.
async fn count_paid_download(state: &FunctionsState, order_id: Uuid) -> Result<()> {
    let mut tx = state.service_tx().await?;
    let first: Option<Uuid> = sqlx::query_scalar(
        "update public.orders set download_counted_at = now() \
          where id = $1 and payment_status = 'paid' and download_counted_at is null \
         returning product_id",
    )
    .bind(order_id)
    .fetch_optional(&mut *tx)
    .await?;
    if let Some(product_id) = first {
        sqlx::query(
            "update public.templates set downloads_count = downloads_count + 1 where id = $1",
        )
        .bind(product_id)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

// -------------------------------------------------- subscribe-to-newsletter

/// `{email, name}` (`Name` too) -> `{success}`; one row per e-mail address,
/// case-insensitively. A new address and one already subscribed get the same
/// answer after the same statement (GoTrue's sign-up does the same), and a
/// known subscriber's name is left as it was.
pub async fn subscribe_to_newsletter(
    State(state): State<FunctionsState>,
    caller: Caller,
    client: ClientAddress,
    body: Bytes,
) -> Result<Json<SubscribeToNewsletterResponse>> {
    state.limit(Limited::Newsletter, &caller, &client)?;
    let request: SubscribeToNewsletterRequest = Params::json(&body)?.into_request()?;
    let name = present(&request.name).or_else(|| present(&request.legacy_name));
    let (Some(email), Some(name)) = (present(&request.email), name) else {
        return Err(FunctionError::BadRequest(
            "Missing required parameters: email and/or name.".into(),
        ));
    };
    if !is_email(email) {
        return Err(FunctionError::BadRequest(
            "Please enter a valid email.".into(),
        ));
    }
    let mut tx = state.service_tx().await?;
    sqlx::query(
        "insert into public.newsletter_subscribers (email, name) values ($1, $2) \
         on conflict (lower(email)) do nothing",
    )
    .bind(email)
    .bind(name)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Json(SubscribeToNewsletterResponse { success: true }))
}
