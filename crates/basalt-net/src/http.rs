//! HTTP/1 over a [`Listener`] with axum (the web UI and the REST gateway): [`serve`] runs a
//! router with graceful shutdown, and tells the listener when each request's head has
//! arrived (a middleware runs) and when its response has been sent (the response body is
//! dropped). Handlers find the client as `ConnectInfo<Peer>`.
//!
//! hyper's own header-read timeout is not used: it also runs while a kept-alive connection
//! sits idle between requests, which must never cost a client its connection.

use crate::conn::{Busy, Conn, Peer};
use crate::Listener;
use axum::body::Body;
use axum::extract::connect_info::Connected;
use axum::extract::{ConnectInfo, Request};
use axum::middleware::Next;
use axum::response::Response;
use axum::serve::IncomingStream;
use axum::Router;
use http_body::{Frame, SizeHint};
use std::future::{Future, IntoFuture};
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};

impl axum::serve::Listener for Listener {
    type Io = Conn;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Conn, SocketAddr) {
        Listener::accept(self).await
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        Ok(Listener::local_addr(self))
    }
}

impl Connected<IncomingStream<'_, Listener>> for Peer {
    fn connect_info(stream: IncomingStream<'_, Listener>) -> Self {
        stream.io().peer()
    }
}

/// Serves `router` on `listener` until `shutdown` completes, then lets open requests finish.
pub fn serve<F>(
    listener: Listener,
    router: Router,
    shutdown: F,
) -> impl Future<Output = io::Result<()>> + Send
where
    F: Future<Output = ()> + Send + 'static,
{
    let app = router.layer(axum::middleware::from_fn(track));
    axum::serve(listener, app.into_make_service_with_connect_info::<Peer>())
        .with_graceful_shutdown(shutdown)
        .into_future()
}

/// The request's head arrived: busy until its response body is dropped (sent or abandoned).
async fn track(ConnectInfo(peer): ConnectInfo<Peer>, request: Request, next: Next) -> Response {
    let busy = peer.busy();
    next.run(request)
        .await
        .map(|body| Body::new(Tracked { body, _busy: busy }))
}

/// A response body that keeps its connection busy while it is being sent.
struct Tracked {
    body: Body,
    _busy: Busy,
}

impl http_body::Body for Tracked {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
