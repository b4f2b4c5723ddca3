//! Who is asking: the user a call runs as, and how the listener learnt it.
//!
//! Authentication (a listener checking a password, a token or a certificate) produces a
//! [`Principal`]; authorization (HBase's ACLs) decides what that principal may do. Gateways
//! run each request as its authenticated principal, and a scanner belongs to the principal
//! that opened it.
//!
//! A gateway that keeps no users of its own (`basalt rest --connect`, `basalt thrift
//! --connect`) passes each client's credentials through: it attaches to the principal the
//! backend connection made with them ([`Principal::with_backend`]), and serves that
//! principal's calls on it, so the backend authenticates and checks them. The attachment
//! is not part of who the principal is: equality and hashing ignore it.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// How a listener established a principal's identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AuthMethod {
    /// Nothing was checked: authentication is not required and the client named itself
    /// (HBase's SIMPLE authentication, or a loopback client of a laptop standalone).
    Simple,
    /// A password checked against its stored salted hash.
    Password,
    /// A bearer token the server issued and has not expired.
    Token,
    /// A client certificate verified by mutual TLS.
    Certificate,
    /// A server of the same cluster (the cluster secret or its certificate).
    Internal,
}

impl AuthMethod {
    /// Whether the identity was verified rather than merely asserted.
    pub fn is_verified(self) -> bool {
        !matches!(self, AuthMethod::Simple)
    }

    /// HBase's name for it, as `whoami` prints `(auth:SIMPLE)`.
    pub fn hbase_name(self) -> &'static str {
        match self {
            AuthMethod::Simple => "SIMPLE",
            AuthMethod::Password | AuthMethod::Token => "TOKEN",
            AuthMethod::Certificate => "CERTIFICATE",
            AuthMethod::Internal => "INTERNAL",
        }
    }
}

/// An authenticated (or, under SIMPLE, asserted) user and the groups it belongs to.
#[derive(Clone)]
pub struct Principal {
    name: String,
    groups: Vec<String>,
    method: AuthMethod,
    /// The connection this principal's calls run on, made with its own credentials (a
    /// gateway passing credentials through); None: the served connection checks them.
    backend: Option<Arc<dyn crate::Connection>>,
}

impl fmt::Debug for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Principal")
            .field("name", &self.name)
            .field("groups", &self.groups)
            .field("method", &self.method)
            .field("backend", &self.backend.is_some())
            .finish()
    }
}

/// Who the principal is: name, groups and method; not its backend.
impl PartialEq for Principal {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.groups == other.groups && self.method == other.method
    }
}

impl Eq for Principal {}

impl Hash for Principal {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state);
        self.groups.hash(state);
        self.method.hash(state);
    }
}

impl Principal {
    pub fn new(name: impl Into<String>, method: AuthMethod) -> Self {
        Principal {
            name: name.into(),
            groups: Vec::new(),
            method,
            backend: None,
        }
    }

    /// The same principal, whose calls run on `backend` (made with its credentials).
    pub fn with_backend(mut self, backend: Arc<dyn crate::Connection>) -> Self {
        self.backend = Some(backend);
        self
    }

    /// The connection made with this principal's own credentials, if a gateway attached one.
    pub fn backend(&self) -> Option<&Arc<dyn crate::Connection>> {
        self.backend.as_ref()
    }

    /// The same principal, also a member of `groups` (HBase writes a group as `@name` in
    /// grants; the names here carry no `@`).
    pub fn with_groups(mut self, groups: impl IntoIterator<Item = String>) -> Self {
        self.groups = groups.into_iter().collect();
        self
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn groups(&self) -> &[String] {
        &self.groups
    }

    pub fn method(&self) -> AuthMethod {
        self.method
    }
}

impl fmt::Display for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (auth:{})", self.name, self.method.hbase_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_as_hbase_whoami_does() {
        let p = Principal::new("alice", AuthMethod::Simple).with_groups(["staff".to_string()]);
        assert_eq!(p.to_string(), "alice (auth:SIMPLE)");
        assert_eq!(p.groups(), ["staff".to_string()]);
        assert!(!p.method().is_verified());
        assert!(AuthMethod::Password.is_verified());
    }
}
