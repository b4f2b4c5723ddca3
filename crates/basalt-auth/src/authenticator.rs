//! The authenticator every listener asks: credentials in, a [`Principal`] or a refusal out.
//!
//! One attempt goes: parse the header → the cache (a hit answers at once) → the limiter
//! (an address closed by recent failures is refused without hashing) → check (a password
//! against its salted hash, at most `verifications_max` at once on the blocking pool; a
//! token by its digest and expiry; the cluster secret in constant time) → count it, audit
//! it, remember a success.
//!
//! With authentication off, a call without credentials runs as the user it names (SIMPLE).

use crate::cache::CredentialCache;
use crate::credentials::Credentials;
use crate::limiter::{FailureLimiter, Verdict};
use crate::settings::AuthSettings;
use crate::store::UserStore;
use crate::verifier::Verifier;
use crate::{audit, token, AuthError};
use basalt_api::{AuthMethod, Principal};
use parking_lot::Mutex;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The group a stored superuser (`basalt user add --superuser`) and the cluster's own
/// servers belong to (HDFS's name for its superuser group).
pub const SUPERUSER_GROUP: &str = "supergroup";
/// The principal servers of one cluster authenticate each other as.
pub const CLUSTER_PRINCIPAL: &str = "_cluster";
/// Who a call without credentials is when it names nobody (authentication off).
pub const ANONYMOUS: &str = "anonymous";

/// One authentication attempt.
#[derive(Debug, Clone, Copy, Default)]
pub struct Attempt<'a> {
    /// The `Authorization` header, if any.
    pub header: Option<&'a str>,
    /// The client's address (None in process).
    pub addr: Option<IpAddr>,
    /// What was called, for the audit log.
    pub operation: &'a str,
    /// The user a client names without proving it (its user-agent), used with
    /// authentication off.
    pub asserted_user: Option<&'a str>,
}

/// Counts since start, for `/metrics`.
#[derive(Debug, Default)]
pub struct AuthMetrics {
    pub successes: AtomicU64,
    /// Wrong passwords, unknown users, bad or expired tokens, malformed headers.
    pub failures: AtomicU64,
    /// Attempts refused unchecked because their address failed too often.
    pub throttled: AtomicU64,
    /// Calls without credentials refused (authentication required).
    pub missing: AtomicU64,
}

impl AuthMetrics {
    pub fn get(counter: &AtomicU64) -> u64 {
        counter.load(Ordering::Relaxed)
    }
}

pub struct Authenticator {
    settings: AuthSettings,
    store: Option<UserStore>,
    cache: Mutex<CredentialCache>,
    limiter: Mutex<FailureLimiter>,
    verifying: Arc<tokio::sync::Semaphore>,
    metrics: AuthMetrics,
    /// Checks passwords and tokens instead of the store (a gateway passing them through).
    verifier: Option<Arc<dyn Verifier>>,
    /// Wall-clock milliseconds (token expiry), injected for tests.
    clock: fn() -> u64,
}

