//! The one error type of the auth service and its two wire shapes.
//!
//! A handler fails with an [`AuthError`]. Its response carries the legacy
//! body `{code: <status>, error_code, msg}` plus an `x-sb-error-code` header;
//! the [`error_shape`] middleware rewrites it into `{code, message}` with an
//! `X-Supabase-Api-Version` header when the request sent that header (as
//! supabase-js does), because only then does the client read `code` as a
//! string.

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// The API version the new error shape belongs to.
pub const API_VERSION: &str = "2024-01-01";
const API_VERSION_HEADER: &str = "x-supabase-api-version";

/// Everything that can go wrong in a request.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// A refusal the client is told about: status, stable code, message.
    #[error("{code}: {message}")]
    Api {
        status: StatusCode,
        code: &'static str,
        message: String,
    },
    /// The password is too weak (422 `weak_password`, with the reasons).
    #[error("weak password: {message}")]
    WeakPassword {
        message: String,
        reasons: Vec<&'static str>,
    },
    /// An OAuth-style refusal, as the platform sends from its grants and its
    /// OAuth server: always 400 `{error, error_description}`, in either API
    /// version.
    #[error("{error}: {description}")]
    OAuth {
        error: &'static str,
        description: String,
    },
    /// The database failed. Logged, never sent; a database that cannot be
    /// reached is a 503 `service_unavailable` with `Retry-After`.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// Anything else that is our fault (hashing, mail, a provider). Logged,
    /// never sent.
    #[error("internal error: {0}")]
    Internal(String),
}

pub type Result<T, E = AuthError> = std::result::Result<T, E>;

impl AuthError {
    pub fn api(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self::Api {
            status,
            code,
            message: message.into(),
        }
    }

    pub fn bad_request(code: &'static str, message: impl Into<String>) -> Self {
        Self::api(StatusCode::BAD_REQUEST, code, message)
    }

    pub fn validation(message: impl Into<String>) -> Self {
        Self::bad_request("validation_failed", message)
    }

    pub fn unprocessable(code: &'static str, message: impl Into<String>) -> Self {
        Self::api(StatusCode::UNPROCESSABLE_ENTITY, code, message)
    }

    pub fn forbidden(code: &'static str, message: impl Into<String>) -> Self {
        Self::api(StatusCode::FORBIDDEN, code, message)
    }

    pub fn not_found(code: &'static str, message: impl Into<String>) -> Self {
        Self::api(StatusCode::NOT_FOUND, code, message)
    }

    pub fn invalid_credentials() -> Self {
        Self::bad_request("invalid_credentials", "Invalid login credentials")
    }

    pub fn rate_limited() -> Self {
        Self::api(
            StatusCode::TOO_MANY_REQUESTS,
            "over_request_rate_limit",
            "Request rate limit reached",
        )
    }

    pub fn email_rate_limited() -> Self {
        Self::api(
            StatusCode::TOO_MANY_REQUESTS,
            "over_email_send_rate_limit",
            "Email rate limit exceeded",
        )
    }

    /// One e-mail per address per `GOTRUE_SMTP_MAX_FREQUENCY`: 429 with the
    /// platform's message naming the seconds left.
    pub fn email_too_soon(wait: std::time::Duration) -> Self {
        let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
        Self::api(
            StatusCode::TOO_MANY_REQUESTS,
            "over_email_send_rate_limit",
            format!("For security purposes, you can only request this after {seconds} seconds."),
        )
    }

    pub fn oauth(error: &'static str, description: impl Into<String>) -> Self {
        Self::OAuth {
            error,
            description: description.into(),
        }
    }

    pub fn internal(cause: impl std::fmt::Display) -> Self {
        Self::Internal(cause.to_string())
    }

