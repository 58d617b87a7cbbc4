//! The marketplace's `/api/...` routes: the receipt e-mail, Stripe Connect
//! onboarding, the payment webhook, and the simulated provider's local
//! confirmation page.

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::response::{Html, IntoResponse, Redirect, Response};
use plinth_auth::Mail;
use serde::Deserialize;
use serde_json::Value;
use uuid::Uuid;

use crate::caller::Caller;
use crate::error::{FunctionError, Result};
use crate::pages::html_escape;
use crate::params::{Params, present};
use crate::wire::{
    PaidDownloadConfirmationRequest, PaidDownloadConfirmationResponse, SimulatedConfirmRequest,
    SimulatedConfirmResponse, StripeConnectRequest, StripeConnectResponse,
    UpdateStripeAccountRequest, UpdateStripeAccountResponse, WebhookResponse,
};
use crate::{Confirmation, FunctionsState, now_secs, orders, secrets};

const ORDER_NOT_FOUND: &str = "Order not found or you do not have access.";
const MUST_SIGN_IN: &str = "You must be logged in to connect your Stripe account.";
const ACCOUNT_FAILED: &str = "Could not update Stripe account. Please try again.";

// ------------------------------------------------ paid-download-confirmation

/// `{orderId, email}`: e-mails the receipt of a paid (or free) order to its
/// buyer with a download link of its own, once per order. The e-mail must be
/// the order's; an order not paid yet is a 402.
pub async fn paid_download_confirmation(
    State(state): State<FunctionsState>,
    body: Bytes,
) -> Result<Json<PaidDownloadConfirmationResponse>> {
    let request: PaidDownloadConfirmationRequest = Params::json(&body)?.into_request()?;
    let Some(order_id) = present(&request.order_id) else {
        return Err(FunctionError::BadRequest("Missing order ID.".into()));
    };
    let Some(email) = present(&request.email) else {
        return Err(FunctionError::BadRequest("Please enter your email.".into()));
    };
    let order_id: Uuid = order_id
        .parse()
        .map_err(|_| FunctionError::NotFound(ORDER_NOT_FOUND.into()))?;
    let mut tx = state.service_tx().await?;
    let order: Option<(String, String, i32, String, String)> = sqlx::query_as(
        "select o.buyer_email, o.payment_status, o.price_in_cents, o.currency, t.title \
           from public.orders o join public.templates t on t.id = o.product_id where o.id = $1",
    )
    .bind(order_id)
    .fetch_optional(&mut *tx)
    .await?;
    let Some((buyer_email, status, price, currency, title)) =
        order.filter(|o| o.0.eq_ignore_ascii_case(email))
    else {
        return Err(FunctionError::NotFound(ORDER_NOT_FOUND.into()));
    };
    if status != "paid" && status != "free" {
        return Err(FunctionError::PaymentRequired);
    }
    let token = secrets::new_token();
    let claimed = sqlx::query(
        "update public.orders set receipt_sent_at = now(), receipt_token_hash = $2 \
          where id = $1 and receipt_sent_at is null",
    )
    .bind(order_id)
    .bind(secrets::token_hash(&token))
    .execute(&mut *tx)
    .await?
    .rows_affected()
        == 1;
    if !claimed {
        return Ok(Json(PaidDownloadConfirmationResponse {
            success: true,
            sent: false,
            already_sent: true,
        }));
    }
    let link = orders::secure_page(&state, order_id, &token);
    let amount = format!(
        "{}.{:02} {}",
        price / 100,
        price % 100,
        currency.to_uppercase()
    );
    state
        .mailer()
        .send(Mail {
            to: buyer_email,
            subject: format!("Your receipt: {title}"),
            text: format!(
                "Thank you for your purchase of \"{title}\".\n\nOrder: {order_id}\nAmount paid: {amount}\n\n\
                 Download your template here:\n{link}\n"
            ),
        })
        .await
        .map_err(|e| FunctionError::internal(format!("receipt e-mail: {e}")))?;
    // Committed only once the mail went out: a failed send can be retried.
    tx.commit().await?;
    Ok(Json(PaidDownloadConfirmationResponse {
        success: true,
        sent: true,
        already_sent: false,
    }))
}

// ---------------------------------------------------------- Stripe Connect

/// The signed-in user, who must be `userId`.
fn own_account(caller: &Caller, user_id: &str) -> Result<Uuid> {
    let user = caller
        .user_id()
        .ok_or_else(|| FunctionError::Unauthorized(MUST_SIGN_IN.into()))?;
    let Some(claimed) = present(user_id) else {
        return Err(FunctionError::BadRequest("Missing userId.".into()));
    };
    if claimed != user.to_string() {
        return Err(FunctionError::Forbidden(
            "You can only manage your own payment account.".into(),
        ));
    }
    Ok(user)
}