impl std::fmt::Debug for Authenticator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authenticator")
            .field("required", &self.settings.required)
            .finish_non_exhaustive()
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl Authenticator {
    /// An authenticator over `store` (None: no users, only the cluster secret and SIMPLE).
    pub fn new(settings: AuthSettings, store: Option<UserStore>) -> Self {
        Self {
            cache: Mutex::new(CredentialCache::new(Duration::from_millis(
                settings.credential_cache_ms,
            ))),
            limiter: Mutex::new(FailureLimiter::new(settings.limiter.clone())),
            verifying: Arc::new(tokio::sync::Semaphore::new(
                settings.verifications_max.max(1),
            )),
            metrics: AuthMetrics::default(),
            verifier: None,
            clock: now_ms,
            settings,
            store,
        }
    }

    /// The same, reading wall-clock time from `clock` (tests of token expiry).
    pub fn with_clock(mut self, clock: fn() -> u64) -> Self {
        self.clock = clock;
        self
    }

    /// The same, checking passwords and tokens with `verifier` instead of a store (the
    /// cache, the limiter, the metrics and the audit log stay this authenticator's).
    pub fn with_verifier(mut self, verifier: Arc<dyn Verifier>) -> Self {
        self.verifier = Some(verifier);
        self
    }

    pub fn required(&self) -> bool {
        self.settings.required
    }

    pub fn settings(&self) -> &AuthSettings {
        &self.settings
    }

    pub fn store(&self) -> Option<&UserStore> {
        self.store.as_ref()
    }

    pub fn metrics(&self) -> &AuthMetrics {
        &self.metrics
    }

    /// Whether `p` is a superuser: named in `superusers` (by name or `@group`), or a member
    /// of [`SUPERUSER_GROUP`].
    pub fn is_superuser(&self, p: &Principal) -> bool {
        p.groups().iter().any(|g| g == SUPERUSER_GROUP)
            || self
                .settings
                .superusers
                .iter()
                .any(|s| match s.strip_prefix('@') {
                    Some(group) => p.groups().iter().any(|g| g == group),
                    None => s == p.name(),
                })
    }

    /// Authenticates one attempt.
    pub async fn authenticate(&self, attempt: Attempt<'_>) -> Result<Principal, AuthError> {
        let Some(header) = attempt.header else {
            return self.without_credentials(attempt);
        };
        let digest = token::digest(header);
        let now = Instant::now();
        if let Some(p) = self.cache.lock().get(&digest, now) {
            return Ok(p);
        }
        let credentials = match Credentials::parse(header) {
            Ok(c) => c,
            Err(e) => return Err(self.failed("(unparsed)", attempt, e)),
        };
        let user = credentials.claimed_user().to_string();
        if let Some(addr) = attempt.addr {
            if let Verdict::Refuse { retry_after } = self.limiter.lock().verdict(addr, now) {
                self.metrics.throttled.fetch_add(1, Ordering::Relaxed);
                let e = AuthError::Throttled {
                    retry_after_ms: retry_after.as_millis().max(1) as u64,
                };
                audit::auth_failed(&user, attempt.addr, attempt.operation, &e.to_string());
                return Err(e);
            }
        }
        match self.check(credentials).await {
            Ok(p) => {
                if let Some(addr) = attempt.addr {
                    self.limiter.lock().succeeded(addr);
                }
                self.metrics.successes.fetch_add(1, Ordering::Relaxed);
                audit::authenticated(
                    p.name(),
                    p.method().hbase_name(),
                    attempt.addr,
                    attempt.operation,
                );
                self.cache.lock().insert(digest, p.clone(), Instant::now());
                Ok(p)
            }
            Err(e @ (AuthError::Unavailable(_) | AuthError::Damaged(_))) => {
                tracing::warn!(error = %e, "authentication could not be checked");
                Err(e)
            }
            Err(e) => {
                if let Some(addr) = attempt.addr {
                    self.limiter.lock().failed(addr, Instant::now());
                }
                Err(self.failed(&user, attempt, e))
            }
        }
    }

    /// Authenticates a SASL PLAIN message (Thrift's SASL transport, the native RPC): as
    /// [`Self::authenticate`] with the password or token it carries; a malformed message
    /// is a failure like a malformed header (counted, audited, limited).
    pub async fn authenticate_sasl_plain(
        &self,
        message: &[u8],
        addr: Option<IpAddr>,
        operation: &str,
    ) -> Result<Principal, AuthError> {
        let attempt = Attempt {
            header: None,
            addr,
            operation,
            asserted_user: None,
        };
        let credentials = match crate::sasl_plain::parse(message) {
            Ok(c) => c,
            Err(e) => {
                if let Some(addr) = addr {
                    self.limiter.lock().failed(addr, Instant::now());
                }
                return Err(self.failed("(unparsed)", attempt, e));
            }
        };
        let header = credentials.header_value();
        self.authenticate(Attempt {
            header: Some(&header),
            ..attempt
        })
        .await
    }

    /// Checks a bootstrap token presented without other credentials (the one
    /// unauthenticated call, `AddUser` of the first superuser): throttled, counted and
    /// audited as a password is; a wrong, used or expired token is a failure.
    pub async fn check_bootstrap(
        &self,
        token: &str,
        attempt: Attempt<'_>,
    ) -> Result<(), AuthError> {
        let now = Instant::now();
        if let Some(addr) = attempt.addr {
            if let Verdict::Refuse { retry_after } = self.limiter.lock().verdict(addr, now) {
                self.metrics.throttled.fetch_add(1, Ordering::Relaxed);
                let e = AuthError::Throttled {
                    retry_after_ms: retry_after.as_millis().max(1) as u64,
                };
                audit::auth_failed(
                    "(bootstrap)",
                    attempt.addr,
                    attempt.operation,
                    &e.to_string(),
                );
                return Err(e);
            }
        }
        match self.users()?.check_bootstrap(token, (self.clock)()).await {
            Ok(_) => {
                if let Some(addr) = attempt.addr {
                    self.limiter.lock().succeeded(addr);
                }
                audit::authenticated("(bootstrap)", "BOOTSTRAP", attempt.addr, attempt.operation);
                Ok(())
            }
            Err(e @ (AuthError::Unavailable(_) | AuthError::Damaged(_))) => Err(e),
            Err(e) => Err(self.bootstrap_failed(attempt, e)),
        }
    }

    /// Counts a refused bootstrap attempt (also when the add itself found the token used
    /// meanwhile) against its address, and audits it.
    pub fn bootstrap_failed(&self, attempt: Attempt<'_>, e: AuthError) -> AuthError {
        if let Some(addr) = attempt.addr {
            self.limiter.lock().failed(addr, Instant::now());
        }
        self.failed("(bootstrap)", attempt, e)
    }

    /// Wall-clock milliseconds as this authenticator reads them (token expiry).
    pub fn now_ms(&self) -> u64 {
        (self.clock)()
    }

    fn without_credentials(&self, attempt: Attempt<'_>) -> Result<Principal, AuthError> {
        if self.settings.required {
            self.metrics.missing.fetch_add(1, Ordering::Relaxed);
            let e = AuthError::Unauthenticated(
                "authentication is required: send a user's password (Basic) or a token (Bearer)"
                    .into(),
            );
            audit::auth_failed("(none)", attempt.addr, attempt.operation, &e.to_string());
            return Err(e);
        }
        let name = attempt
            .asserted_user
            .filter(|u| !u.is_empty())
            .unwrap_or(ANONYMOUS);
        Ok(Principal::new(name, AuthMethod::Simple))
    }

    fn failed(&self, user: &str, attempt: Attempt<'_>, e: AuthError) -> AuthError {
        self.metrics.failures.fetch_add(1, Ordering::Relaxed);
        audit::auth_failed(user, attempt.addr, attempt.operation, &e.to_string());
        e
    }

    async fn check(&self, credentials: Credentials) -> Result<Principal, AuthError> {
        if let Some(verifier) = &self.verifier {
            if !matches!(credentials, Credentials::ClusterSecret(_)) {
                return verifier.verify(credentials).await;
            }
        }
        match credentials {
            Credentials::ClusterSecret(secret) => match &self.settings.cluster_secret {
                Some(ours) if ours.accepts(&secret) => {
                    Ok(Principal::new(CLUSTER_PRINCIPAL, AuthMethod::Internal)
                        .with_groups([SUPERUSER_GROUP.to_string()]))
                }
                _ => Err(AuthError::Unauthenticated("wrong cluster secret".into())),
            },
            Credentials::Token(text) => {
                let store = self.users()?;
                let record = store
                    .token(&text)
                    .await?
                    .ok_or_else(|| AuthError::Unauthenticated("unknown or revoked token".into()))?;
                if record.expired((self.clock)()) {
                    return Err(AuthError::Unauthenticated(format!(
                        "the token of '{}' expired",
                        record.user
                    )));
                }
                let user = store.get(&record.user).await?.ok_or_else(|| {
                    AuthError::Unauthenticated("the token's user was removed".into())
                })?;
                Ok(principal(&record.user, AuthMethod::Token, user.superuser))
            }
            Credentials::Password { user, password } => {
                let store = self.users()?;
                let wrong = || {
                    AuthError::Unauthenticated(format!("wrong user name or password for '{user}'"))
                };
                let Some(record) = store.get(&user).await? else {
                    return Err(wrong());
                };
                let hash = record.password()?;
                let permit = self.verifying.clone().acquire_owned().await.map_err(|_| {
                    AuthError::Unavailable("the authenticator is shutting down".into())
                })?;
                let ok = tokio::task::spawn_blocking(move || {
                    let _permit = permit;
                    hash.verify(&password)
                })
                .await
                .map_err(|e| AuthError::Unavailable(format!("password check failed: {e}")))?;
                match ok {
                    true => Ok(principal(&user, AuthMethod::Password, record.superuser)),
                    false => Err(wrong()),
                }
            }
        }
    }

    /// The principal of a verified TLS client certificate naming `user` (the certificate
    /// is the proof): a superuser's group when the user store says the user is one; a name
    /// the store does not know (or a store that cannot answer) holds only its grants.
    pub async fn certificate_principal(&self, user: &str) -> Principal {
        let superuser = match &self.store {
            Some(store) => store
                .get(user)
                .await
                .ok()
                .flatten()
                .is_some_and(|record| record.superuser),
            None => false,
        };
        principal(user, AuthMethod::Certificate, superuser)
    }

    fn users(&self) -> Result<&UserStore, AuthError> {
        self.store
            .as_ref()
            .ok_or_else(|| AuthError::Unauthenticated("this server keeps no users".into()))
    }
}

fn principal(name: &str, method: AuthMethod, superuser: bool) -> Principal {
    let p = Principal::new(name, method);
    match superuser {
        true => p.with_groups([SUPERUSER_GROUP.to_string()]),
        false => p,
    }
}

/// An authenticator handed to a listener by the process that starts it (none: the
/// listener authenticates no one), for configurations compared and printed as data.
#[derive(Clone, Default)]
pub struct AuthenticatorSlot(pub Option<Arc<Authenticator>>);

impl std::fmt::Debug for AuthenticatorSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Some(_) => f.write_str("an authenticator"),
            None => f.write_str("no authenticator"),
        }
    }
}

impl PartialEq for AuthenticatorSlot {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }
}

impl Eq for AuthenticatorSlot {}
