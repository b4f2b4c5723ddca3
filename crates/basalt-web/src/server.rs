//! The HTTP server: routes, the security headers on every response, pages rendered on
//! blocking threads (they call the database) with a cap on how many at once, start and
//! graceful shutdown. Connections are `basalt_net`'s: idle and trickling sockets cannot
//! keep a browser or a scraper out.

use crate::layout::{STYLESHEET, STYLESHEET_PATH};
use crate::metrics::{jmx, prometheus};
use crate::pages;
use crate::query::Query;
use crate::snapshot::Snapshot;
use crate::{ServerInfo, WebConfig, WebError};
use axum::extract::{Request, State};
use axum::http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS,
    X_FRAME_OPTIONS,
};
use axum::http::{HeaderValue, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use basalt_api::Connection;
use basalt_db::Database;
use basalt_net::Listener;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{oneshot, Semaphore};
use tokio::task::JoinHandle;

/// Pages rendered at once; more requests wait their turn.
const RENDERS_MAX: usize = 8;
/// The longest request target (path and query) served.
const URI_MAX_BYTES: usize = 8 * 1024;
/// The most header bytes (names and values) a request may carry.
const HEADERS_MAX_BYTES: usize = 16 * 1024;
/// How long shutdown waits for open requests before dropping them.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// The policy every response carries: nothing but our own stylesheet loads, no script
/// runs, no page frames us, forms post only back here.
const CSP: &str = "default-src 'none'; style-src 'self'; img-src 'self'; \
                   form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const HTML: &str = "text/html; charset=utf-8";

/// What every handler can reach.
pub(crate) struct AppState {
    pub database: Arc<Database>,
    pub conn: Arc<dyn Connection>,
    pub info: ServerInfo,
    renders: Arc<Semaphore>,
}

/// A running web UI.
#[derive(Debug)]
pub struct WebServer {
    addr: SocketAddr,
    stop: oneshot::Sender<()>,
    task: JoinHandle<()>,
}

impl WebServer {
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops accepting, lets open requests finish (for a few seconds at most) and returns.
    pub async fn shutdown(self) {
        let _ = self.stop.send(());
        let mut task = self.task;
        if tokio::time::timeout(SHUTDOWN_GRACE, &mut task)
            .await
            .is_err()
        {
            tracing::warn!("web UI requests still open after the grace period: dropping them");
            task.abort();
        }
    }
}

/// Binds `config`'s address now (so a taken port fails here) and serves on a task of the
/// current tokio runtime.
pub fn start(
    database: Arc<Database>,
    conn: Arc<dyn Connection>,
    info: ServerInfo,
    config: WebConfig,
) -> Result<WebServer, WebError> {
    let runtime = tokio::runtime::Handle::try_current().map_err(|_| WebError::NoRuntime)?;
    let listener = {
        let _entered = runtime.enter();
        Listener::bind(
            (config.bind.as_str(), config.port),
            "web UI",
            config.connection_limits(),
        )
        .map_err(|source| WebError::Bind {
            addr: format!("{}:{}", config.bind, config.port),
            source,
        })?
    };
    let local = listener.local_addr();
    let state = Arc::new(AppState {
        database,
        conn,
        info,
        renders: Arc::new(Semaphore::new(RENDERS_MAX)),
    });
    let app = router(state);
    let (stop, stopped) = oneshot::channel::<()>();
    let task = runtime.spawn(async move {
        let serving = basalt_net::http::serve(listener, app, async move {
            let _ = stopped.await;
        });
        if let Err(e) = serving.await {
            tracing::error!(error = %e, "the web UI stopped serving");
        }
    });
    tracing::info!(addr = %local, "web UI listening");
    Ok(WebServer {
        addr: local,
        stop,
        task,
    })
}

fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/", get(home))
        .route("/master-status", get(home))
        .route("/table.jsp", get(table))
        .route("/table", get(table))
        .route("/rs-status", get(region_server))
        .route("/conf", get(conf))
        .route("/logs", get(logs))
        .route("/logs/", get(logs))
        .route("/metrics", get(metrics))
        .route("/prometheus", get(metrics))
        .route("/jmx", get(jmx_json))
        .route(STYLESHEET_PATH, get(stylesheet))
        .fallback(not_found)
        .layer(axum::middleware::from_fn(refuse_oversized))
        .layer(axum::middleware::map_response(security_headers))
        .with_state(state)
}

