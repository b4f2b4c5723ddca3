//! `[security]` of `basalt.toml` and `--auth`: whether listeners require authentication,
//! the superusers, the cluster secret, and the authenticator a process serves with; with
//! authentication required, the ACL checks of its servers too.

use crate::CliError;
use basalt_auth::secret::ClusterSecrets;
use basalt_auth::{AuthSettings, Authenticator, UserStore};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Arc;

/// The environment variable a cluster secret may come from instead of the file.
pub const CLUSTER_SECRET_ENV: &str = "BASALT_CLUSTER_SECRET";

/// `auth = "off" | "required"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AuthMode {
    #[default]
    Off,
    Required,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SecuritySection {
    /// "required": every gRPC call and REST request must present a user's password or a
    /// token, the web UI a superuser's sign-in (listeners that cannot check credentials
    /// yet stay off); "off": calls run as the user they
    /// name, and only loopback listeners open without --insecure.
    pub auth: AuthMode,
    /// Superusers by name, groups as "@group" (HBase's hbase.superuser).
    pub superusers: Vec<String>,
    /// The secret masters and region servers present to each other (or
    /// BASALT_CLUSTER_SECRET); required in a cluster with auth required.
    pub cluster_secret: Option<String>,
    /// A file of cluster secrets instead, one per line: the first is presented, every one
    /// is accepted, and the file is followed without a restart (rotation: add the new
    /// secret second everywhere, then move it first everywhere, then drop the old).
    pub cluster_secret_file: Option<PathBuf>,
    /// PBKDF2-HMAC-SHA256 iterations of new password hashes.
    pub password_iterations: u32,
    /// How long a verified credential is remembered (a changed password or revoked token
    /// takes effect within this).
    pub credential_cache_ms: u64,
    /// Failed attempts from one address before each next one waits (doubling from
    /// failure_backoff_ms up to 30 s; refused unchecked meanwhile).
    pub free_failures: u32,
    pub failure_backoff_ms: u64,
    /// The audit log (authentication results and denials); default: `audit.log` in the
    /// data folder for standalone, none (the server log) otherwise.
    pub audit_log: Option<PathBuf>,
    /// TLS on every listener (gRPC, REST, web UI, Thrift, HBase RPC): the certificate
    /// chain (PEM, the server's first) and its key; reloaded when the files change.
    pub tls_cert_file: Option<PathBuf>,
    pub tls_key_file: Option<PathBuf>,
    /// Ask clients for certificates and verify them against these CAs (PEM); a verified
    /// certificate's name (DNS, else URI, else CN) is a user on HBase RPC.
    pub tls_client_ca_file: Option<PathBuf>,
    /// The CAs this process trusts when it dials the cluster's servers over TLS (masters,
    /// region servers, standalone's own gateways); default: tls_client_ca_file.
    pub tls_ca_file: Option<PathBuf>,
    /// Whether the HBase RPC port also serves plaintext clients beside TLS (HBase's
    /// hbase.server.netty.tls.supportplaintext); default: yes unless auth is required.
    pub tls_support_plaintext: Option<bool>,
}

impl Default for SecuritySection {
    fn default() -> Self {
        let d = AuthSettings::default();
        Self {
            auth: AuthMode::Off,
            superusers: Vec::new(),
            cluster_secret: None,
            cluster_secret_file: None,
            password_iterations: d.password_iterations,
            credential_cache_ms: d.credential_cache_ms,
            free_failures: d.limiter.free_failures,
            failure_backoff_ms: d.limiter.backoff_base_ms,
            audit_log: None,
            tls_cert_file: None,
            tls_key_file: None,
            tls_client_ca_file: None,
            tls_ca_file: None,
            tls_support_plaintext: None,
        }
    }
}

impl SecuritySection {
    pub fn required(&self) -> bool {
        self.auth == AuthMode::Required
    }

