//! Who each call runs as. A tower layer around every service takes the call's
//! [`Principal`] from the request's extensions (where an authentication layer outside
//! this one puts it), or else the user the client asserts in its `user-agent`
//! (`user=NAME`, HBase's SIMPLE authentication: named, not proven), and runs the call
//! with it as the task's principal. [`crate::shared::Shared`] hands it to the database
//! work of the call (`basalt_acl::context`), so a connection wrapped in
//! `basalt_acl::AuthorizedConnection::per_call` checks each call for its own user. With
//! authorization off the connection is not wrapped and the principal changes nothing.

use basalt_api::{AuthMethod, Principal};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

tokio::task_local! {
    static PRINCIPAL: Principal;
}

/// The principal of the call this task serves, if any.
pub fn current() -> Option<Principal> {
    PRINCIPAL.try_with(Principal::clone).ok()
}

/// The principal a request carries: an authenticated one from its extensions, else the
/// user named in its `user-agent`.
pub fn of_request<B>(req: &http::Request<B>) -> Principal {
    if let Some(p) = req.extensions().get::<Principal>() {
        return p.clone();
    }
    let agent = req
        .headers()
        .get("user-agent")
        .and_then(|v| v.to_str().ok());
    Principal::new(crate::slowlog::user_of(agent), AuthMethod::Simple)
}

/// The layer: see the module doc.
#[derive(Debug, Clone, Copy, Default)]
pub struct PrincipalLayer;

impl<S> tower_layer::Layer<S> for PrincipalLayer {
    type Service = PrincipalService<S>;
    fn layer(&self, inner: S) -> PrincipalService<S> {
        PrincipalService(inner)
    }
}

#[derive(Debug, Clone)]
pub struct PrincipalService<S>(S);

type Boxed<T, E> = Pin<Box<dyn Future<Output = Result<T, E>> + Send>>;

impl<S, B> tower_service::Service<http::Request<B>> for PrincipalService<S>
where
    S: tower_service::Service<http::Request<B>>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Boxed<S::Response, S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, req: http::Request<B>) -> Self::Future {
        let principal = of_request(&req);
        Box::pin(PRINCIPAL.scope(principal, self.0.call(req)))
    }
}