    /// Status, code and message as sent; internal causes become a generic
    /// 500 `unexpected_failure`.
    pub fn parts(&self) -> (StatusCode, &'static str, String) {
        match self {
            Self::Api {
                status,
                code,
                message,
            } => (*status, code, message.clone()),
            Self::WeakPassword { message, .. } => (
                StatusCode::UNPROCESSABLE_ENTITY,
                "weak_password",
                message.clone(),
            ),
            Self::OAuth { error, description } => {
                (StatusCode::BAD_REQUEST, error, description.clone())
            }
            Self::Database(e) if plinth_db::is_unavailable(e) => (
                StatusCode::SERVICE_UNAVAILABLE,
                "service_unavailable",
                "The database is unavailable, please try again shortly".into(),
            ),
            Self::Database(_) | Self::Internal(_) => (
                StatusCode::INTERNAL_SERVER_ERROR,
                "unexpected_failure",
                "Unexpected failure, please check server logs for more information".into(),
            ),
        }
    }
}

/// What the error-shape middleware needs to re-render an error.
#[derive(Debug, Clone)]
struct ErrorInfo {
    code: &'static str,
    message: String,
    weak_password: Option<Vec<&'static str>>,
}

impl IntoResponse for AuthError {
    fn into_response(self) -> Response {
        if let Self::OAuth { error, description } = &self {
            let body = json!({ "error": error, "error_description": description });
            return (StatusCode::BAD_REQUEST, axum::Json(body)).into_response();
        }
        let (status, code, message) = self.parts();
        let error_id = if status.is_server_error() {
            let id = uuid::Uuid::new_v4().to_string();
            tracing::error!(error = %self, error_id = %id, "auth request failed");
            Some(id)
        } else {
            None
        };
        let weak_password = match &self {
            Self::WeakPassword { reasons, .. } => Some(reasons.clone()),
            _ => None,
        };
        let mut body = json!({
            "code": status.as_u16(),
            "error_code": code,
            "msg": message,
        });
        if let Some(id) = error_id {
            body["error_id"] = Value::String(id);
        }
        if let Some(reasons) = &weak_password {
            body["weak_password"] = json!({ "reasons": reasons });
        }
        let mut response = (status, axum::Json(body)).into_response();
        response
            .headers_mut()
            .insert("x-sb-error-code", HeaderValue::from_static(code));
        if status == StatusCode::SERVICE_UNAVAILABLE {
            response.headers_mut().insert(
                header::RETRY_AFTER,
                HeaderValue::from(plinth_db::RETRY_AFTER_SECS),
            );
        }
        response.extensions_mut().insert(ErrorInfo {
            code,
            message,
            weak_password,
        });
        response
    }
}

/// Middleware: errors in the `{code, message}` shape, with the
/// `X-Supabase-Api-Version` header, for clients that announce the version.
pub async fn error_shape(request: Request, next: Next) -> Response {
    let wants_new_shape = request
        .headers()
        .get(API_VERSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim() >= API_VERSION);
    let mut response = next.run(request).await;
    if !wants_new_shape {
        return response;
    }
    response
        .headers_mut()
        .insert(API_VERSION_HEADER, HeaderValue::from_static(API_VERSION));
    let Some(info) = response.extensions_mut().remove::<ErrorInfo>() else {
        return response;
    };
    let mut body = json!({ "code": info.code, "message": info.message });
    if let Some(reasons) = info.weak_password {
        body["weak_password"] = json!({ "reasons": reasons });
    }
    let status = response.status();
    let mut headers = response.headers().clone();
    headers.remove(header::CONTENT_LENGTH);
    let mut rewritten = Response::new(Body::from(body.to_string()));
    *rewritten.status_mut() = status;
    *rewritten.headers_mut() = headers;
    rewritten.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    rewritten
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_causes_are_not_sent() {
        let (status, code, message) = AuthError::internal("password=hunter2").parts();
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(code, "unexpected_failure");
        assert!(!message.contains("hunter2"));
    }

    #[test]
    fn weak_passwords_are_422() {
        let error = AuthError::WeakPassword {
            message: "short".into(),
            reasons: vec!["length"],
        };
        assert_eq!(error.parts().0, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(error.parts().1, "weak_password");
    }
}
