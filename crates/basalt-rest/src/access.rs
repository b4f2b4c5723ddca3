//! Who may send a request, decided before its body is read.
//!
//! Every request: its `Host` must be one this gateway serves (else 421), and a PUT, POST
//! or DELETE sent by a page of another origin is refused (403), with or without
//! authentication. With authentication on ([`RestAuth`]) the request must also carry
//! `Authorization: Basic …` (from loopback, or over TLS) or `Bearer …`, checked by the
//! [`Authenticator`]: without it, 401 with `WWW-Authenticate: Basic realm="basalt"` and a
//! one-line reason, nothing else. The request then runs as its principal: the connection
//! the gateway serves checks each call for it (HBase's ACLs), because [`blocking`] sets
//! it around the call's work, and scanners remember whose they are.
//!
//! [`blocking`]: crate::gateway::blocking

use crate::gateway::Gateway;
use axum::http::{header, request::Parts, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use basalt_api::Principal;
use basalt_auth::http_guard::{self, ServedNames, WWW_AUTHENTICATE};
use basalt_auth::{Attempt, AuthError, Authenticator, Credentials};
use std::net::IpAddr;
use std::sync::Arc;

/// Authentication of a REST gateway.
#[derive(Clone)]
pub struct RestAuth {
    pub authenticator: Arc<Authenticator>,
    /// Whether requests arrive over TLS (then Basic is accepted from anywhere).
    pub encrypted: bool,
}

tokio::task_local! {
    static PRINCIPAL: Principal;
}

/// The principal of the request this task serves, if authenticated.
pub fn current() -> Option<Principal> {
    PRINCIPAL.try_with(Principal::clone).ok()
}

/// Runs `work` as `principal` (for [`current`]).
pub async fn scope<F: std::future::Future>(principal: Option<Principal>, work: F) -> F::Output {
    match principal {
        Some(p) => PRINCIPAL.scope(p, work).await,
        None => work.await,
    }
}

fn plain(status: StatusCode, message: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain")],
        format!("{message}\r\n"),
    )
        .into_response()
}

/// 401 with the challenge: the only answer an unauthenticated request gets.
fn unauthorized(message: &str) -> Response {
    let mut response = plain(StatusCode::UNAUTHORIZED, message);
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static(WWW_AUTHENTICATE),
    );
    response
}

/// The Host and Origin checks, then authentication; the principal the request runs as
/// (None with authentication off), or the answer refusing it (boxed: it is large).
pub async fn admit(
    gw: &Gateway,
    names: &ServedNames,
    parts: &Parts,
    client: IpAddr,
) -> Result<Option<Principal>, Box<Response>> {
    let text = |name: header::HeaderName| parts.headers.get(name).and_then(|v| v.to_str().ok());
    if let Err(refusal) = names.host(text(header::HOST)) {
        tracing::debug!(%client, %refusal, "REST request refused");
        return Err(Box::new(plain(
            StatusCode::MISDIRECTED_REQUEST,
            &refusal.to_string(),
        )));
    }
    if let Err(refusal) = names.origin(
        parts.method.as_str(),
        text(header::ORIGIN),
        text(header::HOST),
    ) {
        basalt_auth::audit::denied(
            "(unchecked)",
            Some(client),
            &format!("REST {}", parts.method),
            parts.uri.path(),
            &refusal.to_string(),
        );
        return Err(Box::new(plain(StatusCode::FORBIDDEN, &refusal.to_string())));
    }
    let Some(auth) = &gw.auth else {
        return Ok(None);
    };
    let header = match parts.headers.get(header::AUTHORIZATION) {
        None => None,
        Some(v) => match v.to_str() {
            Ok(v) => Some(v),
            Err(_) => {
                return Err(Box::new(unauthorized(
                    "the Authorization header is not ASCII",
                )))
            }
        },
    };
    let password =
        header.is_some_and(|h| matches!(Credentials::parse(h), Ok(Credentials::Password { .. })));
    if password && !http_guard::basic_allowed(client, auth.encrypted) {
        basalt_auth::audit::auth_failed(
            "(basic)",
            Some(client),
            "REST",
            http_guard::BASIC_IN_CLEAR,
        );
        return Err(Box::new(unauthorized(http_guard::BASIC_IN_CLEAR)));
    }
    let operation = format!("REST {} {}", parts.method, parts.uri.path());
    let attempt = Attempt {
        header,
        addr: Some(client),
        operation: &operation,
        asserted_user: None,
    };
    match auth.authenticator.authenticate(attempt).await {
        Ok(p) => Ok(Some(p)),
        Err(AuthError::Throttled { retry_after_ms }) => {
            let mut response = unauthorized(&format!(
                "too many failed attempts from this address; retry after {retry_after_ms} ms"
            ));
            let secs = retry_after_ms.div_ceil(1000).max(1).to_string();
            if let Ok(v) = HeaderValue::from_str(&secs) {
                response.headers_mut().insert(header::RETRY_AFTER, v);
            }
            Err(Box::new(response))
        }
        Err(e) if e.is_unauthenticated() => Err(Box::new(unauthorized(&e.to_string()))),
        Err(e) => Err(Box::new(plain(
            StatusCode::SERVICE_UNAVAILABLE,
            &e.to_string(),
        ))),
    }
}
