//! What every request handler gets: the connection, the settings, the open scanners, and
//! the request itself; plus the helpers to run blocking calls and write answers.

use crate::access::RestAuth;
use crate::config::RestConfig;
use crate::error::{RestError, Result};
use crate::model::Model;
use crate::repr::{xml, Media};
use crate::scanners::Scanners;
use crate::url::Query;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use basalt_api::{Connection, Principal, Table};
use basalt_types::TableName;
use bytes::Bytes;
use std::net::IpAddr;
use std::sync::Arc;

/// The gateway's shared state.
pub struct Gateway {
    pub conn: Arc<dyn Connection>,
    pub config: RestConfig,
    pub scanners: Scanners,
    /// Authentication; None: requests run unauthenticated (SIMPLE, nothing checked).
    pub auth: Option<RestAuth>,
}

impl Gateway {
    pub fn new(conn: Arc<dyn Connection>, config: RestConfig, auth: Option<RestAuth>) -> Self {
        let scanners = Scanners::new(&config);
        Self {
            conn,
            config,
            scanners,
            auth,
        }
    }

    /// Fails with 403 when the gateway is read-only.
    pub fn check_writable(&self) -> Result<()> {
        if self.config.read_only {
            Err(RestError::Forbidden(
                "this REST gateway is read-only".to_string(),
            ))
        } else {
            Ok(())
        }
    }

    /// A handle on `table`, off the async threads.
    pub async fn table(self: &Arc<Self>, table: &TableName) -> Result<Arc<dyn Table>> {
        let gw = self.clone();
        let name = table.clone();
        blocking(move || Ok(gw.conn.table(&name)?)).await
    }
}

/// One request, read in full.
pub struct Request {
    pub method: Method,
    /// The raw path, still percent-escaped.
    pub path: String,
    pub query: Query,
    pub headers: HeaderMap,
    pub body: Bytes,
    pub client: IpAddr,
    /// Who sent it, when authenticated.
    pub principal: Option<Principal>,
}

impl Request {
    /// A header as text, if present.
    pub fn header(&self, name: &str) -> Result<Option<&str>> {
        self.headers
            .get(name)
            .map(|v| {
                v.to_str()
                    .map_err(|_| RestError::bad(format!("header {name} is not ASCII")))
            })
            .transpose()
    }
}

/// Runs a blocking call (every `Connection` call) on tokio's blocking pool, as the
/// request's principal (which the served connection's ACL checks read).
pub async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    let principal = crate::access::current();
    tokio::task::spawn_blocking(move || basalt_acl::context::with(principal, f))
        .await
        .map_err(|e| RestError::Unavailable(format!("the request's task failed: {e}")))?
}

/// `model` in `media` with `status`.
pub fn render(model: &dyn Model, media: Media, status: StatusCode) -> Response {
    let body = match media {
        Media::Json => model.json().to_string().into_bytes(),
        Media::Xml => format!("{}{}", xml::DECLARATION, model.xml()).into_bytes(),
        Media::Protobuf => model.protobuf(),
        Media::Text | Media::Octet => model.text().into_bytes(),
    };
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static(media.content_type()),
        )],
        body,
    )
        .into_response()
}

/// `model` in `media`, 200 OK.
pub fn ok(model: &dyn Model, media: Media) -> Response {
    render(model, media, StatusCode::OK)
}

/// A bodiless answer.
pub fn status(code: StatusCode) -> Response {
    code.into_response()
}

/// A plain-text answer.
pub fn text(code: StatusCode, body: &str) -> Response {
    (
        code,
        [(header::CONTENT_TYPE, "text/plain")],
        body.to_string(),
    )
        .into_response()
}
