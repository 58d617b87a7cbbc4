//! The request and response bodies of the functions (`/functions/v1/{name}`)
//! and the `/api/...` routes, field for field as they travel (spec, section
//! 7): camelCase where the spec says `clientSecret`, `orderId`, …,
//! snake_case where it says `template_id`, `price_in_cents`, ….
//!
//! `#[typeshare]` marks what `sdk-ts/src/functions-types.ts` is generated
//! from (`scripts/gen`, bin `typeshare-gen`; a test fails when that file is
//! stale). Change the wire here, never there.
//!
//! Requests are read leniently, as they always were: a missing, `null`,
//! blank or non-string field reads as absent (an empty `String`, or `None`)
//! and the handler answers the 400 that names it. Optional response fields
//! are left out when they have no value.

use serde::{Deserialize, Serialize};
use typeshare::typeshare;
use uuid::Uuid;

use crate::params::{lenient_optional_text, lenient_text};

// ------------------------------------------------------ track-template-view

/// `POST /functions/v1/track-template-view`.
#[typeshare]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TrackTemplateViewRequest {
    #[serde(deserialize_with = "lenient_text")]
    pub template_id: String,
    /// The visitor's address when the caller knows it better than the
    /// request does; else `X-Forwarded-For` / `X-Real-IP`.
    #[serde(
        deserialize_with = "lenient_optional_text",
        skip_serializing_if = "Option::is_none"
    )]
    #[typeshare(typescript(type = "string | null"))]
    pub ip_address: Option<String>,
    /// Else the request's `User-Agent`.
    #[serde(
        deserialize_with = "lenient_optional_text",
        skip_serializing_if = "Option::is_none"
    )]
    #[typeshare(typescript(type = "string | null"))]
    pub user_agent: Option<String>,
}

#[typeshare]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrackTemplateViewResponse {
    pub success: bool,
    /// Whether this call counted (once per visitor per template per window).
    pub counted: bool,
    pub total_views: i32,
}

// -------------------------------------------------------- create-free-order

/// `POST /functions/v1/create-free-order`: free published templates only.
#[typeshare]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CreateFreeOrderRequest {
    /// The template's id.
    #[serde(deserialize_with = "lenient_text")]
    pub product_id: String,
    #[serde(deserialize_with = "lenient_text")]
    pub buyer_email: String,
}

#[typeshare]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateFreeOrderResponse {
    /// The file now (a signed, expiring URL for a stored file).
    pub download_url: String,
    pub order_id: Uuid,
    /// Whether the e-mail with the lasting download page went out.
    pub email_sent: bool,
}

// ---------------------------------------------------- create-payment-intent

/// `POST /functions/v1/create-payment-intent`: paid published templates.
/// The amount is the template's price in the database; a price sent here is
/// ignored.
#[typeshare]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CreatePaymentIntentRequest {
    #[serde(deserialize_with = "lenient_text")]
    pub template_id: String,
    #[serde(deserialize_with = "lenient_text")]
    pub buyer_email: String,
    /// Must be the signed-in user when given; ignored without a session.
    #[serde(
        deserialize_with = "lenient_optional_text",
        skip_serializing_if = "Option::is_none"
    )]
    pub buyer_id: Option<String>,
}

#[typeshare]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreatePaymentIntentResponse {
    /// For Stripe.js `confirmCardPayment` (or the simulated confirmation).
    pub client_secret: String,
    pub order_id: Uuid,
    /// Opens this order's download once it is paid; shown once.
    pub download_token: String,
    /// `stripe` or `simulated`.
    pub provider: String,
    /// In the currency's smallest unit.
    #[typeshare(serialized_as = "I54")]
    pub amount: i64,
    pub currency: String,
    /// The simulated provider's local payment page (simulated only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confirm_url: Option<String>,
}

// -------------------------------------------------------- validate-download

/// `POST /functions/v1/validate-download`.
#[typeshare]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ValidateDownloadRequest {
    #[serde(deserialize_with = "lenient_text")]
    pub order_id: String,
    /// The order's download token (or its receipt's). Not needed by the
    /// order's signed-in buyer, who is recognised by their session.
    #[serde(
        deserialize_with = "lenient_optional_text",
        skip_serializing_if = "Option::is_none"
    )]
    pub token: Option<String>,
}

/// 402 (`isPaid: false`) while the payment is not confirmed.
#[typeshare]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValidateDownloadResponse {
    /// Absent when the template has no file and no link.
    #[serde(rename = "downloadUrl", skip_serializing_if = "Option::is_none")]
    pub download_url: Option<String>,
    #[serde(rename = "isPaid")]
    pub is_paid: bool,
    pub price_in_cents: i32,
    pub buyer_email: String,
    #[serde(rename = "orderId")]
    pub order_id: Uuid,
}