/// `{userId}` -> `{url}`: an onboarding link for the caller's connected
/// account, created (and stored, flagged until onboarding completes) on
/// first use. The return URL carries `stripe_account={id}`.
pub async fn connect(
    State(state): State<FunctionsState>,
    caller: Caller,
    body: Bytes,
) -> Result<Json<StripeConnectResponse>> {
    let request: StripeConnectRequest = Params::json(&body)?.into_request()?;
    let user = own_account(&caller, &request.user_id)?;
    // The account is kept in `payment_accounts`, which only its owner reads
    // (migrations/20261124000300_payment_accounts.sql), not in the profile.
    let mut tx = state.service_tx().await?;
    let existing: Option<Option<String>> = sqlx::query_scalar(
        "select a.stripe_account_id from public.profiles p \
           left join public.payment_accounts a on a.user_id = p.id where p.id = $1",
    )
    .bind(user)
    .fetch_optional(&mut *tx)
    .await?;
    tx.commit().await?;
    let existing = existing.ok_or_else(|| FunctionError::NotFound("Profile Not Found".into()))?;
    let provider_error = |e: crate::ProviderError| FunctionError::Provider {
        message: "Something went wrong. Please try again.".into(),
        cause: e.0,
    };
    let account = match existing.filter(|a| !a.is_empty()) {
        Some(account) => account,
        None => {
            let account = state
                .provider()
                .create_account(&user.to_string(), caller.email())
                .await
                .map_err(provider_error)?;
            let mut tx = state.service_tx().await?;
            sqlx::query(
                "insert into public.payment_accounts (user_id, stripe_account_id, stripe_account_issue) \
                 values ($1, $2, true) \
                 on conflict (user_id) do update \
                   set stripe_account_id = excluded.stripe_account_id, stripe_account_issue = true",
            )
            .bind(user)
            .bind(&account)
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            account
        }
    };
    let base = state.config().return_url();
    let separator = if base.contains('?') { '&' } else { '?' };
    let return_url = format!("{base}{separator}stripe_account={account}");
    let url = state
        .provider()
        .account_link(&account, &state.config().refresh_url(), &return_url)
        .await
        .map_err(provider_error)?;
    Ok(Json(StripeConnectResponse { url }))
}

/// `{userId, stripeAccountId}`: stores the connected account after
/// onboarding, when the provider confirms it was made for this user; the
/// issue flag follows whether it can take charges.
pub async fn update_stripe_account(
    State(state): State<FunctionsState>,
    caller: Caller,
    body: Bytes,
) -> Result<Json<UpdateStripeAccountResponse>> {
    let request: UpdateStripeAccountRequest = Params::json(&body)?.into_request()?;
    let user = own_account(&caller, &request.user_id)?;
    let account = present(&request.stripe_account_id)
        .ok_or_else(|| FunctionError::BadRequest("Missing stripeAccountId.".into()))?
        .to_owned();
    let found = state
        .provider()
        .account_state(&account)
        .await
        .map_err(|e| FunctionError::Provider {
            message: ACCOUNT_FAILED.into(),
            cause: e.0,
        })?;
    let Some(found) = found else {
        return Err(FunctionError::BadRequest(ACCOUNT_FAILED.into()));
    };
    if found.user_id.as_deref() != Some(user.to_string().as_str()) {
        return Err(FunctionError::Forbidden(ACCOUNT_FAILED.into()));
    }
    let mut tx = state.service_tx().await?;
    let updated = sqlx::query(
        "insert into public.payment_accounts (user_id, stripe_account_id, stripe_account_issue) \
         select p.id, $2, $3 from public.profiles p where p.id = $1 \
         on conflict (user_id) do update \
           set stripe_account_id = excluded.stripe_account_id, \
               stripe_account_issue = excluded.stripe_account_issue",
    )
    .bind(user)
    .bind(&account)
    .bind(!found.ready)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    tx.commit().await?;
    if updated == 0 {
        return Err(FunctionError::NotFound("Profile Not Found".into()));
    }
    Ok(Json(UpdateStripeAccountResponse {
        success: true,
        stripe_account_id: account,
        ready: found.ready,
    }))
}

// ----------------------------------------------------------------- webhook

