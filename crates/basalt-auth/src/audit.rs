//! The audit log: every authentication result and every denial, with user, client
//! address, operation and object, as `tracing` events under the target [`TARGET`].
//!
//! Processes route that target to its own file (`[security] audit_log`), apart from the
//! server log; each line carries `outcome`, `user`, `addr`, `op`, `object` and `reason`.

use std::net::IpAddr;

/// The `tracing` target of audit events.
pub const TARGET: &str = "basalt_audit";

fn addr_text(addr: Option<IpAddr>) -> String {
    addr.map_or_else(|| "in-process".to_string(), |a| a.to_string())
}

/// A successful authentication.
pub fn authenticated(user: &str, method: &str, addr: Option<IpAddr>, op: &str) {
    tracing::info!(target: TARGET, outcome = "authenticated", user, method, addr = %addr_text(addr), op);
}

/// A failed or refused authentication.
pub fn auth_failed(user: &str, addr: Option<IpAddr>, op: &str, reason: &str) {
    tracing::warn!(target: TARGET, outcome = "auth-failed", user, addr = %addr_text(addr), op, reason);
}

/// An authenticated user refused an operation on an object (authorization, a scanner of
/// another user).
pub fn denied(user: &str, addr: Option<IpAddr>, op: &str, object: &str, reason: &str) {
    tracing::warn!(target: TARGET, outcome = "denied", user, addr = %addr_text(addr), op, object, reason);
}

/// A change to users or tokens (or a listing of them) made through a server, by `user`.
pub fn user_managed(user: &str, addr: Option<IpAddr>, op: &str, object: &str) {
    tracing::info!(target: TARGET, outcome = "done", user, addr = %addr_text(addr), op, object);
}
