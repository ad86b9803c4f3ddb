//! Request bodies that must keep arriving (`--body-timeout-secs`): while a handler waits for
//! the next piece of a body, the client has that long to send some; otherwise the read fails and
//! the request is marked [`Stalled`], which the middleware answers with 408 and a closed
//! connection. Time the handler spends on a piece it has (writing it to disk) does not count.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use tokio::time::Sleep;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Set once a request's body stopped arriving (a request extension).
#[derive(Debug, Clone, Default)]
pub struct Stalled(Arc<AtomicBool>);

impl Stalled {
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

#[derive(Debug, thiserror::Error)]
#[error("no part of the request body arrived for {0:?}")]
pub struct BodyTimeout(Duration);

/// `inner` with a limit on every wait for its next frame.
pub struct Timed<B> {
    inner: B,
    limit: Duration,
    wait: Option<Pin<Box<Sleep>>>,
    stalled: Stalled,
}

impl<B> Timed<B> {
    pub fn new(inner: B, limit: Duration, stalled: Stalled) -> Timed<B> {
        Timed {
            inner,
            limit,
            wait: None,
            stalled,
        }
    }
}

impl<B> Body for Timed<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: Into<BoxError>,
{
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(frame) => {
                this.wait = None;
                Poll::Ready(frame.map(|f| f.map_err(Into::into)))
            }
            Poll::Pending => {
                let limit = this.limit;
                let wait = this
                    .wait
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
                if wait.as_mut().poll(cx).is_ready() {
                    this.wait = None;
                    this.stalled.0.store(true, Ordering::Relaxed);
                    return Poll::Ready(Some(Err(Box::new(BodyTimeout(limit)))));
                }
                Poll::Pending
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::{BodyExt, StreamBody};

    #[tokio::test]
    async fn a_body_that_stops_arriving_fails_and_is_marked() {
        let (tx, rx) = tokio::sync::mpsc::channel::<Result<Frame<Bytes>, BoxError>>(1);
        let stream = tokio_stream_from(rx);
        let stalled = Stalled::default();
        let mut body = Timed::new(
            StreamBody::new(stream),
            Duration::from_millis(300),
            stalled.clone(),
        );
        tx.send(Ok(Frame::data(Bytes::from_static(b"abc"))))
            .await
            .unwrap();
        let first = body.frame().await.unwrap().unwrap();
        assert_eq!(first.into_data().unwrap(), "abc");
        // Time spent away from the body does not count.
        tokio::time::sleep(Duration::from_millis(600)).await;
        tx.send(Ok(Frame::data(Bytes::from_static(b"d"))))
            .await
            .unwrap();
        assert!(body.frame().await.unwrap().is_ok());
        assert!(!stalled.is_set());
        let err = body.frame().await.unwrap().unwrap_err();
        assert!(err.to_string().contains("no part of the request body"));
        assert!(stalled.is_set());
        drop(tx);
    }

    fn tokio_stream_from<T: Send + 'static>(
        mut rx: tokio::sync::mpsc::Receiver<T>,
    ) -> impl futures_util::Stream<Item = T> + Unpin {
        Box::pin(futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx)))
    }
}
