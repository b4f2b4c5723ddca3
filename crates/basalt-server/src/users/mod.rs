//! `UserService`: users and tokens managed through a running master (`basalt user …
//! --connect`), and the first superuser made with the one-time bootstrap token.
//!
//! Served by standalone's master and a cluster's masters; a standby refuses with "the
//! active master is …" (as the other master services), which clients follow. Every call
//! needs authentication required on the server, since without it there is no caller to
//! trust: with authentication off each call is refused, naming `--data-dir`. Who may do
//! what is [`rules::decide`]; a refusal is HBase's `AccessDeniedException`. Passwords come
//! only in request bodies, are hashed on the blocking pool, and are never logged; every
//! call, allowed or refused, goes to the audit log (`basalt_auth::audit`).
//!
//! # Layout
//! - [`rules`]: who may manage which user, a pure decision with its table.
//! - [`service`]: the gRPC handlers.

pub mod rules;
pub mod service;

pub use service::{ActiveCheck, UserSvc};

/// A bootstrap token the authentication layer accepted for this call (`AddUser` only, sent
/// without other credentials): the service consumes it in the add's own transaction.
#[derive(Debug, Clone)]
pub struct BootstrapToken(pub String);

/// Why every call is refused when authentication is off.
pub const NEEDS_AUTH: &str =
    "user management needs [security] auth = \"required\"; use --data-dir with the server stopped";
