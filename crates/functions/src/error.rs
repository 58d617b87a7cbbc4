//! The host's own answers, in the platform's shapes: `{"code", "message"}`
//! with the code also in `sb-error-code` (the 401s of the JWT check are the
//! gateway's `{"code": 401, "message"}`).

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error("Missing authorization header")]
    MissingAuthorization,
    #[error("Invalid JWT")]
    InvalidJwt,
    #[error("Requested function was not found")]
    NotFound,
    #[error("Method not allowed")]
    MethodNotAllowed,
    /// The function's settings are wrong, no Deno is installed, or its
    /// worker did not start; the cause is logged.
    #[error("Function failed to start (please check logs)")]
    Boot,
    /// Every worker of the function is busy and none came free in time.
    #[error("Function is at capacity, please retry shortly")]
    Saturated,
    /// The worker died (or answered nothing) while serving the request.
    #[error("Function exited before it answered (please check logs)")]
    Worker,
    /// The request outlived the wall-clock limit, or the worker its memory
    /// or its hard CPU-time limit.
    #[error("Function failed due to not having enough compute resources (please check logs)")]
    Limit,
}

impl HostError {
    fn status_and_code(&self) -> (StatusCode, &'static str) {
        match self {
            Self::MissingAuthorization | Self::InvalidJwt => {
                (StatusCode::UNAUTHORIZED, "UNAUTHORIZED")
            }
            Self::NotFound => (StatusCode::NOT_FOUND, "NOT_FOUND"),
            Self::MethodNotAllowed => (StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED"),
            Self::Boot => (StatusCode::SERVICE_UNAVAILABLE, "BOOT_ERROR"),
            Self::Saturated => (StatusCode::SERVICE_UNAVAILABLE, "WORKER_LIMIT"),
            Self::Worker => (StatusCode::INTERNAL_SERVER_ERROR, "WORKER_ERROR"),
            Self::Limit => (limit_status(), "WORKER_LIMIT"),
        }
    }
}

/// 546, the platform's status for a function stopped at a resource limit.
fn limit_status() -> StatusCode {
    StatusCode::from_u16(546).unwrap_or(StatusCode::SERVICE_UNAVAILABLE)
}

impl IntoResponse for HostError {
    fn into_response(self) -> Response {
        let (status, code) = self.status_and_code();
        let body = match self {
            // The gateway's shape (wire contract §4).
            Self::MissingAuthorization | Self::InvalidJwt => {
                json!({ "code": 401, "message": self.to_string() })
            }
            _ => json!({ "code": code, "message": self.to_string() }),
        };
        let mut response = (status, axum::Json(body)).into_response();
        let headers = response.headers_mut();
        headers.insert("sb-error-code", HeaderValue::from_static(code));
        if matches!(self, Self::Saturated | Self::Boot) {
            headers.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        }
        response
    }
}
