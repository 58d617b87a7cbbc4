//! The one error type of the function host, answered as `{"error": "..."}`
//! with a status that `supabase.functions.invoke` turns into a
//! `FunctionsHttpError`. Internal causes are logged, never sent.

use axum::Json;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::provider::CardDecline;
use crate::wire::{CardError, CardErrorResponse, ErrorResponse};

pub type Result<T, E = FunctionError> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum FunctionError {
    /// 400: a missing or malformed parameter.
    #[error("{0}")]
    BadRequest(String),
    /// 401: a token that does not verify, or a caller who must sign in.
    #[error("{0}")]
    Unauthorized(String),
    /// 402: the order is not paid yet.
    #[error("Payment not completed. Please complete your purchase first.")]
    PaymentRequired,
    /// 402: the simulated provider declined the card; answered in Stripe's
    /// error shape ([`CardErrorResponse`]), as Stripe answers a decline.
    #[error("{}", .0.message)]
    CardDeclined(CardDecline),
    /// 403: signed in, but not allowed (someone else's account, a wrong
    /// download token).
    #[error("{0}")]
    Forbidden(String),
    /// 404.
    #[error("{0}")]
    NotFound(String),
    /// 405.
    #[error("Method not allowed")]
    MethodNotAllowed,
    /// 413: a request body over the limit (in bytes).
    #[error("Request body too large (limit {0} bytes)")]
    PayloadTooLarge(usize),
    /// 429: the client spent its budget of calls of this function; it may
    /// try again after this many seconds (`Retry-After`).
    #[error("Too many requests from this address. Please try again in {0} seconds.")]
    TooManyRequests(u64),
    /// 502: the payment provider failed or refused; `message` is sent,
    /// `cause` logged.
    #[error("{message}")]
    Provider { message: String, cause: String },
    /// 503: a feature that is not configured (e.g. no webhook secret).
    #[error("{0}")]
    Unavailable(String),
    /// 503: the database cannot be reached now; try again after
    /// [`plinth_db::RETRY_AFTER_SECS`] (`Retry-After`).
    #[error("The database is unavailable, please try again shortly.")]
    DatabaseUnavailable,
    /// 500; the cause is logged.
    #[error("internal error: {0}")]
    Internal(String),
}

impl FunctionError {
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        Self::Internal(cause.to_string())
    }

    pub fn status(&self) -> StatusCode {
        match self {
            Self::BadRequest(_) => StatusCode::BAD_REQUEST,
            Self::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            Self::PaymentRequired | Self::CardDeclined(_) => StatusCode::PAYMENT_REQUIRED,
            Self::Forbidden(_) => StatusCode::FORBIDDEN,
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Self::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            Self::TooManyRequests(_) => StatusCode::TOO_MANY_REQUESTS,
            Self::Provider { .. } => StatusCode::BAD_GATEWAY,
            Self::Unavailable(_) | Self::DatabaseUnavailable => StatusCode::SERVICE_UNAVAILABLE,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl From<sqlx::Error> for FunctionError {
    fn from(e: sqlx::Error) -> Self {
        if plinth_db::is_unavailable(&e) {
            tracing::warn!(error = %e, "database unavailable");
            return Self::DatabaseUnavailable;
        }
        Self::Internal(format!("database: {e}"))
    }
}

impl IntoResponse for FunctionError {
    fn into_response(self) -> Response {
        let status = self.status();
        if let Self::CardDeclined(decline) = &self {
            let body = CardErrorResponse {
                error: CardError {
                    kind: "card_error".into(),
                    code: decline.code.into(),
                    decline_code: decline.decline_code.map(Into::into),
                    message: decline.message.into(),
                },
            };
            return (status, Json(body)).into_response();
        }
        let message = match &self {
            Self::Internal(cause) => {
                tracing::error!(%cause, "function failed");
                "Something went wrong.".to_owned()
            }
            Self::Provider { message, cause } => {
                tracing::warn!(%cause, "payment provider failed");
                message.clone()
            }
            other => other.to_string(),
        };
        let mut body = ErrorResponse {
            error: message,
            code: None,
            message: None,
            is_paid: None,
        };
        match &self {
            // The platform gateway's shape for a refused JWT, plus `error`.
            Self::Unauthorized(_) => {
                body.code = Some(401);
                body.message = Some(body.error.clone());
            }
            Self::PaymentRequired => body.is_paid = Some(false),
            _ => {}
        }
        let mut response = (status, Json(body)).into_response();
        let retry_after = match self {
            Self::TooManyRequests(secs) => Some(secs),
            Self::DatabaseUnavailable => Some(u64::from(plinth_db::RETRY_AFTER_SECS)),
            _ => None,
        };
        if let Some(secs) = retry_after {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from(secs),
            );
        }
        response
    }
}

/// Turns a refusal of the framework, made before any handler ran (a body
/// over [`crate::BODY_LIMIT`], a query or path that does not parse), into
/// the functions' shape with the same status: axum answers those in plain
/// text, which `functions.invoke` cannot read. Answers of the handlers
/// (JSON, or the HTML of the simulated payment page) pass untouched.
pub(crate) async fn framework_refusals(response: Response) -> Response {
    let status = response.status();
    let plain = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_none_or(|t| t.starts_with("text/plain"));
    if !(status.is_client_error() || status.is_server_error()) || !plain {
        return response;
    }
    match status {
        StatusCode::PAYLOAD_TOO_LARGE => {
            return FunctionError::PayloadTooLarge(crate::BODY_LIMIT).into_response();
        }
        StatusCode::METHOD_NOT_ALLOWED => return FunctionError::MethodNotAllowed.into_response(),
        _ => {}
    }
    let text = axum::body::to_bytes(response.into_body(), 4096)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_owned())
        .unwrap_or_default();
    let error = if text.is_empty() {
        status.canonical_reason().unwrap_or("Error").to_owned()
    } else {
        text
    };
    let body = ErrorResponse {
        error,
        code: None,
        message: None,
        is_paid: None,
    };
    (status, Json(body)).into_response()
}