/// Stripe's events, signed with the endpoint's `whsec_` secret:
/// `payment_intent.succeeded` marks its order paid (once; the amount must be
/// the order's), `payment_intent.payment_failed` / `.canceled` mark a
/// pending order failed; other events are acknowledged and ignored.
pub async fn webhook(
    State(state): State<FunctionsState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<WebhookResponse>> {
    let secret = state
        .config()
        .stripe_webhook_secret
        .clone()
        .filter(|s| !s.is_empty())
        .ok_or_else(|| FunctionError::Unavailable("The webhook is not configured.".into()))?;
    let signature = headers
        .get("stripe-signature")
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| FunctionError::BadRequest("Missing Stripe-Signature header.".into()))?;
    secrets::verify_webhook(signature, &body, &secret, now_secs()).map_err(|e| {
        tracing::warn!(error = %e, "webhook refused");
        FunctionError::BadRequest("Invalid signature.".into())
    })?;
    let event: Value = serde_json::from_slice(&body)
        .map_err(|_| FunctionError::BadRequest("Invalid JSON body".into()))?;
    let kind = event
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let object = &event["data"]["object"];
    let intent = object.get("id").and_then(Value::as_str);
    let mut tx = state.service_tx().await?;
    let updated = match (kind, intent) {
        ("payment_intent.succeeded", Some(intent)) => {
            let hint = object["metadata"]["order_id"]
                .as_str()
                .and_then(|s| s.parse::<Uuid>().ok());
            let amount = object
                .get("amount_received")
                .and_then(Value::as_i64)
                .or_else(|| object.get("amount").and_then(Value::as_i64));
            let ids = orders::mark_paid(&mut tx, intent, hint, amount).await?;
            if ids.is_empty() {
                tracing::info!(%intent, "payment_intent.succeeded: no pending order (redelivery?)");
            }
            ids.len()
        }
        ("payment_intent.payment_failed" | "payment_intent.canceled", Some(intent)) => {
            orders::mark_failed(&mut tx, intent).await? as usize
        }
        _ => 0,
    };
    tx.commit().await?;
    Ok(Json(WebhookResponse {
        received: true,
        updated: u32::try_from(updated).unwrap_or(u32::MAX),
    }))
}

// ------------------------------------------------------ simulated payments

#[derive(Debug, Deserialize)]
pub struct PageQuery {
    client_secret: Option<String>,
    return_url: Option<String>,
}

fn no_simulation() -> FunctionError {
    FunctionError::NotFound("Not found".into())
}

/// The local "card form" of a simulated payment: its amount and a Pay button.
pub async fn simulated_page(
    State(state): State<FunctionsState>,
    Path(id): Path<String>,
    Query(query): Query<PageQuery>,
) -> Result<Html<String>> {
    let simulated = state.simulated().ok_or_else(no_simulation)?;
    let (amount, currency, status) = simulated
        .describe(&id)
        .await
        .map_err(|e| FunctionError::internal(e.0))?
        .ok_or_else(no_simulation)?;
    let secret = html_escape(query.client_secret.as_deref().unwrap_or_default());
    // Only a target the confirmation would follow is carried on.
    let return_url = query
        .return_url
        .as_deref()
        .and_then(|target| same_site_target(target, state.config().site()))
        .unwrap_or_default();
    let return_url = html_escape(&return_url);
    let action = html_escape(&format!(
        "{}/api/simulated-payments/{id}/confirm",
        state.config().api()
    ));
    let amount = format!(
        "{}.{:02} {}",
        amount / 100,
        amount % 100,
        currency.to_uppercase()
    );
    Ok(Html(format!(
        "<!doctype html><meta charset=utf-8><title>Simulated payment</title>\
         <h1>Simulated payment</h1>\
         <p>No card is charged: this server has no STRIPE_SECRET_KEY.</p>\
         <p>Amount: <strong>{amount}</strong> &middot; status: {status}</p>\
         <form method=post action=\"{action}\">\
         <input type=hidden name=client_secret value=\"{secret}\">\
         <input type=hidden name=return_url value=\"{return_url}\">\
         <button type=submit>Pay &amp; Download</button></form>",
        status = html_escape(&status),
    )))
}

