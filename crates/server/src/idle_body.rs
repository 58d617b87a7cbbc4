//! A request body that fails once its client stops sending: the server's
//! side of a slow-body attack (headers sent, then a byte now and then or
//! nothing at all, to hold an upload's place and its memory for free).
//!
//! What has arrived is always taken first, and the clock only runs while
//! the server is waiting for the next piece: a handler that stops reading
//! for a while (an upload waiting for its place, a slow disk) does not
//! count that time against the client. (`tower_http`'s `TimeoutBody` checks
//! its clock before looking for data, so a pause on the server's side fails
//! a body whose next piece is already there.)

use std::error::Error;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::body::{Body, Frame, SizeHint};

/// `body`, failing with [`BodyStalled`] when nothing of it comes for `idle`
/// while it is being read.
pub struct IdleTimeoutBody<B> {
    body: B,
    idle: Duration,
    /// The clock, made at the first read that finds nothing and set again
    /// at each later one after a piece (one timer per body, not per wait).
    clock: Option<Pin<Box<tokio::time::Sleep>>>,
    /// Whether the clock runs: a read found nothing and no piece came since.
    waiting: bool,
}

impl<B> IdleTimeoutBody<B> {
    pub fn new(body: B, idle: Duration) -> Self {
        Self {
            body,
            idle,
            clock: None,
            waiting: false,
        }
    }
}

/// The error of a body that stopped arriving.
#[derive(Debug)]
pub struct BodyStalled(Duration);

impl std::fmt::Display for BodyStalled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the request body stopped arriving (nothing for {} s)",
            self.0.as_secs_f64()
        )
    }
}

impl Error for BodyStalled {}

impl<B> Body for IdleTimeoutBody<B>
where
    B: Body + Unpin,
    B::Error: Into<Box<dyn Error + Send + Sync>>,
{
    type Data = B::Data;
    type Error = Box<dyn Error + Send + Sync>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let this = &mut *self;
        if let Poll::Ready(frame) = Pin::new(&mut this.body).poll_frame(cx) {
            this.waiting = false;
            return Poll::Ready(frame.map(|f| f.map_err(Into::into)));
        }
        let idle = this.idle;
        let clock = match &mut this.clock {
            Some(clock) => {
                if !this.waiting {
                    clock.as_mut().reset(tokio::time::Instant::now() + idle);
                }
                clock
            }
            None => this.clock.insert(Box::pin(tokio::time::sleep(idle))),
        };
        this.waiting = true;
        match clock.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Some(Err(Box::new(BodyStalled(idle))))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use axum::body::Bytes;
    use futures_util::StreamExt;

    /// A body fed through a channel, wrapped with a 100 ms idle limit.
    fn fed() -> (tokio::sync::mpsc::Sender<Bytes>, axum::body::BodyDataStream) {
        let (feed, pieces) = tokio::sync::mpsc::channel::<Bytes>(4);
        let stream = futures_util::stream::unfold(pieces, |mut pieces| async move {
            pieces
                .recv()
                .await
                .map(|piece| (Ok::<_, std::io::Error>(piece), pieces))
        });
        let body = IdleTimeoutBody::new(
            axum::body::Body::from_stream(stream),
            Duration::from_millis(100),
        );
        (feed, axum::body::Body::new(body).into_data_stream())
    }

    #[tokio::test]
    async fn a_piece_that_came_while_the_reader_was_away_is_not_late() {
        let (feed, mut body) = fed();
        // A read that finds nothing arms the clock ...
        let nothing = tokio::time::timeout(Duration::from_millis(20), body.next()).await;
        assert!(nothing.is_err());
        // ... and the reader goes away for three times the limit, while the
        // client sends.
        tokio::time::sleep(Duration::from_millis(150)).await;
        feed.send(Bytes::from_static(b"one")).await.unwrap();
        tokio::time::sleep(Duration::from_millis(150)).await;
        assert_eq!(body.next().await.unwrap().unwrap(), "one");
        // Pieces that keep coming within the limit are all read.
        for piece in ["two", "three"] {
            tokio::time::sleep(Duration::from_millis(60)).await;
            feed.send(Bytes::from(piece)).await.unwrap();
            assert_eq!(body.next().await.unwrap().unwrap(), piece);
        }
        drop(feed);
        assert!(body.next().await.is_none());
    }

    #[tokio::test]
    async fn a_body_that_stops_arriving_fails_after_the_limit() {
        let (feed, mut body) = fed();
        feed.send(Bytes::from_static(b"start")).await.unwrap();
        assert_eq!(body.next().await.unwrap().unwrap(), "start");
        let waited = std::time::Instant::now();
        let error = body.next().await.unwrap().unwrap_err();
        assert!(waited.elapsed() >= Duration::from_millis(100));
        assert!(error.to_string().contains("stopped arriving"), "{error}");
        drop(feed);
    }
}
