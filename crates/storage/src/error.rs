//! The one error type of the storage API and its wire shape.
//!
//! The platform answers HTTP 400 for every client error and puts the real
//! status, as a string, in the body's `statusCode`; storage-js reads it from
//! there. Server faults are HTTP 500 with a generic message; their cause is
//! logged, never sent.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    #[error("The resource already exists")]
    Duplicate,
    #[error("The resource already exists")]
    BucketExists,
    #[error("Object not found")]
    ObjectNotFound,
    #[error("Bucket not found")]
    BucketNotFound,
    /// Row-level security or a grant refused the statement (SQLSTATE 42501).
    #[error("{0}")]
    AccessDenied(String),
    /// No usable JWT on a route that needs one.
    #[error("{0}")]
    Unauthorized(String),
    #[error("The object exceeded the maximum allowed size")]
    TooLarge,
    /// A request body (JSON) over the service's limit.
    #[error("The request body is larger than {0} bytes")]
    BodyTooLarge(usize),
    /// A method the route does not have.
    #[error("Method not allowed")]
    MethodNotAllowed,
    #[error("mime type {0} is not supported")]
    InvalidMimeType(String),
    #[error("Invalid key: {0}")]
    InvalidKey(String),
    #[error("Bucket name invalid")]
    InvalidBucketName,
    #[error("{0}")]
    InvalidRequest(String),
    #[error("The bucket you tried to delete is not empty")]
    BucketNotEmpty,
    #[error("Invalid range")]
    RangeNotSatisfiable { size: u64 },
    #[error("too many connections")]
    SlowDown,
    /// Past the client's budget of image renders (cache misses): 429 with
    /// the seconds to wait in `Retry-After`.
    #[error("Too many image transformations, please retry later")]
    TooManyRenders(u64),
    /// The database cannot be reached now (down, restarting, or no
    /// connection free within the acquire timeout): 503 with `Retry-After`.
    #[error("The database is unavailable, please try again shortly")]
    DatabaseUnavailable,
    /// An image transformation the source cannot take (not an image, too
    /// large); the platform's messages.
    #[error("{0}")]
    ImageProcessing(&'static str),
    /// A parameter the platform checks beyond its schema (a list-v2 cursor).
    #[error("Invalid Parameter {0}")]
    InvalidParameter(String),
    /// A server fault; the message is logged, not sent.
    #[error("internal error: {0}")]
    Internal(String),
}

impl StorageError {
    pub(crate) fn internal(context: &str, cause: impl std::fmt::Display) -> Self {
        StorageError::Internal(format!("{context}: {cause}"))
    }

    /// The real status of the error (the body's `statusCode`), which the
    /// resumable-upload protocol sends as the HTTP status.
    pub(crate) fn status_code(&self) -> u16 {
        self.parts().1.parse().unwrap_or(500)
    }

    /// `(HTTP status, body statusCode, code, error)`.
    fn parts(&self) -> (StatusCode, &'static str, &'static str, &'static str) {
        let bad = StatusCode::BAD_REQUEST;
        match self {
            StorageError::Duplicate => (bad, "409", "KeyAlreadyExists", "Duplicate"),
            StorageError::BucketExists => (bad, "409", "BucketAlreadyExists", "Duplicate"),
            StorageError::ObjectNotFound => (bad, "404", "NoSuchKey", "not_found"),
            StorageError::BucketNotFound => (bad, "404", "NoSuchBucket", "Bucket not found"),
            StorageError::AccessDenied(_) => (bad, "403", "AccessDenied", "Unauthorized"),
            StorageError::Unauthorized(_) => (bad, "403", "AccessDenied", "Unauthorized"),
            StorageError::TooLarge | StorageError::BodyTooLarge(_) => {
                (bad, "413", "EntityTooLarge", "Payload too large")
            }
            StorageError::MethodNotAllowed => {
                (bad, "405", "MethodNotAllowed", "Method not allowed")
            }
            StorageError::InvalidMimeType(_) => {
                (bad, "415", "InvalidMimeType", "invalid_mime_type")
            }
            StorageError::InvalidKey(_) => (bad, "400", "InvalidKey", "InvalidKey"),
            StorageError::InvalidBucketName => (bad, "400", "InvalidBucketName", "Invalid Input"),
            StorageError::InvalidRequest(_) => (bad, "400", "InvalidRequest", "Invalid Input"),
            StorageError::BucketNotEmpty => (bad, "409", "InvalidRequest", "Bucket not empty"),
            StorageError::ImageProcessing(_) => (bad, "400", "InvalidRequest", "InvalidRequest"),
            StorageError::InvalidParameter(_) => {
                (bad, "400", "InvalidParameter", "InvalidParameter")
            }
            // Media players rely on a real 416 here.
            StorageError::RangeNotSatisfiable { .. } => (
                StatusCode::RANGE_NOT_SATISFIABLE,
                "416",
                "InvalidRange",
                "Invalid range",
            ),
            StorageError::SlowDown => (
                StatusCode::TOO_MANY_REQUESTS,
                "429",
                "SlowDown",
                "too_many_connections",
            ),
            StorageError::TooManyRenders(_) => (
                StatusCode::TOO_MANY_REQUESTS,
                "429",
                "SlowDown",
                "too_many_requests",
            ),
            StorageError::DatabaseUnavailable => (
                StatusCode::SERVICE_UNAVAILABLE,
                "503",
                "DatabaseError",
                "Service Unavailable",
            ),
            StorageError::Internal(_) => (
                StatusCode::INTERNAL_SERVER_ERROR,
                "500",
                "InternalError",
                "Internal Server Error",
            ),
        }
    }
}

