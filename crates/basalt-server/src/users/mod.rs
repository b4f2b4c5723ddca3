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

use basalt_auth::Authenticator;

/// A bootstrap token the authentication layer accepted for this call (`AddUser` only, sent
/// without other credentials): the service consumes it in the add's own transaction.
#[derive(Debug, Clone)]
pub struct BootstrapToken(pub String);

/// Why every call is refused when authentication is off.
pub const NEEDS_AUTH: &str =
    "user management needs [security] auth = \"required\"; use --data-dir with the server stopped";

/// At a master's activation with authentication required: makes the bootstrap token when
/// no superuser exists ([`basalt_auth::bootstrap`]) and prints it once, in the log (INFO)
/// and on standard error, with the command that uses it; says so when one is pending. A
/// coordinator that does not answer is logged, not fatal: the next activation tries again.
pub async fn announce_bootstrap(auth: &Authenticator, address: &str) {
    use basalt_auth::bootstrap::{command, store::Ensured, TTL};
    let Some(store) = auth.store().filter(|_| auth.required()) else {
        return;
    };
    match store.ensure_bootstrap(address, auth.now_ms()).await {
        Ok(Ensured::NotNeeded) => {}
        Ok(Ensured::Retired) => {
            tracing::info!("a superuser exists: the unused bootstrap token was deleted");
        }
        Ok(Ensured::Issued { token, .. }) => {
            let hours = TTL.as_secs() / 3600;
            let run = command(address, &token);
            tracing::info!(
                "no superuser exists yet: add the first one, once, within {hours} h (the new user's password from standard input): {run}"
            );
            eprintln!(
                "No superuser exists yet. Add the first one, once, within {hours} h (the new user's password is read from standard input):\n\n    {run}\n"
            );
        }
        Ok(Ensured::Pending(record)) => {
            tracing::info!(
                printed_by = %record.by,
                issued_ms = record.issued_ms,
                expires_ms = record.expires_ms,
                "no superuser exists yet; the bootstrap token printed earlier (in the log of the master named) is still valid, so no new one is made; without it, add the superuser with --data-dir (server stopped), or wait for it to expire and restart"
            );
        }
        Err(e) => {
            tracing::warn!(error = %e, "cannot check for a superuser or make a bootstrap token")
        }
    }
}
