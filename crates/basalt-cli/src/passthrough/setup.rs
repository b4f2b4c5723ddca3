//! What `basalt rest --connect` and `basalt thrift --connect` take from `--auth` and
//! `[security]`: TLS on their own listener (`tls_cert_file`/`tls_key_file`, reloaded as
//! every listener's are), and with authentication required an authenticator passing each
//! client's credentials to the backend ([`super::BackendVerifier`]). The gateway's own
//! `--user`/`--token-file` are then unused: it acts as no one of its own.

use super::BackendVerifier;
use crate::bind_policy::Listener;
use crate::credentials::CredentialArgs;
use crate::security::{AuthMode, SecuritySection};
use crate::CliError;
use basalt_auth::Authenticator;
use std::sync::Arc;

/// A separate gateway's listener TLS and authenticator.
pub struct GatewaySecurity {
    pub tls: basalt_net::TlsSlot,
    /// With authentication required: checks each client at the backend.
    pub auth: Option<Arc<Authenticator>>,
}

impl GatewaySecurity {
    /// From `[security]`, `--auth` (`auth_flag`), and the `--connect` side's address and
    /// TLS (`credentials`).
    pub fn resolve(
        section: &SecuritySection,
        auth_flag: bool,
        credentials: &CredentialArgs,
        connect: &str,
    ) -> Result<Self, CliError> {
        let tls = section.listener_tls()?;
        if !(auth_flag || section.required()) {
            return Ok(Self { tls, auth: None });
        }
        if credentials.user.is_some() || credentials.token_file.is_some() {
            tracing::warn!("--user and --token-file are not used with authentication required: each client's own credentials are passed to the server");
        }
        let section = SecuritySection {
            auth: AuthMode::Required,
            ..section.clone()
        };
        let verifier = Arc::new(BackendVerifier::new(connect, credentials.tls()?));
        let auth = Authenticator::new(section.settings(None), None).with_verifier(verifier);
        tracing::info!(server = connect, "authentication required: each client's credentials are passed to the server, which checks them and HBase's ACLs");
        Ok(Self {
            tls,
            auth: Some(Arc::new(auth)),
        })
    }

    /// Applies the bind policy to the gateway's listener (`name` on `addr`): beyond
    /// loopback only when it authenticates, or with `insecure`; warns of passwords in
    /// clear beyond loopback without TLS.
    pub fn enforce(&self, name: &'static str, addr: &str, insecure: bool) -> Result<(), CliError> {
        let listener = [Listener {
            name,
            setting: "--bind",
            addr: addr.to_string(),
            authenticates: true,
        }];
        let required = self.auth.is_some();
        crate::bind_policy::enforce(&listener, required, insecure)?;
        crate::bind_policy::warn_clear_passwords(&listener, required, self.tls.is_on());
        Ok(())
    }
}