/// Confirms a simulated payment (`{client_secret[, return_url,
/// card_number]}` as JSON or a form) and marks its order paid, as Stripe's
/// webhook would; a declined test card ([`crate::test_card`]) marks the
/// order failed instead and answers 402 with Stripe's card error. Answers
/// `{status, orderId}`, or redirects (303) to `return_url` resolved against
/// the site when it stays on the site ([`same_site_target`]), else to the
/// site's home page.
pub async fn simulated_confirm(
    State(state): State<FunctionsState>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response> {
    let simulated = state.simulated().ok_or_else(no_simulation)?;
    let request: SimulatedConfirmRequest = Params::json_or_form(&body)?.into_request()?;
    let secret = present(&request.client_secret)
        .ok_or_else(|| FunctionError::BadRequest("Missing client_secret.".into()))?;
    let confirmation = simulated
        .confirm(&id, secret, request.card_number.as_deref())
        .await
        .map_err(|e| FunctionError::internal(e.0))?;
    match confirmation {
        Confirmation::Succeeded => {}
        Confirmation::Declined(decline) => {
            // As Stripe's `payment_intent.payment_failed` webhook would: the
            // order is failed (unpaid; another card may still pay it), and
            // the browser gets Stripe's 402 card error.
            let mut tx = state.service_tx().await?;
            orders::mark_failed(&mut tx, &id).await?;
            tx.commit().await?;
            return Err(FunctionError::CardDeclined(decline));
        }
        Confirmation::Refused => {
            return Err(FunctionError::Forbidden(
                "Invalid payment confirmation.".into(),
            ));
        }
    }
    let mut tx = state.service_tx().await?;
    orders::mark_paid(&mut tx, &id, None, None).await?;
    let order: Option<Uuid> =
        sqlx::query_scalar("select id from public.orders where payment_intent_id = $1")
            .bind(&id)
            .fetch_optional(&mut *tx)
            .await?;
    tx.commit().await?;
    if let Some(target) = request.return_url {
        let site = state.config().site();
        let to = same_site_target(&target, site).unwrap_or_else(|| format!("{site}/"));
        return Ok(Redirect::to(&to).into_response());
    }
    Ok(Json(SimulatedConfirmResponse {
        status: "succeeded".into(),
        order_id: order,
    })
    .into_response())
}

/// The absolute URL a browser sent to `target` lands on, when that stays on
/// the site (`site`: its origin, e.g. `https://shop.example`): a path of the
/// site (one leading `/`) or an `http(s)` URL of the site's own origin
/// without credentials. Refused whole (`None`): anything that a browser
/// could read differently from this parser, i.e. a control or blank
/// character (browsers drop tabs and newlines inside URLs), a backslash (read
/// as `/`: `/\host` is `//host`), either of them percent-encoded, and a
/// path whose decoded form starts with `//` (another host).
pub(crate) fn same_site_target(target: &str, site: &str) -> Option<String> {
    let site = url::Url::parse(&format!("{}/", site.trim_end_matches('/'))).ok()?;
    let decoded = percent_encoding::percent_decode_str(target).decode_utf8_lossy();
    let tricky = |text: &str| {
        text.chars()
            .any(|c| c.is_control() || c.is_whitespace() || c == '\\')
    };
    if tricky(target) || tricky(&decoded) {
        return None;
    }
    let resolved = if target.starts_with('/') {
        if target.starts_with("//") || decoded.starts_with("//") {
            return None;
        }
        site.join(target).ok()?
    } else {
        url::Url::parse(target).ok()?
    };
    let on_site = matches!(resolved.scheme(), "http" | "https")
        && resolved.origin() == site.origin()
        && resolved.username().is_empty()
        && resolved.password().is_none();
    on_site.then(|| resolved.to_string())
}

#[cfg(test)]
mod tests {
    use super::same_site_target;

    #[test]
    fn only_targets_on_the_site_are_followed() {
        let site = "https://shop.example";
        for (target, landed) in [
            ("/", "https://shop.example/"),
            (
                "/download-secure/o?token=a%2Fb#x",
                "https://shop.example/download-secure/o?token=a%2Fb#x",
            ),
            ("/a/../b", "https://shop.example/b"),
            (
                "https://shop.example/library",
                "https://shop.example/library",
            ),
            ("HTTPS://SHOP.EXAMPLE/x", "https://shop.example/x"),
        ] {
            assert_eq!(
                same_site_target(target, site).as_deref(),
                Some(landed),
                "{target:?}"
            );
        }
        for target in [
            "//evil.example",
            "/\\evil.example",
            "\\\\evil.example",
            "/\t/evil.example",
            "/\n/evil.example",
            " /x",
            "/%09/evil.example",
            "/%5cevil.example",
            "/%2F/evil.example",
            "/%2f%2fevil.example",
            "https://evil.example/",
            "https:evil.example",
            "http://shop.example/",
            "https://shop.example:444/",
            "https://shop.example@evil.example/",
            "https://user@shop.example/",
            "https://shop.example.evil.example/",
            "javascript:alert(1)",
            "data:text/html,x",
            "evil.example",
            "./x",
            "",
            "/x\u{0}",
            "/x\u{7f}",
            "/x\u{a0}",
            "/x\u{2028}",
        ] {
            assert_eq!(same_site_target(target, site), None, "{target:?}");
        }
    }
}
