//! The crate's one error type (start-up and the HTTP edge).

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

#[derive(Debug, thiserror::Error)]
pub enum RealtimeError {
    /// The notification listener or the node registration failed at start.
    #[error("realtime cannot reach the database: {0}")]
    Database(#[from] sqlx::Error),
    /// A refusal sent to the client as `{"error": message}` with `status`.
    #[error("{message}")]
    Refused { status: StatusCode, message: String },
    /// A refusal whose body the platform words otherwise (`{"message"}`,
    /// or a validation's `{"errors"}`).
    #[error("{status}: {body}")]
    Answered {
        status: StatusCode,
        body: serde_json::Value,
    },
}

impl RealtimeError {
    pub(crate) fn refused(status: StatusCode, message: impl Into<String>) -> Self {
        Self::Refused {
            status,
            message: message.into(),
        }
    }
}

impl IntoResponse for RealtimeError {
    fn into_response(self) -> Response {
        match self {
            Self::Refused { status, message } => {
                (status, Json(json!({ "error": message }))).into_response()
            }
            Self::Answered { status, body } => (status, Json(body)).into_response(),
            Self::Database(e) => {
                tracing::error!(error = %e, "realtime database error");
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    Json(json!({ "error": "Error connecting to Realtime" })),
                )
                    .into_response()
            }
        }
    }
}
