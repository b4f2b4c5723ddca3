//! The HTTP server: routes (by the kind of process, [`Role`]), the security headers on
//! every response, pages rendered on blocking threads (they call the database or the RPC
//! services) with a cap on how many at once, start and graceful shutdown. Connections are
//! `basalt_net`'s: idle and trickling sockets cannot keep a browser or a scraper out.

use crate::heat::{sampler::Sampler, Heat};
use crate::layout::{STYLESHEET, STYLESHEET_PATH};
use crate::metrics::{cluster, jmx, process, prometheus};
use crate::pages;
use crate::query::Query;
use crate::remote::{master::MasterSource, region_server::RegionServerSource};
use crate::source::{Role, Source};
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
    pub source: Source,
    /// The names served and the authentication (see [`crate::access`]).
    pub access: crate::access::Access,
    pub info: ServerInfo,
    pub heat: Arc<Heat>,
    renders: Arc<Semaphore>,
}

impl AppState {
    pub fn role(&self) -> Role {
        self.source.role()
    }
}

/// A running web UI.
#[derive(Debug)]
pub struct WebServer {
    addr: SocketAddr,
    stop: oneshot::Sender<()>,
    task: JoinHandle<()>,
    /// Stops with the server (dropped with it).
    _sampler: Option<Sampler>,
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

/// The web UI over an embedded database: binds `config`'s address now (so a taken port
/// fails here) and serves on a task of the current tokio runtime.
pub fn start(
    database: Arc<Database>,
    conn: Arc<dyn Connection>,
    info: ServerInfo,
    config: WebConfig,
) -> Result<WebServer, WebError> {
    start_with(Source::Embedded { database, conn }, info, config)
}

/// `basalt standalone`'s web UI: its region server read over RPC at `server_addr`, its
/// master through `conn`; binds now and serves on a task of the current tokio runtime.
pub fn start_standalone(
    conn: Arc<dyn Connection>,
    server_addr: String,
    info: ServerInfo,
    config: WebConfig,
) -> Result<WebServer, WebError> {
    let runtime = tokio::runtime::Handle::try_current().map_err(|_| WebError::NoRuntime)?;
    let addr = Arc::new(std::sync::OnceLock::new());
    addr.get_or_init(|| server_addr);
    let server = RegionServerSource::new(runtime, addr);
    start_with(Source::Standalone { server, conn }, info, config)
}

/// A cluster master's web UI, reading the master at `info.grpc_addr` (once set) over RPC.
pub fn start_master(info: ServerInfo, config: WebConfig) -> Result<WebServer, WebError> {
    let runtime = tokio::runtime::Handle::try_current().map_err(|_| WebError::NoRuntime)?;
    let source = MasterSource::new(runtime, info.grpc_addr.clone());
    start_with(Source::Master(source), info, config)
}

/// A region server's web UI, reading the server at `info.grpc_addr` (once set) over RPC.
pub fn start_region_server(info: ServerInfo, config: WebConfig) -> Result<WebServer, WebError> {
    let runtime = tokio::runtime::Handle::try_current().map_err(|_| WebError::NoRuntime)?;
    let source = RegionServerSource::new(runtime, info.grpc_addr.clone());
    start_with(Source::RegionServer(source), info, config)
}

/// Binds `config`'s address now and serves the pages of `source` on a task of the current
/// tokio runtime.
pub fn start_with(
    source: Source,
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
        .map(|listener| listener.with_tls(config.tls.get(), basalt_net::Plaintext::REFUSE_HTTP))
        .map_err(|source| WebError::Bind {
            addr: format!("{}:{}", config.bind, config.port),
            source,
        })?
    };
    let local = listener.local_addr();
    let role = source.role();
    let auth = info
        .auth
        .clone()
        .map(|authenticator| crate::access::WebAuth {
            // Over TLS: `Secure` session cookies, and Basic from anywhere.
            encrypted: config.tls.is_on(),
            ..crate::access::WebAuth::new(
                authenticator,
                local.port(),
                Duration::from_millis(config.session_ttl_ms),
                config.sessions_max,
            )
        });
    let access = crate::access::Access {
        names: basalt_auth::http_guard::ServedNames::new(&config.bind, local.port(), &config.hosts),
        auth,
    };
    let state = Arc::new(AppState {
        source,
        access,
        info,
        heat: Arc::new(Heat::new(config.heat.clone())),
        renders: Arc::new(Semaphore::new(RENDERS_MAX)),
    });
    let sampler = crate::heat::sampler::start(state.clone());
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
    tracing::info!(addr = %local, ?role, "web UI listening");
    Ok(WebServer {
        addr: local,
        stop,
        task,
        _sampler: sampler,
    })
}

