//! Who may see the pages: every request is checked here before a page renders.
//!
//! Always: the `Host` must be a name this server serves (else 421: a DNS-rebinding page
//! gets nothing), and a POST sent by a page of another origin is refused (403). With
//! authentication on ([`WebAuth`], from [`crate::ServerInfo::auth`]):
//!
//! | request | needs | without it |
//! |---|---|---|
//! | `GET /login`, `POST /login`, the stylesheet | nothing | — |
//! | an HTML page (GET) | a session cookie | 303 to `/login?next=…` |
//! | `/metrics` `/prometheus` `/jmx` | a session, or `Authorization` (Bearer; Basic from loopback) | 401 |
//! | any POST (`/logout`) | a session and its CSRF token (`csrf` field or `X-CSRF-Token`) | 401 / 403 |
//!
//! Signing in (`POST /login`, user and password through the [`Authenticator`]) is for
//! superusers only: the pages show every table's rows. A session is a random id in an
//! `HttpOnly; SameSite=Strict; Path=/` cookie (`Secure` over TLS) named after the port,
//! so a master and a region server on one host keep theirs apart.
//!
//! # Layout
//! - [`sessions`]: the bounded in-memory sessions and the CSRF comparison.
//! - `login`: the sign-in and sign-out handlers.

mod login;
pub mod sessions;

pub(crate) use login::{login_form, login_post, logout_form, logout_post};

use crate::layout::STYLESHEET_PATH;
use crate::query::Query;
use crate::server::AppState;
use crate::WebError;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use basalt_auth::http_guard::{self, ServedNames};
use basalt_auth::{Attempt, Authenticator, Credentials};
use basalt_net::Peer;
use sessions::{Session, Sessions};
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The longest form body read (the sign-in and sign-out forms are a few fields).
const FORM_MAX_BYTES: usize = crate::query::QUERY_MAX_BYTES;
/// The header a script-less client may send the CSRF token in instead of the form field.
pub const CSRF_HEADER: &str = "x-csrf-token";

/// Authentication of a web UI.
#[derive(Debug)]
pub struct WebAuth {
    pub authenticator: Arc<Authenticator>,
    pub sessions: Sessions,
    /// Whether requests arrive over TLS (`Secure` cookies, Basic from anywhere).
    pub encrypted: bool,
    /// The session cookie's name.
    pub cookie: String,
}

impl WebAuth {
    pub fn new(authenticator: Arc<Authenticator>, port: u16, ttl: Duration, max: usize) -> Self {
        Self {
            authenticator,
            sessions: Sessions::new(ttl, max),
            encrypted: false,
            cookie: format!("basalt_session_{port}"),
        }
    }

    /// The session the request's cookie names, with its id.
    pub fn session(&self, headers: &HeaderMap) -> Option<(String, Session)> {
        let prefix = format!("{}=", self.cookie);
        let id = headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .find_map(|c| c.trim().strip_prefix(prefix.as_str()))?
            .to_string();
        let session = self.sessions.get(&id, Instant::now())?;
        Some((id, session))
    }

    /// The `Set-Cookie` value opening session `id` (or, with None, ending it).
    pub fn set_cookie(&self, id: Option<&str>) -> String {
        let (value, age) = match id {
            Some(id) => (id, self.sessions.ttl().as_secs()),
            None => ("", 0),
        };
        let secure = if self.encrypted { "; Secure" } else { "" };
        format!(
            "{}={value}; HttpOnly; SameSite=Strict; Path=/; Max-Age={age}{secure}",
            self.cookie
        )
    }
}

/// What the request's checks established, for the handlers.
#[derive(Debug, Clone)]
pub struct Signed {
    pub id: String,
    pub session: Session,
}

/// The names this server serves and its authentication.
pub(crate) struct Access {
    pub names: ServedNames,
    pub auth: Option<WebAuth>,
}

fn is_machine_path(path: &str) -> bool {
    matches!(path, "/metrics" | "/prometheus" | "/jmx")
}

/// 401 with the challenge.
pub(crate) fn unauthorized(role: crate::source::Role, message: &str) -> Response {
    let mut response = crate::server::problem(role, WebError::Unauthorized(message.to_string()));
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static(http_guard::WWW_AUTHENTICATE),
    );
    response
}