impl IntoResponse for StorageError {
    fn into_response(self) -> Response {
        let (status, status_code, code, error) = self.parts();
        let message = match &self {
            StorageError::Internal(cause) => {
                tracing::error!(%cause, "storage request failed");
                "Internal Server Error".to_owned()
            }
            other => other.to_string(),
        };
        let body = json!({
            "statusCode": status_code,
            "code": code,
            "error": error,
            "message": message,
        });
        let mut response = (status, axum::Json(body)).into_response();
        if let StorageError::DatabaseUnavailable = self {
            response.headers_mut().insert(
                header::RETRY_AFTER,
                HeaderValue::from(plinth_db::RETRY_AFTER_SECS),
            );
        }
        if let StorageError::TooManyRenders(seconds) = self {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        if let StorageError::RangeNotSatisfiable { size } = self
            && let Ok(value) = HeaderValue::from_str(&format!("bytes */{size}"))
        {
            response.headers_mut().insert(header::CONTENT_RANGE, value);
        }
        response
    }
}

/// Database errors as the platform reports them: 42501 -> AccessDenied,
/// 23505 -> Duplicate, 53300 -> SlowDown, a database that cannot be reached
/// (or no connection free in time) -> DatabaseUnavailable, the rest internal.
impl From<sqlx::Error> for StorageError {
    fn from(error: sqlx::Error) -> Self {
        match &error {
            sqlx::Error::Database(db) => match db.code().as_deref() {
                Some("42501") => {
                    StorageError::AccessDenied(if db.message().contains("row-level security") {
                        "new row violates row-level security policy".to_owned()
                    } else {
                        db.message().to_owned()
                    })
                }
                Some("23505") => StorageError::Duplicate,
                Some("23503") => StorageError::BucketNotFound,
                Some("53300") => StorageError::SlowDown,
                _ => database_fault(&error),
            },
            _ => database_fault(&error),
        }
    }
}

impl From<plinth_db::pipeline::WireError> for StorageError {
    fn from(error: plinth_db::pipeline::WireError) -> Self {
        match error
            .as_db_error()
            .map(|db| (db.code.as_str(), db.message.as_str()))
        {
            Some(("42501", message)) => {
                StorageError::AccessDenied(if message.contains("row-level security") {
                    "new row violates row-level security policy".to_owned()
                } else {
                    message.to_owned()
                })
            }
            Some(("23505", _)) => StorageError::Duplicate,
            Some(("23503", _)) => StorageError::BucketNotFound,
            Some(("53300", _)) => StorageError::SlowDown,
            _ if error.is_unavailable() => {
                tracing::warn!(%error, "database unavailable");
                StorageError::DatabaseUnavailable
            }
            _ => StorageError::internal("database", error),
        }
    }
}

impl From<plinth_db::pipeline::PoolError> for StorageError {
    fn from(error: plinth_db::pipeline::PoolError) -> Self {
        match error {
            plinth_db::pipeline::PoolError::Backend(e) => e.into(),
            other => {
                tracing::warn!(error = %other, "database unavailable");
                StorageError::DatabaseUnavailable
            }
        }
    }
}

/// A database error the platform has no answer of its own for: unavailable
/// (503, logged as a warning) or internal (500, logged as an error).
fn database_fault(error: &sqlx::Error) -> StorageError {
    if plinth_db::is_unavailable(error) {
        tracing::warn!(%error, "database unavailable");
        StorageError::DatabaseUnavailable
    } else {
        StorageError::internal("database", error)
    }
}

impl From<opendal::Error> for StorageError {
    fn from(error: opendal::Error) -> Self {
        StorageError::internal("byte store", error)
    }
}
