//! Authentication on connect: a tower layer in front of every gRPC service of a listener
//! (table, admin, and the master's and region servers' own), so that no service or new
//! method can be forgotten.
//!
//! Each call's `authorization` metadata (HTTP Basic, `Bearer`, or the cluster secret) goes
//! to the process's [`Authenticator`]; the [`basalt_api::Principal`] it yields is put in the request's
//! extensions, where [`crate::principal`]'s layer (inside this one) takes it and runs the
//! call with it: the ACL checks, scanner ownership and the slow log all see that one
//! principal ([`crate::principal::current`]). A refusal is answered at once with
//! UNAUTHENTICATED (`AccessControlException`), before the request body is read, so with
//! authentication required the user a client names in its user-agent never counts.
//! Without an authenticator this layer passes every call through untouched and the
//! principal layer runs it as the user its client names (HBase's SIMPLE).
//!
//! One exemption: `UserService/AddUser` sent without `authorization` but with the
//! `basalt-bootstrap-token` metadata is let through after the token is checked (throttled,
//! counted and audited as a password), with no principal: the user service then adds the
//! first superuser and consumes the token in one transaction ([`crate::users`]).

use crate::internal::Gate;
use crate::slowlog::user_of;
use basalt_api::{ApiError, ErrorKind};
use basalt_auth::{Attempt, AuthError, Authenticator};
use basalt_proto::status::{to_status, ACCESS_CONTROL};
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tonic::body::Body;
use tonic::transport::server::TcpConnectInfo;

/// The authenticator a server checks calls with (none: SIMPLE); in
/// [`crate::ServerConfig::auth`], not part of the file's settings.
#[derive(Clone, Default)]
pub struct AuthSlot(pub Option<Arc<Authenticator>>);

impl std::fmt::Debug for AuthSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Some(a) => write!(f, "{a:?}"),
            None => write!(f, "no authentication"),
        }
    }
}

impl PartialEq for AuthSlot {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }
}

impl Eq for AuthSlot {}

/// The status a refused authentication is answered with.
pub fn refusal(e: &AuthError) -> tonic::Status {
    let kind = match e {
        AuthError::Throttled { .. } | AuthError::Unavailable(_) => ErrorKind::Busy,
        _ => ErrorKind::InvalidRequest,
    };
    to_status(&ApiError::new(kind, ACCESS_CONTROL, e.to_string()))
}

#[derive(Clone)]
pub struct AuthLayer {
    auth: Option<Arc<Authenticator>>,
    gate: Option<Gate>,
}

impl AuthLayer {
    /// `gate`: with authorization on, who may call the cluster's own services
    /// ([`crate::internal`]).
    pub fn new(auth: Option<Arc<Authenticator>>, gate: Option<Gate>) -> Self {
        Self { auth, gate }
    }
}

impl<S> tower_layer::Layer<S> for AuthLayer {
    type Service = AuthService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        AuthService {
            inner,
            auth: self.auth.clone(),
            gate: self.gate.clone(),
        }
    }
}

#[derive(Clone)]
pub struct AuthService<S> {
    inner: S,
    auth: Option<Arc<Authenticator>>,
    gate: Option<Gate>,
}

type Req = http::Request<Body>;
type Resp = http::Response<Body>;

impl<S> tower_service::Service<Req> for AuthService<S>
where
    S: tower_service::Service<Req, Response = Resp, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Resp;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Resp, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut req: Req) -> Self::Future {
        // The clone that was made ready is the one called.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let auth = self.auth.clone();
        let gate = self.gate.clone();
        Box::pin(async move {
            let header = req
                .headers()
                .get(http::header::AUTHORIZATION)
                .map(|v| v.to_str().unwrap_or("(not text)").to_string());
            let agent = req
                .headers()
                .get(http::header::USER_AGENT)
                .and_then(|v| v.to_str().ok());
            let asserted = user_of(agent);
            // The one call allowed without credentials: the first superuser's AddUser
            // with the bootstrap token (checked, throttled and audited here; consumed
            // by the add itself).
            if let (Some(auth), None) = (auth.as_ref().filter(|a| a.required()), &header) {
                if let Some(token) = bootstrap_token(&req) {
                    let attempt = Attempt {
                        header: None,
                        addr: remote_ip(&req),
                        operation: req.uri().path(),
                        asserted_user: None,
                    };
                    if let Err(e) = auth.check_bootstrap(&token, attempt).await {
                        return Ok(refusal(&e).into_http());
                    }
                    req.extensions_mut()
                        .insert(crate::users::BootstrapToken(token));
                    return inner.call(req).await;
                }
            }
            let principal = match &auth {
                // SIMPLE: the principal layer names the call's user.
                None => Ok(crate::principal::of_request(&req)),
                Some(auth) => {
                    let attempt = Attempt {
                        header: header.as_deref(),
                        addr: remote_ip(&req),
                        operation: req.uri().path(),
                        asserted_user: Some(&asserted),
                    };
                    auth.authenticate(attempt).await
                }
            };
            let p = match principal {
                Ok(p) => p,
                Err(e) => return Ok(refusal(&e).into_http()),
            };
            if let Some(gate) = &gate {
                if let Err(e) = gate.admit(&p, req.uri().path()) {
                    return Ok(to_status(&e).into_http());
                }
            }
            if auth.is_some() {
                req.extensions_mut().insert(p);
            }
            inner.call(req).await
        })
    }
}

/// The path of the one call the bootstrap token may authorize.
const BOOTSTRAP_PATH: &str = "/basalt.v1.UserService/AddUser";

/// The bootstrap token `req` carries, when it is that call.
fn bootstrap_token(req: &Req) -> Option<String> {
    if req.uri().path() != BOOTSTRAP_PATH {
        return None;
    }
    let value = req.headers().get(basalt_auth::bootstrap::HEADER)?;
    Some(value.to_str().unwrap_or("(not text)").trim().to_string())
}

fn remote_ip(req: &Req) -> Option<std::net::IpAddr> {
    req.extensions()
        .get::<TcpConnectInfo>()
        .and_then(|c| c.remote_addr)
        .map(|a| a.ip())
}
