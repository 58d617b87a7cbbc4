//! The console's refusals: `{"error": code, "message": sentence}` with a
//! status. Database faults are logged here and leave without their detail.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Json, Response};
use serde_json::json;

#[derive(Debug)]
pub struct ConsoleError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
}

pub type Result<T, E = ConsoleError> = std::result::Result<T, E>;

impl ConsoleError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    pub fn not_signed_in() -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "not_signed_in",
            "Sign in to the console as an operator",
        )
    }
}

impl From<sqlx::Error> for ConsoleError {
    fn from(error: sqlx::Error) -> Self {
        if plinth_db::is_unavailable(&error) {
            tracing::warn!(%error, "console: the database is unavailable");
            return Self::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "database_unavailable",
                "The database cannot be reached; try again in a moment",
            );
        }
        tracing::error!(%error, "console: database error");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "database_error",
            "The database refused the request; the server's log has the details",
        )
    }
}

impl IntoResponse for ConsoleError {
    fn into_response(self) -> Response {
        let mut response = (
            self.status,
            Json(json!({ "error": self.code, "message": self.message })),
        )
            .into_response();
        response.headers_mut().insert(
            axum::http::header::CACHE_CONTROL,
            axum::http::HeaderValue::from_static("no-store"),
        );
        response
    }
}
