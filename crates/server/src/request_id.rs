//! `X-Request-Id`: every response carries one, and every log line written
//! while the request is handled (in any service) carries the same one.
//!
//! A client's (or a proxy's) id is kept when it is short and plain (at most
//! 128 of `A-Z a-z 0-9 - _ . :`), so that a trace crosses a load balancer;
//! anything else is replaced by a fresh UUID, so that no one can write what
//! the logs print.

use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;

pub static HEADER: HeaderName = HeaderName::from_static("x-request-id");

/// The middleware: gives the request its id (the handlers and the log span
/// read it from the request's headers) and returns it on the response.
pub async fn assign(mut request: Request, next: Next) -> Response {
    let kept = request
        .headers()
        .get(&HEADER)
        .filter(|v| acceptable(v.as_bytes()))
        .cloned();
    let id = kept.unwrap_or_else(|| {
        HeaderValue::try_from(uuid::Uuid::new_v4().to_string())
            .expect("a UUID is a valid header value")
    });
    request.headers_mut().insert(HEADER.clone(), id.clone());
    let mut response = next.run(request).await;
    response.headers_mut().insert(HEADER.clone(), id);
    response
}

fn acceptable(id: &[u8]) -> bool {
    (1..=128).contains(&id.len())
        && id
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'))
}

/// The span a request's log lines are written in: method, path (never the
/// query, which may carry keys) and request id.
pub fn span<B>(request: &axum::http::Request<B>) -> tracing::Span {
    let id = request
        .headers()
        .get(&HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    tracing::info_span!(
        "request",
        method = %request.method(),
        path = %request.uri().path(),
        request_id = %id,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_short_plain_ids_are_kept() {
        assert!(acceptable(b"abc-123_x.y:z"));
        assert!(acceptable(&[b'a'; 128]));
        assert!(!acceptable(&[b'a'; 129]));
        assert!(!acceptable(b""));
        assert!(!acceptable(b"two words"));
        assert!(!acceptable(b"line\nbreak"));
        assert!(!acceptable("é".as_bytes()));
    }
}