/// The checks of the module doc, as a middleware.
pub(crate) async fn guard(
    State(state): State<Arc<AppState>>,
    request: Request,
    next: Next,
) -> Response {
    let role = state.role();
    let client = request
        .extensions()
        .get::<axum::extract::ConnectInfo<Peer>>()
        .map(|p| p.0.addr().ip());
    if let Some(refused) = addressed(
        &state,
        request.method(),
        request.headers(),
        request.uri().path(),
        client,
    ) {
        return refused;
    }
    let Some(auth) = &state.access.auth else {
        return next.run(request).await;
    };
    let path = request.uri().path().to_string();
    if path == "/login" || path == STYLESHEET_PATH {
        return next.run(request).await;
    }
    let safe = matches!(*request.method(), Method::GET | Method::HEAD);
    let Some((id, session)) = auth.session(request.headers()) else {
        if is_machine_path(&path) {
            return machine(auth, role, client, request, next).await;
        }
        if safe {
            let target = request
                .uri()
                .path_and_query()
                .map_or("/", |p| p.as_str())
                .to_string();
            let location = crate::query::link("/login", &[("next", &target)]);
            return redirect(&location, None);
        }
        return unauthorized(role, "sign in first (POST /login)");
    };
    let mut request = request;
    if !safe {
        let (parts, body) = request.into_parts();
        let Ok(bytes) = axum::body::to_bytes(body, FORM_MAX_BYTES).await else {
            return crate::server::problem(
                role,
                WebError::BadRequest(format!("a form body is at most {FORM_MAX_BYTES} bytes")),
            );
        };
        let form = Query::parse(std::str::from_utf8(&bytes).ok()).unwrap_or_default();
        let given = form
            .get("csrf")
            .or_else(|| parts.headers.get(CSRF_HEADER).and_then(|v| v.to_str().ok()));
        if !sessions::csrf_matches(&session, given) {
            basalt_auth::audit::denied(
                session.principal.name(),
                client,
                &format!("web {}", parts.method),
                &path,
                "missing or wrong CSRF token",
            );
            return crate::server::problem(role, WebError::Forbidden("this form carries no valid CSRF token of your session: reload the page and submit it again".to_string()));
        }
        request = Request::from_parts(parts, axum::body::Body::from(bytes));
    }
    request.extensions_mut().insert(Signed { id, session });
    next.run(request).await
}

/// The Host and Origin checks (with or without authentication): the refusal, if any.
fn addressed(
    state: &AppState,
    method: &Method,
    headers: &HeaderMap,
    path: &str,
    client: Option<IpAddr>,
) -> Option<Response> {
    let role = state.role();
    let text = |name| {
        headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    if let Err(refusal) = state.access.names.host(text(header::HOST)) {
        return Some(crate::server::problem(
            role,
            WebError::Misdirected(refusal.to_string()),
        ));
    }
    if let Err(refusal) =
        state
            .access
            .names
            .origin(method.as_str(), text(header::ORIGIN), text(header::HOST))
    {
        basalt_auth::audit::denied("(unchecked)", client, "web", path, &refusal.to_string());
        return Some(crate::server::problem(
            role,
            WebError::Forbidden(refusal.to_string()),
        ));
    }
    None
}

/// `/metrics`, `/prometheus`, `/jmx` without a session: an `Authorization` header.
async fn machine(
    auth: &WebAuth,
    role: crate::source::Role,
    client: Option<IpAddr>,
    request: Request,
    next: Next,
) -> Response {
    let header = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    let Some(header) = header else {
        return unauthorized(role, "send a token (Authorization: Bearer) or sign in");
    };
    let password = matches!(Credentials::parse(header), Ok(Credentials::Password { .. }));
    if password && !client.is_some_and(|c| http_guard::basic_allowed(c, auth.encrypted)) {
        return unauthorized(role, http_guard::BASIC_IN_CLEAR);
    }
    let operation = format!("web {}", request.uri().path());
    let attempt = Attempt {
        header: Some(header),
        addr: client,
        operation: &operation,
        asserted_user: None,
    };
    match auth.authenticator.authenticate(attempt).await {
        Ok(_) => next.run(request).await,
        Err(e) if e.is_unauthenticated() => unauthorized(role, &e.to_string()),
        Err(e) => crate::server::problem(role, WebError::Unavailable(e.to_string())),
    }
}

/// 303 to `location`, setting `cookie` when given.
pub(crate) fn redirect(location: &str, cookie: Option<String>) -> Response {
    let mut response = StatusCode::SEE_OTHER.into_response();
    let headers = response.headers_mut();
    if let Ok(v) = HeaderValue::from_str(location) {
        headers.insert(header::LOCATION, v);
    }
    if let Some(v) = cookie.and_then(|c| HeaderValue::from_str(&c).ok()) {
        headers.insert(header::SET_COOKIE, v);
    }
    response
}
