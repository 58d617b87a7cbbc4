//! The extractors of the storage handlers: axum's `Path`, `Query` and body
//! bytes, refusing in the storage error shape (axum's own rejections are
//! plain text, which storage-js cannot read).

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use crate::error::StorageError;

/// The largest JSON request body (list, remove, move, copy, sign, buckets).
/// Uploads stream and have their own limits.
pub(crate) const JSON_BODY_LIMIT: usize = 2 * 1024 * 1024;

/// Path parameters (`axum::extract::Path`).
#[derive(Debug)]
pub(crate) struct Path<T>(pub T);

impl<S, T> FromRequestParts<S> for Path<T>
where
    S: Send + Sync,
    T: DeserializeOwned + Send,
{
    type Rejection = StorageError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, StorageError> {
        axum::extract::Path::<T>::from_request_parts(parts, state)
            .await
            .map(|axum::extract::Path(value)| Path(value))
            .map_err(|e| StorageError::InvalidRequest(e.body_text()))
    }
}

/// The query string (`axum::extract::Query`).
#[derive(Debug)]
pub(crate) struct Query<T>(pub T);

impl<S, T> FromRequestParts<S> for Query<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = StorageError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, StorageError> {
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|axum::extract::Query(value)| Query(value))
            .map_err(|e| StorageError::InvalidRequest(e.body_text()))
    }
}

/// A whole (JSON) request body of at most [`JSON_BODY_LIMIT`] bytes.
#[derive(Debug)]
pub(crate) struct JsonBody(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for JsonBody {
    type Rejection = StorageError;

    async fn from_request(request: Request, state: &S) -> Result<Self, StorageError> {
        Bytes::from_request(request, state)
            .await
            .map(JsonBody)
            .map_err(|e| match e.status() {
                StatusCode::PAYLOAD_TOO_LARGE => StorageError::BodyTooLarge(JSON_BODY_LIMIT),
                _ => StorageError::InvalidRequest(e.body_text()),
            })
    }
}
