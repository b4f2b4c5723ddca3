//! Users and tokens through a running server's `UserService` (`basalt user … --connect`):
//! [`RemoteUsers`] on an authenticated connection, calls going to the active master, and
//! [`add_first_superuser`], the one call made without credentials, with the one-time
//! bootstrap token a master printed when no superuser existed.
//!
//! A change (add, issue a token) is retried only when the server says to try elsewhere or
//! later (a standby, a busy server), never after a lost answer, which may have been done.

use crate::connection::{retryable, Inner};
use crate::connector::{Authed, Connector};
use crate::{ClientConfig, RemoteConnection};
use basalt_api::{ApiError, ErrorKind, Result};
use basalt_proto::pb;
use basalt_proto::pb::user_service_client::UserServiceClient;
use std::sync::Arc;
use std::time::Duration;

/// One user as listed, and a token just issued: the user store's own types, whether
/// read locally or through the server.
pub use basalt_auth::store::{IssuedToken, UserInfo};

/// `UserService` on a connection (see the module doc).
#[derive(Clone)]
pub struct RemoteUsers {
    inner: Arc<Inner>,
}

/// Retried without risk of doing a change twice: the server said it did nothing.
fn refused_undone(kind: ErrorKind) -> bool {
    matches!(kind, ErrorKind::RetryElsewhere | ErrorKind::Busy)
}

impl RemoteConnection {
    /// The server's (a cluster: the active master's) `UserService`.
    pub fn users(&self) -> RemoteUsers {
        RemoteUsers {
            inner: self.inner.clone(),
        }
    }
}

/// One call with retries: `$method` on a fresh client of the active master with `$req`.
macro_rules! user_call {
    ($self:ident, $retry:expr, $method:ident, $req:expr) => {{
        let req = $req;
        $self.inner.call($retry, || {
            let mut c = $self.client();
            let req = req.clone();
            async move { c.$method(req).await }
        })
    }};
}

impl RemoteUsers {
    fn client(&self) -> UserServiceClient<Authed> {
        UserServiceClient::new(self.inner.config.presenter().on(self.inner.admin_channel()))
    }

    /// Adds `name`; the server's one-line answer.
    pub fn add(&self, name: &str, password: &str, superuser: bool) -> Result<String> {
        let req = pb::AddUserRequest {
            name: name.into(),
            password: password.into(),
            superuser,
        };
        Ok(user_call!(self, refused_undone, add_user, req)?.message)
    }

    /// Sets `name`'s password.
    pub fn passwd(&self, name: &str, password: &str) -> Result<String> {
        let req = pb::PasswdRequest {
            name: name.into(),
            password: password.into(),
        };
        Ok(user_call!(self, retryable, passwd, req)?.message)
    }

    /// Removes `name` and its tokens.
    pub fn remove(&self, name: &str) -> Result<String> {
        let req = pb::UserNameRequest { name: name.into() };
        Ok(user_call!(self, refused_undone, remove_user, req)?.message)
    }

    /// Every user, by name.
    pub fn list(&self) -> Result<Vec<UserInfo>> {
        let listing = user_call!(self, retryable, list_users, pb::ListUsersRequest {})?;
        Ok(listing
            .users
            .into_iter()
            .map(|u| UserInfo {
                name: u.name,
                superuser: u.superuser,
                created_ms: u.created_ms,
            })
            .collect())
    }

    /// Issues a token for `name`, valid for `ttl`.
    pub fn issue_token(&self, name: &str, ttl: Duration) -> Result<IssuedToken> {
        let req = pb::IssueTokenRequest {
            name: name.into(),
            ttl_secs: ttl.as_secs(),
        };
        let issued = user_call!(self, refused_undone, issue_token, req)?;
        Ok(IssuedToken {
            token: issued.token,
            expires_ms: issued.expires_ms,
        })
    }

    /// Revokes every token of `name`; how many there were.
    pub fn revoke_tokens(&self, name: &str) -> Result<u64> {
        let req = pb::UserNameRequest { name: name.into() };
        Ok(user_call!(self, retryable, revoke_tokens, req)?.revoked)
    }
}

/// Adds the first superuser `name` with the bootstrap `token`, without other credentials
/// (`config`'s TLS is used, its credentials are not). `addresses`: the masters
/// (`host:16000[,host2:16000…]`), tried in turn: a standby refuses, the active one adds.
pub fn add_first_superuser(
    addresses: &str,
    config: &ClientConfig,
    name: &str,
    password: &str,
    token: &str,
) -> Result<String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| ApiError::invalid(format!("cannot start the client runtime: {e}")))?;
    let token: tonic::metadata::MetadataValue<_> = token.trim().parse().map_err(|_| {
        ApiError::invalid("the bootstrap token must be text without control characters")
    })?;
    let mut last = None;
    for address in addresses
        .split(',')
        .map(str::trim)
        .filter(|a| !a.is_empty())
    {
        let endpoint =
            crate::connector::endpoint_as(address, config.connect_timeout, config.user.as_deref())
                .map_err(ApiError::invalid)?;
        let connector = Connector::new(config.tls.as_ref());
        let mut req = tonic::Request::new(pb::AddUserRequest {
            name: name.into(),
            password: password.into(),
            superuser: true,
        });
        req.metadata_mut()
            .insert(basalt_auth::bootstrap::HEADER, token.clone());
        req.set_timeout(config.call_timeout);
        let answer = runtime.block_on(async move {
            let channel = endpoint
                .connect_with_connector(connector)
                .await
                .map_err(|e| {
                    ApiError::new(
                        ErrorKind::Unavailable,
                        "java.io.IOException",
                        format!("cannot connect to {address}: {e}"),
                    )
                })?;
            UserServiceClient::new(channel)
                .add_user(req)
                .await
                .map(|r| r.into_inner().message)
                .map_err(|s| basalt_proto::status::from_status(&s))
        });
        match answer {
            Ok(message) => return Ok(message),
            Err(e) if matches!(e.kind, ErrorKind::RetryElsewhere | ErrorKind::Unavailable) => {
                last = Some(e)
            }
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| ApiError::invalid(format!("no server address in '{addresses}'"))))
}