// -------------------------------------------------- subscribe-to-newsletter

/// `POST /functions/v1/subscribe-to-newsletter`.
#[typeshare]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SubscribeToNewsletterRequest {
    #[serde(deserialize_with = "lenient_text")]
    pub email: String,
    #[serde(deserialize_with = "lenient_text")]
    pub name: String,
    /// `Name`, as older forms send it; read when `name` is absent.
    #[serde(
        rename = "Name",
        deserialize_with = "lenient_text",
        skip_serializing_if = "String::is_empty"
    )]
    #[typeshare(skip)]
    pub legacy_name: String,
}

/// The same for an address just added and one already on the list, so the
/// answer tells nobody who subscribed.
#[typeshare]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscribeToNewsletterResponse {
    pub success: bool,
}

// ------------------------------------------------ paid-download-confirmation

/// `POST /api/paid-download-confirmation`: e-mails the receipt of a paid
/// order, once.
#[typeshare]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PaidDownloadConfirmationRequest {
    #[serde(deserialize_with = "lenient_text")]
    pub order_id: String,
    /// Must be the order's buyer e-mail (case-insensitively).
    #[serde(deserialize_with = "lenient_text")]
    pub email: String,
}

#[typeshare]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaidDownloadConfirmationResponse {
    pub success: bool,
    /// Whether this call sent the receipt.
    pub sent: bool,
    /// Whether an earlier call had sent it.
    pub already_sent: bool,
}

// ---------------------------------------------------------- Stripe Connect

/// `POST /api/stripe/connect`: signed in, as `userId`.
#[typeshare]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct StripeConnectRequest {
    #[serde(deserialize_with = "lenient_text")]
    pub user_id: String,
}

#[typeshare]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StripeConnectResponse {
    /// The onboarding page of the caller's connected account.
    pub url: String,
}

/// `POST /api/user/update-stripe-account`: signed in, as `userId`.
#[typeshare]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct UpdateStripeAccountRequest {
    #[serde(deserialize_with = "lenient_text")]
    pub user_id: String,
    /// The `stripe_account` the onboarding return URL carried.
    #[serde(deserialize_with = "lenient_text")]
    pub stripe_account_id: String,
}

#[typeshare]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateStripeAccountResponse {
    pub success: bool,
    pub stripe_account_id: String,
    /// Whether the account can take charges.
    pub ready: bool,
}

// ----------------------------------------------------------------- webhook

/// `POST /api/stripe/webhook` (Stripe's events; the answer Stripe gets).
#[typeshare]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WebhookResponse {
    pub received: bool,
    /// Orders this event changed (0 on a redelivery).
    pub updated: u32,
}

// ------------------------------------------------------ simulated payments

/// `POST /api/simulated-payments/{id}/confirm`, as JSON or a form.
#[typeshare]
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SimulatedConfirmRequest {
    #[serde(deserialize_with = "lenient_text")]
    pub client_secret: String,
    /// Same-site page to redirect to (303) instead of answering JSON.
    #[serde(
        deserialize_with = "lenient_optional_text",
        skip_serializing_if = "Option::is_none"
    )]
    pub return_url: Option<String>,
    /// The number the buyer typed: Stripe's test cards decline as Stripe's
    /// do (`test_card`); absent, the payment succeeds. Never stored or
    /// logged (`Debug` hides it).
    #[serde(
        deserialize_with = "lenient_optional_text",
        skip_serializing_if = "Option::is_none"
    )]
    pub card_number: Option<String>,
}

impl std::fmt::Debug for SimulatedConfirmRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimulatedConfirmRequest")
            .field("client_secret", &"..")
            .field("return_url", &self.return_url)
            .field("card_number", &self.card_number.as_ref().map(|_| ".."))
            .finish()
    }
}

#[typeshare]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SimulatedConfirmResponse {
    /// `succeeded`.
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub order_id: Option<Uuid>,
}

/// A declined card of the simulated confirmation (status 402), in Stripe's
/// error shape: `{"error": {"type": "card_error", "code", "decline_code",
/// "message"}}`.
#[typeshare]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardErrorResponse {
    pub error: CardError,
}

#[typeshare]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardError {
    /// `card_error`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `card_declined`, `processing_error`, `incorrect_number`.
    pub code: String,
    /// `generic_decline`, `insufficient_funds` (with `card_declined`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decline_code: Option<String>,
    /// For the buyer, as Stripe words it.
    pub message: String,
}

// ------------------------------------------------------------------ errors

/// Every refusal: `error` always; `code` and `message` on a 401 (the
/// platform gateway's shape); `isPaid: false` on a 402.
#[typeshare]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorResponse {
    pub error: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(rename = "isPaid", skip_serializing_if = "Option::is_none")]
    pub is_paid: Option<bool>,
}
