//! [`BackendVerifier`]: a credential is good when the backend accepts it.
//!
//! | pooled connection for the credential | backend answers            | verdict                    |
//! |--------------------------------------|----------------------------|----------------------------|
//! | none                                 | connect + call succeed      | principal, connection pooled |
//! | none / held                          | `AccessControlException`    | Unauthenticated (401, BAD), unpooled |
//! | held                                 | the call succeeds           | principal (no reconnect)   |
//! | none / held                          | anything else (unreachable) | Unavailable (503, ERROR)   |
//!
//! The principal is the user a password names; a token names nobody the gateway can see,
//! so its principal is `token:` and the first 12 hex digits of the token's digest (the
//! backend audits the real user). The check call is `SecurityCapabilities`, which every
//! authenticated user may make and which reads nothing.

use super::pool::{Pool, ENTRIES_MAX, IDLE};
use super::ACCESS_CONTROL;
use basalt_api::{ApiError, AuthMethod, Connection, Principal};
use basalt_auth::verifier::{Verified, Verifier};
use basalt_auth::{AuthError, Credentials};
use basalt_client::{ClientConfig, RemoteConnection};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

/// Checks credentials by connecting to `address` with them.
pub struct BackendVerifier {
    address: String,
    tls: Option<basalt_net::tls::ClientTls>,
    pool: Mutex<Pool<Principal>>,
}

impl BackendVerifier {
    /// Verifies against the server or masters at `address`, over TLS with `tls`.
    pub fn new(address: &str, tls: Option<basalt_net::tls::ClientTls>) -> Self {
        Self {
            address: address.to_string(),
            tls,
            pool: Mutex::new(Pool::new(ENTRIES_MAX, IDLE)),
        }
    }

    /// The pool (a panic elsewhere leaves it usable: each operation is one step).
    fn pool(&self) -> MutexGuard<'_, Pool<Principal>> {
        self.pool.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many credentials hold a backend connection now.
    pub fn pooled(&self) -> usize {
        self.pool().len()
    }

    async fn check(&self, credentials: Credentials) -> Result<Principal, AuthError> {
        let key = basalt_auth::token::digest(&credentials.header_value());
        let pooled = self.pool().get(&key, Instant::now());
        let principal = match pooled {
            Some(principal) => principal,
            None => {
                let name = principal_name(&credentials, &key);
                let config = ClientConfig {
                    credentials: Some(credentials),
                    tls: self.tls.clone(),
                    ..ClientConfig::default()
                };
                let address = self.address.clone();
                let conn = off_runtime(move || RemoteConnection::connect_with(&address, config))
                    .await
                    .map_err(|e| self.verdict(e))?;
                name.with_backend(Arc::new(conn))
            }
        };
        let backend: Arc<dyn Connection> = match principal.backend() {
            Some(backend) => backend.clone(),
            None => return Err(AuthError::Unavailable("no backend connection".into())),
        };
        match off_runtime(move || backend.admin().security_capabilities()).await {
            Ok(_) => {
                self.pool().insert(key, principal.clone(), Instant::now());
                Ok(principal)
            }
            Err(e) => {
                self.pool().remove(&key);
                Err(self.verdict(e))
            }
        }
    }

    fn verdict(&self, e: ApiError) -> AuthError {
        verdict(&self.address, e)
    }
}

/// A refusal for the backend's `AccessControlException`, else unavailable (the client is
/// not counted a failure for a server that could not answer).
fn verdict(address: &str, e: ApiError) -> AuthError {
    match e.exception == ACCESS_CONTROL {
        true => {
            let why = e.message.trim_start_matches("authentication failed: ");
            AuthError::Unauthenticated(format!("the server refused: {why}"))
        }
        false => AuthError::Unavailable(format!(
            "the server {address} could not check the credentials: {e}"
        )),
    }
}

impl Verifier for BackendVerifier {
    fn verify(&self, credentials: Credentials) -> Verified<'_> {
        Box::pin(self.check(credentials))
    }
}

/// Who the gateway sees: the user a password names, or the token's digest prefix.
fn principal_name(credentials: &Credentials, key: &str) -> Principal {
    match credentials {
        Credentials::Password { user, .. } => Principal::new(user.clone(), AuthMethod::Password),
        _ => Principal::new(
            format!("token:{}", key.get(..12).unwrap_or(key)),
            AuthMethod::Token,
        ),
    }
}

/// Runs a blocking client call on tokio's blocking pool.
async fn off_runtime<T: Send + 'static>(
    work: impl FnOnce() -> basalt_api::Result<T> + Send + 'static,
) -> basalt_api::Result<T> {
    tokio::task::spawn_blocking(work).await.map_err(|e| {
        ApiError::new(
            basalt_api::ErrorKind::Unavailable,
            "java.io.IOException",
            format!("the check did not finish: {e}"),
        )
    })?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_servers_access_control_refusal_is_a_failed_credential() {
        let refused = ApiError::new(
            basalt_api::ErrorKind::InvalidRequest,
            ACCESS_CONTROL,
            "authentication failed: wrong user name or password for 'alice'",
        );
        assert_eq!(
            verdict("m:16000", refused),
            AuthError::Unauthenticated(
                "the server refused: wrong user name or password for 'alice'".into()
            )
        );
        let down = ApiError::new(
            basalt_api::ErrorKind::Unavailable,
            "java.io.IOException",
            "cannot connect",
        );
        let e = verdict("m:16000", down);
        assert!(!e.is_unauthenticated(), "{e}");
        assert!(e.to_string().contains("m:16000"), "{e}");
    }

    #[test]
    fn a_password_is_its_user_and_a_token_its_digest_prefix() {
        let password = Credentials::Password {
            user: "alice".into(),
            password: "pw".into(),
        };
        let p = principal_name(&password, "0123456789abcdef");
        assert_eq!((p.name(), p.method()), ("alice", AuthMethod::Password));
        let p = principal_name(&Credentials::Token("bst_x".into()), "0123456789abcdef");
        assert_eq!(
            (p.name(), p.method()),
            ("token:0123456789ab", AuthMethod::Token)
        );
        assert!(p.backend().is_none());
    }
}
