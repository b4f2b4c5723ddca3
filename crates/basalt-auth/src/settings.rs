//! What authentication is told by the configuration (`[security]` of `basalt.toml`).

use crate::limiter::LimiterConfig;
use crate::password::ITERATIONS_DEFAULT;

/// Authentication's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthSettings {
    /// Every call must present valid credentials (`auth = "required"`); otherwise calls
    /// without credentials run as the user they name (SIMPLE), and credentials presented
    /// are still checked.
    pub required: bool,
    /// Superusers by name, and groups as `@group` (HBase's `hbase.superuser`).
    pub superusers: Vec<String>,
    /// The secrets the servers of one cluster present to each other (rotated without a
    /// restart when they come from a file).
    pub cluster_secret: Option<crate::secret::ClusterSecrets>,
    /// The iteration count of new password hashes.
    pub password_iterations: u32,
    /// How long a verified credential is remembered.
    pub credential_cache_ms: u64,
    /// Password derivations running at once, whatever the number of clients.
    pub verifications_max: usize,
    pub limiter: LimiterConfig,
}

impl Default for AuthSettings {
    fn default() -> Self {
        Self {
            required: false,
            superusers: Vec::new(),
            cluster_secret: None,
            password_iterations: ITERATIONS_DEFAULT,
            credential_cache_ms: 10_000,
            verifications_max: 2,
            limiter: LimiterConfig::default(),
        }
    }
}
