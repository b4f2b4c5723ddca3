//! Listening and serving: [`start`] binds synchronously (so a taken port fails at once),
//! then serves HTTP/1.1 on a spawned task until [`RestServer::shutdown`], over
//! `basalt_net`'s listener (connection caps, header timeout, shedding of sockets held open
//! without a request).

use crate::access::{self, RestAuth};
use crate::config::RestConfig;
use crate::error::{RestError, Result};
use crate::gateway::{Gateway, Request};
use crate::router;
use crate::url::Query;
use axum::extract::{ConnectInfo, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::Router;
use basalt_api::{Connection, Principal};
use basalt_auth::http_guard::ServedNames;
use basalt_net::{Listener, Peer};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A running gateway.
pub struct RestServer {
    local_addr: SocketAddr,
    stop: oneshot::Sender<()>,
    serving: JoinHandle<()>,
    sweeping: JoinHandle<()>,
    gateway: Arc<Gateway>,
}

impl RestServer {
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Stateful scanners open now.
    pub fn open_scanners(&self) -> usize {
        self.gateway.scanners.len()
    }

    /// Stops accepting, lets running requests finish, closes every scanner.
    pub async fn shutdown(self) {
        let _ = self.stop.send(());
        if let Err(e) = self.serving.await {
            tracing::warn!(error = %e, "the REST server task failed");
        }
        self.sweeping.abort();
        let _ = self.sweeping.await;
        tracing::info!(addr = %self.local_addr, "REST gateway stopped");
    }
}

/// Binds `config.bind:config.port` and serves `conn`. Must run inside a tokio runtime.
pub fn start(conn: Arc<dyn Connection>, config: RestConfig) -> Result<RestServer> {
    start_authenticated(conn, config, None)
}

/// The same, requiring every request to authenticate when `auth` is given; `conn` should
/// then check each call for the principal set around it (`AuthorizedConnection::per_call`).
pub fn start_authenticated(
    conn: Arc<dyn Connection>,
    config: RestConfig,
    auth: Option<RestAuth>,
) -> Result<RestServer> {
    let listener = Listener::bind(
        (config.bind.as_str(), config.port),
        "REST",
        config.connection_limits(),
    )
    .map(|listener| listener.with_tls(config.tls.get(), basalt_net::Plaintext::REFUSE_HTTP))
    .map_err(|source| RestError::Bind {
        addr: format!("{}:{}", config.bind, config.port),
        source,
    })?;
    let local_addr = listener.local_addr();
    let names = Arc::new(ServedNames::new(
        &config.bind,
        local_addr.port(),
        &config.hosts,
    ));
    let gateway = Arc::new(Gateway::new(conn, config, auth));
    let app = Router::new()
        .fallback(handle)
        .with_state((gateway.clone(), names));
    let (stop, stopped) = oneshot::channel::<()>();
    let serve = basalt_net::http::serve(listener, app, async move {
        let _ = stopped.await;
    });
    let serving = tokio::spawn(async move {
        if let Err(e) = serve.await {
            tracing::error!(error = %e, "the REST gateway stopped serving");
        }
    });
    let sweeper = gateway.clone();
    let sweeping = tokio::spawn(async move {
        let mut tick = tokio::time::interval(sweeper.scanners.sweep_interval());
        loop {
            tick.tick().await;
            let expired = sweeper.scanners.sweep();
            if expired > 0 {
                tracing::info!(expired, "closed REST scanners past their lease");
            }
        }
    });
    tracing::info!(addr = %local_addr, "REST gateway listening");
    Ok(RestServer {
        local_addr,
        stop,
        serving,
        sweeping,
        gateway,
    })
}

async fn handle(
    State((gateway, names)): State<(Arc<Gateway>, Arc<ServedNames>)>,
    ConnectInfo(peer): ConnectInfo<Peer>,
    request: axum::extract::Request,
) -> Response {
    let peer = peer.addr();
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let (parts, body) = request.into_parts();
    let principal = match access::admit(&gateway, &names, &parts, peer.ip()).await {
        Ok(principal) => principal,
        Err(refused) => return *refused,
    };
    let request = axum::extract::Request::from_parts(parts, body);
    match read(&gateway, peer, request, principal.clone()).await {
        Ok(req) => {
            let response = access::scope(principal, router::route(gateway, req))
                .await
                .unwrap_or_else(IntoResponse::into_response);
            tracing::debug!(%method, %path, status = %response.status(), "REST request");
            response
        }
        Err(e) => e.into_response(),
    }
}

/// Reads the whole request, refusing bodies over the limit.
async fn read(
    gateway: &Gateway,
    peer: SocketAddr,
    request: axum::extract::Request,
    principal: Option<Principal>,
) -> Result<Request> {
    let limit = gateway.config.body_max_bytes;
    let (parts, body) = request.into_parts();
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(RestError::BodyTooLarge { limit_bytes: limit });
    }
    let body = Limited::new(body, limit)
        .collect()
        .await
        .map_err(|e| {
            if e.downcast_ref::<LengthLimitError>().is_some() {
                RestError::BodyTooLarge { limit_bytes: limit }
            } else {
                RestError::bad(format!("cannot read the request body: {e}"))
            }
        })?
        .to_bytes();
    Ok(Request {
        method: parts.method,
        path: parts.uri.path().to_string(),
        query: Query::parse(parts.uri.query())?,
        headers: parts.headers,
        body,
        client: peer.ip(),
        principal,
    })
}
