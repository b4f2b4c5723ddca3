//! A gateway in its own process (`basalt rest --connect`, `basalt thrift --connect`) with
//! authentication required keeps no users: it passes each client's credentials through.
//!
//! ```text
//!  client ──Basic/Bearer/SASL PLAIN──▶ gateway ──the same credentials (gRPC)──▶ backend
//!                                        │ Authenticator (cache, limiter, audit)
//!                                        │   └ BackendVerifier: connect as the client
//!                                        │ Principal + its backend connection
//!                                        └ PassThrough: each call on that connection
//! ```
//!
//! The gateway's [`basalt_auth::Authenticator`] checks a credential with a
//! [`BackendVerifier`]: it makes a [`basalt_client::RemoteConnection`] presenting that
//! credential and makes one cheap authenticated call, so a wrong password is refused at
//! once (401, SASL BAD) and counted by the gateway's failure limiter. The principal it
//! answers carries that connection ([`basalt_api::Principal::with_backend`]), and the
//! gateway serves [`PassThrough`], whose calls run on the current principal's connection:
//! the backend authenticates every call and checks HBase's ACLs for that user, exactly as
//! for its direct clients. Connections are kept per credential in a small [`pool`] (LRU,
//! idle expiry), so a client does not reconnect at each credential-cache expiry.
//!
//! # Layout
//! - [`pool`]: the bounded pool, a pure core over injected time.
//! - [`verifier`]: [`BackendVerifier`], checking credentials at the backend.
//! - [`refused`]: the admin served to a call with no authenticated principal.
//! - [`setup`]: [`setup::GatewaySecurity`], from `--auth` and `[security]`.

pub mod pool;
pub mod refused;
pub mod setup;
pub mod verifier;

pub use verifier::BackendVerifier;

use basalt_api::{Admin, ApiError, Connection, ErrorKind, Table};
use basalt_types::TableName;
use std::sync::Arc;

/// Hadoop's exception for a caller that did not prove who it is (as the servers send it).
pub const ACCESS_CONTROL: &str = "org.apache.hadoop.security.AccessControlException";

/// The connection a credential-passing gateway serves: every call runs on the backend
/// connection of the principal running on this thread (`basalt_acl::context`).
#[derive(Debug, Default, Clone, Copy)]
pub struct PassThrough;

/// The error of a call that arrives without an authenticated principal.
pub fn unauthenticated() -> ApiError {
    ApiError::new(
        ErrorKind::InvalidRequest,
        ACCESS_CONTROL,
        "this gateway passes its clients' credentials to the server: the call carried none",
    )
}

fn backend() -> Result<Arc<dyn Connection>, ApiError> {
    basalt_acl::context::current()
        .and_then(|p| p.backend().cloned())
        .ok_or_else(unauthenticated)
}

impl Connection for PassThrough {
    fn table(&self, name: &TableName) -> basalt_api::Result<Arc<dyn Table>> {
        backend()?.table(name)
    }

    fn admin(&self) -> Arc<dyn Admin> {
        match backend() {
            Ok(conn) => conn.admin(),
            Err(_) => Arc::new(refused::RefusedAdmin),
        }
    }
}
