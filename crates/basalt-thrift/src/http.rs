//! Thrift over HTTP (HBase's `hbase.regionserver.thrift.http`): each call is a POST whose
//! body is one message of the configured protocol, answered with the reply message as the
//! response body (`application/x-thrift`), on `basalt_net`'s HTTP listener.
//!
//! The path is not looked at (thriftpy2's `THttpClient` posts to whatever its URL names,
//! HBase's server to `/`). A body larger than the message limit is refused with 413 before
//! it is read whole; a body that is no message gets 400 and a text saying why; a call whose
//! head was readable gets the `TApplicationException` a socket client would get, as a 200
//! (HTTP succeeded; the Thrift call did not). An HTTP client may use a new connection for
//! every call, so its scanners are not bound to a connection: they live in one shared
//! session, [`HTTP_SESSION`], under the same random ids and leases as the socket gateway's.

use crate::call::answer;
use crate::connection::Shared;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use basalt_net::Listener;
use std::sync::Arc;

/// The scanner session of every HTTP call (socket connections count from 1).
pub const HTTP_SESSION: u64 = 0;

/// The content type of Thrift over HTTP.
pub const CONTENT_TYPE: &str = "application/x-thrift";

/// Serves calls over HTTP on `listener` until the runtime stops.
pub async fn serve(listener: Listener, shared: Arc<Shared>) {
    let router = Router::new()
        .route("/", post(call))
        .route("/{*path}", post(call))
        .with_state(shared);
    if let Err(e) = basalt_net::http::serve(listener, router, std::future::pending()).await {
        tracing::error!("the Thrift HTTP listener failed: {e}");
    }
}

async fn call(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Body) -> Response {
    let limit = shared.wire.limits.message_max_bytes;
    let announced = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if announced.is_some_and(|len| len > limit as u64) {
        return too_large(limit);
    }
    let body: Bytes = match axum::body::to_bytes(body, limit).await {
        Ok(body) => body,
        // Within its announced length, the body was cut short.
        Err(e) if announced.is_some() => {
            tracing::debug!("a Thrift HTTP body ended early: {e}");
            return (
                StatusCode::BAD_REQUEST,
                "the body ended before its Content-Length\n",
            )
                .into_response();
        }
        Err(e) => {
            tracing::debug!("cannot read a chunked Thrift HTTP body: {e}");
            return too_large(limit);
        }
    };
    let worker = shared.clone();
    let answered = tokio::task::spawn_blocking(move || {
        answer(&worker.service, HTTP_SESSION, &worker.wire, &body, false)
    })
    .await;
    match answered {
        Ok(answered) => match answered.reply {
            Some(reply) => ([(header::CONTENT_TYPE, CONTENT_TYPE)], reply).into_response(),
            None if answered.close => (
                StatusCode::BAD_REQUEST,
                "the body is not a Thrift message of the configured protocol\n",
            )
                .into_response(),
            // A oneway call: nothing to answer.
            None => ([(header::CONTENT_TYPE, CONTENT_TYPE)], Vec::new()).into_response(),
        },
        Err(e) => {
            tracing::error!("a Thrift HTTP call failed: {e}");
            (StatusCode::INTERNAL_SERVER_ERROR, "internal error\n").into_response()
        }
    }
}

fn too_large(limit: usize) -> Response {
    (
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("a Thrift message may not exceed {limit} bytes (limits.message_max_bytes)\n"),
    )
        .into_response()
}