/// The pages of each kind of process: a standalone server has them all; a master the
/// cluster's home and tables; a region server its status page and `/jmx`.
fn router(state: Arc<AppState>) -> Router {
    let routes = Router::new();
    let routes = match state.role() {
        Role::Standalone => routes
            .route("/", get(home))
            .route("/master-status", get(home))
            .route("/table.jsp", get(table))
            .route("/table", get(table))
            .route("/rs-status", get(region_server))
            .route("/jmx", get(jmx_json)),
        Role::Master => routes
            .route("/", get(master_home))
            .route("/master-status", get(master_home))
            .route("/table.jsp", get(table))
            .route("/table", get(table)),
        Role::RegionServer => routes
            .route("/", get(region_server))
            .route("/rs-status", get(region_server))
            .route("/jmx", get(jmx_json)),
    };
    routes
        .route("/conf", get(conf))
        .route("/logs", get(logs))
        .route("/logs/", get(logs))
        .route("/metrics", get(metrics))
        .route("/prometheus", get(metrics))
        .route(STYLESHEET_PATH, get(stylesheet))
        .route(
            "/login",
            get(crate::access::login_form).post(crate::access::login_post),
        )
        .route(
            "/logout",
            get(crate::access::logout_form).post(crate::access::logout_post),
        )
        .fallback(not_found)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::access::guard,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            refuse_oversized,
        ))
        .layer(axum::middleware::map_response(security_headers))
        .with_state(state)
}

type Shared = State<Arc<AppState>>;

async fn home(State(state): Shared, uri: Uri) -> Response {
    render(state, uri, |s, _| pages::home::render(s).map(html)).await
}

async fn master_home(State(state): Shared, uri: Uri) -> Response {
    render(state, uri, |s, _| pages::master::render(s).map(html)).await
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
        let uptime = s.info.uptime().as_secs_f64();
        let mut text = match &s.source {
            Source::Master(master) => cluster::render(&master.view()?, uptime),
            source => {
                let mut text = prometheus::render(&source.snapshot()?, uptime);
                text.push_str(&crate::heat::metrics::exposition(&s.heat));
                text
            }
        };
        text.push_str(&process::exposition());
        Ok(([(CONTENT_TYPE, prometheus::CONTENT_TYPE)], text).into_response())
    })
    .await
}

async fn jmx_json(State(state): Shared, uri: Uri) -> Response {
    render(state, uri, |s, q| {
        let snapshot = s.source.snapshot()?;
        let mut info = s.info.clone();
        if let Some(name) = &snapshot.server {
            info.server_name.clone_from(name);
        }
        let json = jmx::render(&snapshot, &info, q.get("qry"));
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

async fn not_found(State(state): Shared, uri: Uri) -> Response {
    problem(
        state.role(),
        WebError::NotFound(format!("no page at {}", uri.path())),
    )
}

/// Parses the query, then runs `page` on a blocking thread once a render slot is free.
async fn render<F>(state: Arc<AppState>, uri: Uri, page: F) -> Response
where
    F: FnOnce(&AppState, &Query) -> Result<Response, WebError> + Send + 'static,
{
    let query = match Query::parse(uri.query()) {
        Ok(query) => query,
        Err(e) => return problem(state.role(), e),
    };
    // The slot moves into the render, so a client hanging up does not free it early.
    let Ok(slot) = state.renders.clone().acquire_owned().await else {
        return problem(
            state.role(),
            WebError::Internal("the web UI is shutting down".to_string()),
        );
    };
    let role = state.role();
    let task_state = state.clone();
    let rendered = tokio::task::spawn_blocking(move || {
        let _slot = slot;
        page(&task_state, &query)
    });
    match rendered.await {
        Ok(Ok(response)) => response,
        Ok(Err(e)) => problem(role, e),
        Err(e) => problem(role, WebError::Internal(format!("the page failed: {e}"))),
    }
}

fn html(body: String) -> Response {
    ([(CONTENT_TYPE, HTML)], body).into_response()
}

pub(crate) fn problem(role: Role, error: WebError) -> Response {
    let status = error.status();
    if status.is_server_error() {
        tracing::warn!(error = %error, "web UI request failed");
    } else {
        tracing::debug!(error = %error, "web UI request refused");
    }
    (
        status,
        [(CONTENT_TYPE, HTML)],
        pages::problem::render(role, &error),
    )
        .into_response()
}

/// Refuses requests with a huge target or huge headers before any page looks at them
/// (hyper alone accepts several hundred kilobytes).
async fn refuse_oversized(State(state): Shared, request: Request, next: Next) -> Response {
    let uri_bytes = request.uri().to_string().len();
    if uri_bytes > URI_MAX_BYTES {
        return problem(
            state.role(),
            WebError::UriTooLong {
                length: uri_bytes,
                max: URI_MAX_BYTES,
            },
        );
    }
    let header_bytes: usize = request
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len())
        .sum();
    if header_bytes > HEADERS_MAX_BYTES {
        return problem(
            state.role(),
            WebError::HeadersTooLarge {
                length: header_bytes,
                max: HEADERS_MAX_BYTES,
            },
        );
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