type Shared = State<Arc<AppState>>;

async fn home(State(state): Shared, uri: Uri) -> Response {
    render(state, uri, |s, _| pages::home::render(s).map(html)).await
}

async fn table(State(state): Shared, uri: Uri) -> Response {
    render(state, uri, |s, q| pages::table::render(s, q).map(html)).await
}

async fn region_server(State(state): Shared, uri: Uri) -> Response {
    render(state, uri, |s, _| pages::region_server::render(s).map(html)).await
}

async fn conf(State(state): Shared, uri: Uri) -> Response {
    render(state, uri, |s, _| Ok(html(pages::conf::render(s)))).await
}

async fn logs(State(state): Shared, uri: Uri) -> Response {
    render(state, uri, |s, q| pages::logs::render(s, q).map(html)).await
}

async fn metrics(State(state): Shared, uri: Uri) -> Response {
    render(state, uri, |s, _| {
        let snapshot = Snapshot::read(&s.database, s.conn.as_ref())?;
        let text = prometheus::render(&snapshot, s.info.uptime().as_secs_f64());
        Ok(([(CONTENT_TYPE, prometheus::CONTENT_TYPE)], text).into_response())
    })
    .await
}

async fn jmx_json(State(state): Shared, uri: Uri) -> Response {
    render(state, uri, |s, q| {
        let snapshot = Snapshot::read(&s.database, s.conn.as_ref())?;
        let json = jmx::render(&snapshot, &s.info, q.get("qry"));
        Ok(([(CONTENT_TYPE, jmx::CONTENT_TYPE)], json).into_response())
    })
    .await
}

async fn stylesheet() -> Response {
    (
        [
            (CONTENT_TYPE, "text/css; charset=utf-8"),
            (CACHE_CONTROL, "max-age=3600"),
        ],
        STYLESHEET,
    )
        .into_response()
}

async fn not_found(uri: Uri) -> Response {
    problem(WebError::NotFound(format!("no page at {}", uri.path())))
}

/// Parses the query, then runs `page` on a blocking thread once a render slot is free.
async fn render<F>(state: Arc<AppState>, uri: Uri, page: F) -> Response
where
    F: FnOnce(&AppState, &Query) -> Result<Response, WebError> + Send + 'static,
{
    let query = match Query::parse(uri.query()) {
        Ok(query) => query,
        Err(e) => return problem(e),
    };
    // The slot moves into the render, so a client hanging up does not free it early.
    let Ok(slot) = state.renders.clone().acquire_owned().await else {
        return problem(WebError::Internal(
            "the web UI is shutting down".to_string(),
        ));
    };
    let task_state = state.clone();
    let rendered = tokio::task::spawn_blocking(move || {
        let _slot = slot;
        page(&task_state, &query)
    });
    match rendered.await {
        Ok(Ok(response)) => response,
        Ok(Err(e)) => problem(e),
        Err(e) => problem(WebError::Internal(format!("the page failed: {e}"))),
    }
}

fn html(body: String) -> Response {
    ([(CONTENT_TYPE, HTML)], body).into_response()
}

fn problem(error: WebError) -> Response {
    let status = error.status();
    if status.is_server_error() {
        tracing::warn!(error = %error, "web UI request failed");
    } else {
        tracing::debug!(error = %error, "web UI request refused");
    }
    (
        status,
        [(CONTENT_TYPE, HTML)],
        pages::problem::render(&error),
    )
        .into_response()
}

/// Refuses requests with a huge target or huge headers before any page looks at them
/// (hyper alone accepts several hundred kilobytes).
async fn refuse_oversized(request: Request, next: Next) -> Response {
    let uri_bytes = request.uri().to_string().len();
    if uri_bytes > URI_MAX_BYTES {
        return problem(WebError::UriTooLong {
            length: uri_bytes,
            max: URI_MAX_BYTES,
        });
    }
    let header_bytes: usize = request
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len())
        .sum();
    if header_bytes > HEADERS_MAX_BYTES {
        return problem(WebError::HeadersTooLarge {
            length: header_bytes,
            max: HEADERS_MAX_BYTES,
        });
    }
    next.run(request).await
}

async fn security_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    headers.insert(X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    if !headers.contains_key(CACHE_CONTROL) {
        headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}
