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

/// The client's address as the rest of the node reads it (the connection's
/// peer, or the forwarding headers of a trusted proxy: the server drops
/// those unless told to trust them).
#[derive(Debug, Clone)]
pub(crate) struct ClientAddress(pub String);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let header = |name: &str| parts.headers.get(name).and_then(|v| v.to_str().ok());
        let peer = parts
            .extensions
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
            .map(|c| c.0.ip());
        Ok(Self(plinth_db::client_address(
            header("x-forwarded-for"),
            header("x-real-ip"),
            peer,
        )))
    }
}