    /// The server TLS of `[security]`, if configured; also makes every client of this
    /// process (servers dialling each other, standalone's gateways) dial over TLS trusting
    /// `tls_ca_file` (else `tls_client_ca_file`). A half-configured TLS is an error naming
    /// the settings.
    pub fn server_tls(&self) -> Result<basalt_net::TlsSlot, CliError> {
        let bad = |m: String| CliError::Cluster(m);
        let tls = self.listener_tls()?;
        if !tls.is_on() {
            return Ok(tls);
        }
        match self.tls_ca_file.as_ref().or(self.tls_client_ca_file.as_ref()) {
            Some(ca) => {
                let client = basalt_net::tls::ClientTls::load(ca, None)
                    .map_err(|e| bad(format!("[security] tls_ca_file: {e}")))?;
                basalt_client::connector::set_process_tls(client);
            }
            None => {
                return Err(bad("[security] TLS needs tls_ca_file (the CA of the servers' certificates): the servers of this process dial each other over TLS".into()))
            }
        }
        Ok(tls)
    }

    /// The TLS of this process's listeners alone (a separate gateway, whose own
    /// `--connect` side is told by `--tls-ca`); none without `tls_cert_file`.
    pub fn listener_tls(&self) -> Result<basalt_net::TlsSlot, CliError> {
        let bad = |m: String| CliError::Cluster(m);
        let (cert_file, key_file) = match (&self.tls_cert_file, &self.tls_key_file) {
            (None, None) => {
                if self.tls_client_ca_file.is_some() {
                    return Err(bad("[security] tls_client_ca_file is set without tls_cert_file and tls_key_file: client certificates need TLS".into()));
                }
                return Ok(basalt_net::TlsSlot::default());
            }
            (Some(c), Some(k)) => (c.clone(), k.clone()),
            _ => {
                return Err(bad(
                    "[security] tls_cert_file and tls_key_file go together: set both".into(),
                ))
            }
        };
        let files = basalt_net::TlsFiles {
            cert_file,
            key_file,
            client_ca_file: self.tls_client_ca_file.clone(),
        };
        let tls =
            basalt_net::ServerTls::load(&files).map_err(|e| bad(format!("[security] TLS: {e}")))?;
        tracing::info!(cert_file = %files.cert_file.display(), client_certificates = files.client_ca_file.is_some(), "TLS on every listener");
        Ok(basalt_net::TlsSlot(Some(tls)))
    }

    /// Whether the HBase RPC port serves plaintext beside TLS.
    pub fn tls_plaintext(&self) -> bool {
        self.tls_support_plaintext.unwrap_or(!self.required())
    }

    /// The cluster secrets: `cluster_secret_file`'s, else `cluster_secret`, else the
    /// environment's; both settings at once is a mistake named.
    pub fn cluster_secret(&self) -> Result<Option<ClusterSecrets>, CliError> {
        let inline = self
            .cluster_secret
            .clone()
            .or_else(|| std::env::var(CLUSTER_SECRET_ENV).ok())
            .filter(|s| !s.is_empty());
        match (&self.cluster_secret_file, inline) {
            (Some(_), Some(_)) if self.cluster_secret.is_some() => Err(CliError::Cluster(
                "[security] sets both cluster_secret and cluster_secret_file: keep one".into(),
            )),
            (Some(file), _) => ClusterSecrets::from_file(file)
                .map(Some)
                .map_err(CliError::Cluster),
            (None, inline) => Ok(inline.map(ClusterSecrets::fixed)),
        }
    }

    pub fn settings(&self, cluster_secret: Option<ClusterSecrets>) -> AuthSettings {
        let mut s = AuthSettings {
            required: self.required(),
            superusers: self.superusers.clone(),
            cluster_secret,
            password_iterations: self.password_iterations,
            credential_cache_ms: self.credential_cache_ms,
            ..AuthSettings::default()
        };
        s.limiter.free_failures = self.free_failures;
        s.limiter.backoff_base_ms = self.failure_backoff_ms;
        s
    }
}

