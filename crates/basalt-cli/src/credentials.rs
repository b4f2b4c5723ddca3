//! `--user` and `--token-file`: the credentials the client commands (shell, pe, the
//! gateways' `--connect`) present to a server that requires authentication; `--tls-ca`
//! (and `--tls-cert`/`--tls-key`): TLS to a server that serves it.
//!
//! With `--user NAME` the password comes from `BASALT_PASSWORD`, else a prompt without
//! echo on a terminal (never from piped standard input, which may be a script). With
//! `--token-file FILE` the file's first line is a token from `basalt user token`.

use crate::CliError;
use basalt_client::{ClientConfig, Credentials, RemoteConnection};
use clap::Args;
use std::io::IsTerminal;
use std::path::PathBuf;

/// The environment variable a password is read from.
pub const PASSWORD_ENV: &str = "BASALT_PASSWORD";

#[derive(Debug, Clone, Default, Args)]
pub struct CredentialArgs {
    /// Authenticate as this user (password from BASALT_PASSWORD, else a prompt).
    #[arg(long, value_name = "NAME", conflicts_with = "token_file")]
    pub user: Option<String>,
    /// Authenticate with the token in this file (from `basalt user token`).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// Connect over TLS, trusting the CA certificates in this PEM file (a server with
    /// `[security] tls_cert_file` serves TLS only).
    #[arg(long, value_name = "FILE", env = "BASALT_TLS_CA")]
    pub tls_ca: Option<PathBuf>,
    /// Present this client certificate (PEM; with --tls-key) to a server verifying them.
    #[arg(long, value_name = "FILE", env = "BASALT_TLS_CERT", requires_all = ["tls_key", "tls_ca"])]
    pub tls_cert: Option<PathBuf>,
    /// The client certificate's private key (PEM).
    #[arg(
        long,
        value_name = "FILE",
        env = "BASALT_TLS_KEY",
        requires = "tls_cert"
    )]
    pub tls_key: Option<PathBuf>,
}

fn fail(message: String) -> CliError {
    CliError::Cluster(message)
}

impl CredentialArgs {
    /// The credentials asked for, if any.
    pub fn credentials(&self) -> Result<Option<Credentials>, CliError> {
        if let Some(path) = &self.token_file {
            let text = std::fs::read_to_string(path)
                .map_err(|e| fail(format!("--token-file {}: {e}", path.display())))?;
            let token = text.lines().next().unwrap_or_default().trim().to_string();
            if token.is_empty() {
                return Err(fail(format!(
                    "--token-file {}: the file is empty",
                    path.display()
                )));
            }
            return Ok(Some(Credentials::Token(token)));
        }
        let Some(user) = &self.user else {
            return Ok(None);
        };
        let password = match std::env::var(PASSWORD_ENV) {
            Ok(p) => p,
            Err(_) if std::io::stdin().is_terminal() => {
                crate::user::read_password(&format!("Password for {user}: "), false)?
            }
            Err(_) => {
                return Err(fail(format!(
                    "--user {user}: set {PASSWORD_ENV} (standard input is not a terminal to prompt on), or use --token-file"
                )))
            }
        };
        Ok(Some(Credentials::Password {
            user: user.clone(),
            password,
        }))
    }

    /// The TLS asked for, if any (an error names the file).
    pub fn tls(&self) -> Result<Option<basalt_net::tls::ClientTls>, CliError> {
        let Some(ca) = &self.tls_ca else {
            return Ok(None);
        };
        let cert = self.tls_cert.as_deref().zip(self.tls_key.as_deref());
        basalt_net::tls::ClientTls::load(ca, cert)
            .map(Some)
            .map_err(|e| fail(format!("--tls-ca: {e}")))
    }

    /// Connects to `address` presenting these credentials (over TLS with `--tls-ca`).
    pub fn connect(&self, address: &str) -> Result<RemoteConnection, CliError> {
        let config = ClientConfig {
            credentials: self.credentials()?,
            tls: self.tls()?,
            ..ClientConfig::default()
        };
        RemoteConnection::connect_with(address, config).map_err(CliError::Connect)
    }
}
