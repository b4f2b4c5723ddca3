//! `--user` and `--token-file`: the credentials the client commands (shell, pe, the
//! gateways' `--connect`) present to a server that requires authentication.
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

    /// Connects to `address` presenting these credentials.
    pub fn connect(&self, address: &str) -> Result<RemoteConnection, CliError> {
        let config = ClientConfig {
            credentials: self.credentials()?,
            ..ClientConfig::default()
        };
        RemoteConnection::connect_with(address, config).map_err(CliError::Connect)
    }
}
