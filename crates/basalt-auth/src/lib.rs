//! Authentication: who a caller is, proven by a password, a token or the cluster secret.
//!
//! Every listener hands an [`Authenticator`] the `Authorization` header it received and
//! the client's address, and gets back a [`basalt_api::Principal`] (which authorization,
//! HBase's ACLs, then consults) or an [`AuthError`] to answer with. What it is not: TLS
//! (the transport's), authorization (`grant`/`revoke`), or SASL framing (Thrift's, the
//! native protocol's): those build on this crate.
//!
//! Passwords are stored as PBKDF2-HMAC-SHA256 hashes with a per-user salt and iteration
//! count — SCRAM-SHA-256's stored form (RFC 7677), so a SCRAM mechanism can later verify
//! against the same records, and built from RustCrypto's small pure-Rust `pbkdf2`, `hmac`
//! and `sha2` (argon2 is memory-hard, better against GPUs, but would make every
//! verification cost tens of MiB and is not what SCRAM clients speak). Users and tokens live
//! in the coordinator beside the catalog (in process for standalone, etcd for a cluster).
//!
//! Password hashing is deliberately slow, so it is guarded: verified credentials are
//! cached briefly, derivations run a few at a time on the blocking pool, and an address
//! that failed too often is refused unchecked for a doubling back-off.
//!
//! # Layout
//! - [`password`]: [`password::PasswordHash`], its stored form and constant-time check.
//! - [`credentials`]: parsing `Basic`, `Bearer` and `Basalt-Cluster` headers.
//! - [`token`]: bearer tokens, generated and digested.
//! - [`record`]: the coordinator's keys and values for users and tokens; the user-name rule.
//! - [`store`]: [`UserStore`]: add, passwd, remove, list, tokens, in the coordinator.
//! - [`bootstrap`]: the one-time token a master prints when no superuser exists, with
//!   which the first superuser is added through the server.
//! - [`limiter`]: the failed-attempt limiter, a pure core with its table.
//! - [`cache`]: the short cache of verified credentials.
//! - [`authenticator`]: [`Authenticator`]: the one entry every listener calls; metrics.
//! - [`sasl_plain`]: SASL PLAIN messages (Thrift's SASL transport, the native RPC).
//! - [`settings`]: [`AuthSettings`], from `[security]`.
//! - [`secret`]: [`secret::ClusterSecrets`]: the cluster secret, inline or a file of
//!   secrets followed without a restart (rotation).
//! - [`verifier`]: [`verifier::Verifier`], credentials checked elsewhere (a gateway's
//!   backend) instead of in a store.
//! - [`audit`]: the audit log's events.
//! - [`http_guard`]: what HTTP listeners check before reading a request: `Host`
//!   (DNS rebinding), `Origin` (cross-site writes), Basic only over loopback or TLS.
//! - `random`: the operating system's random bytes.

pub mod audit;
pub mod authenticator;
pub mod bootstrap;
pub mod cache;
pub mod credentials;
pub mod http_guard;
pub mod limiter;
pub mod password;
mod random;
pub mod record;
pub mod sasl_plain;
pub mod secret;
pub mod settings;
pub mod store;
pub mod token;
pub mod verifier;

pub use authenticator::{Attempt, Authenticator};
pub use credentials::Credentials;
pub use settings::AuthSettings;
pub use store::UserStore;

/// Why authentication failed or could not be checked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    /// No credentials, wrong ones, an unknown user, an expired or revoked token.
    #[error("authentication failed: {0}")]
    Unauthenticated(String),
    /// A malformed `Authorization` header.
    #[error("bad credentials: {0}")]
    BadCredentials(String),
    /// This address failed too often: no attempt is checked until the back-off ends.
    #[error("too many failed authentication attempts from this address; retry after {retry_after_ms} ms")]
    Throttled { retry_after_ms: u64 },
    /// A request to change users that cannot be done (names why).
    #[error("{0}")]
    Invalid(String),
    /// A stored record that cannot be read (names its key).
    #[error("damaged security record {0}")]
    Damaged(String),
    /// The coordinator or the random source did not answer.
    #[error("authentication unavailable: {0}")]
    Unavailable(String),
}

impl AuthError {
    pub fn invalid(message: impl Into<String>) -> Self {
        AuthError::Invalid(message.into())
    }

    /// Whether the caller failed to prove who it is (as opposed to the server failing).
    pub fn is_unauthenticated(&self) -> bool {
        matches!(
            self,
            AuthError::Unauthenticated(_)
                | AuthError::BadCredentials(_)
                | AuthError::Throttled { .. }
        )
    }
}

impl From<basalt_coord::CoordError> for AuthError {
    fn from(e: basalt_coord::CoordError) -> Self {
        AuthError::Unavailable(e.to_string())
    }
}

#[cfg(test)]
mod tests;
