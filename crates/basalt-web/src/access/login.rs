//! `GET /login` (the form), `POST /login` (user and password → a session cookie and a 303
//! to the page asked for), `GET /logout` (the sign-out form, with the CSRF token) and
//! `POST /logout` (ends the session; the guard has checked the token).

use super::{redirect, Signed, FORM_MAX_BYTES};
use crate::pages::login;
use crate::query::Query;
use crate::server::{problem, AppState};
use crate::WebError;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use basalt_auth::http_guard;
use basalt_auth::{Attempt, Credentials};
use basalt_net::Peer;
use std::sync::Arc;
use std::time::Instant;

const HTML: &str = "text/html; charset=utf-8";

/// A local path to go to after signing in: anything else (another site, `//host`) is `/`.
fn local(next: Option<&str>) -> String {
    match next {
        Some(n) if n.starts_with('/') && !n.starts_with("//") && !n.contains('\\') => n.to_string(),
        _ => "/".to_string(),
    }
}

fn page(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, HTML)], body).into_response()
}

fn no_login(state: &AppState) -> Response {
    problem(
        state.role(),
        WebError::NotFound("authentication is off: there is nothing to sign in to".into()),
    )
}

pub(crate) async fn login_form(State(state): State<Arc<AppState>>, request: Request) -> Response {
    if state.access.auth.is_none() {
        return no_login(&state);
    }
    let query = Query::parse(request.uri().query()).unwrap_or_default();
    page(
        StatusCode::OK,
        login::render(state.role(), None, &local(query.get("next"))),
    )
}

pub(crate) async fn login_post(
    State(state): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<Peer>,
    request: Request,
) -> Response {
    let Some(auth) = &state.access.auth else {
        return no_login(&state);
    };
    let role = state.role();
    let client = peer.addr().ip();
    let Ok(bytes) = axum::body::to_bytes(request.into_body(), FORM_MAX_BYTES).await else {
        return problem(
            role,
            WebError::BadRequest("the sign-in form is too large".into()),
        );
    };
    let form = match Query::parse(std::str::from_utf8(&bytes).ok()) {
        Ok(form) => form,
        Err(e) => return problem(role, e),
    };
    let next = local(form.get("next"));
    let refuse = |status, message: &str| page(status, login::render(role, Some(message), &next));
    let (Some(user), Some(password)) = (form.get("user"), form.get("password")) else {
        return refuse(
            StatusCode::BAD_REQUEST,
            "the form needs a user and a password",
        );
    };
    if !http_guard::basic_allowed(client, auth.encrypted) {
        basalt_auth::audit::auth_failed(
            user,
            Some(client),
            "web login",
            http_guard::BASIC_IN_CLEAR,
        );
        return refuse(StatusCode::UNAUTHORIZED, http_guard::BASIC_IN_CLEAR);
    }
    let header = Credentials::Password {
        user: user.to_string(),
        password: password.to_string(),
    }
    .header_value();
    let attempt = Attempt {
        header: Some(&header),
        addr: Some(client),
        operation: "web login",
        asserted_user: None,
    };
    let principal = match auth.authenticator.authenticate(attempt).await {
        Ok(p) => p,
        Err(e) if e.is_unauthenticated() => {
            return refuse(StatusCode::UNAUTHORIZED, &e.to_string())
        }
        Err(e) => return refuse(StatusCode::SERVICE_UNAVAILABLE, &e.to_string()),
    };
    if !auth.authenticator.is_superuser(&principal) {
        let why = "the web UI shows every table's rows: only superusers sign in";
        basalt_auth::audit::denied(principal.name(), Some(client), "web login", "web UI", why);
        return refuse(StatusCode::FORBIDDEN, why);
    }
    let (id, csrf) = match (
        basalt_auth::token::secret_hex(32),
        basalt_auth::token::secret_hex(32),
    ) {
        (Ok(id), Ok(csrf)) => (id, csrf),
        (Err(e), _) | (_, Err(e)) => {
            return refuse(StatusCode::SERVICE_UNAVAILABLE, &e.to_string())
        }
    };
    tracing::info!(user = principal.name(), %client, "signed in to the web UI");
    auth.sessions
        .insert(id.clone(), principal, csrf, Instant::now());
    redirect(&next, Some(auth.set_cookie(Some(&id))))
}

pub(crate) async fn logout_form(State(state): State<Arc<AppState>>, request: Request) -> Response {
    match request.extensions().get::<Signed>() {
        Some(signed) => page(
            StatusCode::OK,
            login::logout(
                state.role(),
                signed.session.principal.name(),
                &signed.session.csrf,
            ),
        ),
        None => no_login(&state),
    }
}

pub(crate) async fn logout_post(State(state): State<Arc<AppState>>, request: Request) -> Response {
    let (Some(auth), Some(signed)) = (&state.access.auth, request.extensions().get::<Signed>())
    else {
        return no_login(&state);
    };
    auth.sessions.remove(&signed.id);
    tracing::info!(
        user = signed.session.principal.name(),
        "signed out of the web UI"
    );
    redirect("/login", Some(auth.set_cookie(None)))
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_local_paths_are_followed_after_signing_in() {
        for (next, to) in [
            (Some("/table.jsp?name=t"), "/table.jsp?name=t"),
            (Some("//evil.example/x"), "/"),
            (Some("https://evil.example"), "/"),
            (Some("/\\evil.example"), "/"),
            (None, "/"),
        ] {
            assert_eq!(super::local(next), to, "{next:?}");
        }
    }
}