/// Puts `tls` on every listener of `config` (gRPC, Thrift, REST, web UI, HBase RPC, the
/// last with plaintext as `tls_support_plaintext` says).
pub fn apply_tls(config: &mut crate::config::BasaltConfig, tls: &basalt_net::TlsSlot) {
    config.server.tls = tls.clone();
    config.thrift.tls = tls.clone();
    config.rest.tls = tls.clone();
    config.web.tls = tls.clone();
    config.hbase.tls = tls.clone();
    config.hbase.tls_plaintext = config.security.tls_plaintext();
}

/// The authenticator of a process keeping its users in `coord`, and the cluster secret its
/// own clients present (set for the whole process). In a cluster (`cluster = true`) with
/// authentication required, a missing secret refuses to start; standalone makes one up
/// (its servers share one process).
pub fn authenticator(
    section: &SecuritySection,
    coord: Arc<dyn basalt_coord::Coordinator>,
    cluster: bool,
) -> Result<Arc<Authenticator>, CliError> {
    let secret = match (section.cluster_secret()?, section.required(), cluster) {
        (Some(secret), _, _) => Some(secret),
        (None, true, true) => {
            return Err(CliError::Cluster(format!(
                "authentication is required but no cluster secret is set: set cluster_secret in [security] of the config file or {CLUSTER_SECRET_ENV}, the same on every master and region server"
            )))
        }
        (None, true, false) => Some(ClusterSecrets::fixed(random_secret()?)),
        (None, false, _) => None,
    };
    if let Some(secret) = &secret {
        basalt_client::connector::set_process_secrets(secret.clone());
    }
    let store = UserStore::new(coord);
    let auth = Authenticator::new(section.settings(secret), Some(store));
    if auth.required() {
        tracing::info!("authentication required on every gRPC call");
    }
    Ok(Arc::new(auth))
}

/// The authorization of a master (its own grants) and of a region server beside it
/// (grants read from `grants`): superusers are those of `[security] superusers` and the
/// members of the group the authenticator gives superusers and the cluster's servers.
pub fn acls(
    section: &SecuritySection,
    grants: Arc<basalt_server::authorize::LateGrants>,
) -> (
    basalt_server::authorize::AclSlot,
    basalt_server::authorize::AclSlot,
) {
    use basalt_server::authorize::{Acl, AclSlot};
    let checker = checker(section);
    let master = Acl {
        checker: checker.clone(),
        grants: None,
    };
    let server = Acl {
        checker,
        grants: Some(grants),
    };
    (
        AclSlot(Some(Arc::new(master))),
        AclSlot(Some(Arc::new(server))),
    )
}

/// The superusers of `[security] superusers` and the members of the group the
/// authenticator gives superusers and the cluster's servers.
fn checker(section: &SecuritySection) -> Arc<basalt_acl::Checker> {
    let mut superusers = section.superusers.clone();
    superusers.push(format!("@{}", basalt_auth::authenticator::SUPERUSER_GROUP));
    Arc::new(basalt_acl::Checker::new(superusers))
}

/// The authorization of a cluster's process with authentication required (none
/// otherwise): a master checks calls against the grants it keeps (`grants` None), a
/// region server against those it follows from the coordinator.
pub fn cluster_acl(
    section: &SecuritySection,
    grants: Option<Arc<dyn basalt_acl::GrantSource>>,
) -> basalt_server::authorize::AclSlot {
    use basalt_server::authorize::{Acl, AclSlot};
    if !section.required() {
        return AclSlot::default();
    }
    AclSlot(Some(Arc::new(Acl {
        checker: checker(section),
        grants,
    })))
}

fn random_secret() -> Result<String, CliError> {
    basalt_auth::token::generate().map_err(|e| CliError::Cluster(e.to_string()))
}
