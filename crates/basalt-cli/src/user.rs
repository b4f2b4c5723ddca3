//! `basalt user add|passwd|remove|list|token|revoke-tokens NAME`: the users a server
//! authenticates, kept beside the catalog.
//!
//! `--data-dir DIR` works on a standalone data folder directly (no server may have it
//! open): how the first superuser is made, locally, never by whoever first reaches a port.
//! `--coordinator etcd://…` works on a cluster's etcd. `--connect HOST:PORT[,…]` works
//! through a running server (standalone, or a cluster's masters: the active one answers),
//! which needs authentication required there: the caller signs in with `--user` (password
//! from `BASALT_PASSWORD`, else a prompt on a terminal) or `--token-file`, and
//! `--tls-ca`/`--tls-cert`/`--tls-key` as the shell takes them. Superusers may do
//! everything; any user may change its own password and issue or revoke its own tokens.
//! `add NAME --superuser --connect … --bootstrap-token TOKEN` adds the first superuser with
//! the one-time token a master printed at its first start, without other credentials.
//!
//! Which standard input is which: the password being *set* (`add`, `passwd`) is read from
//! standard input when it is not a terminal (its first line), else prompted for twice
//! without echo. The caller's own password is never read from piped standard input (only
//! from `BASALT_PASSWORD`, or a prompt on a terminal, before the new one's).

use crate::CliError;
use basalt_auth::UserStore;
use clap::{Args, Subcommand};
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Args)]
pub struct UserArgs {
    #[command(subcommand)]
    pub action: UserAction,
    /// The standalone data folder whose users to change (no server may have it open).
    #[arg(
        long,
        value_name = "DIR",
        global = true,
        conflicts_with = "coordinator"
    )]
    pub data_dir: Option<PathBuf>,
    /// A cluster's etcd: `etcd://HOST:PORT[,HOST:PORT…]`.
    #[arg(long, value_name = "URL", global = true)]
    pub coordinator: Option<String>,
    /// The cluster's key prefix in etcd.
    #[arg(long, value_name = "PREFIX", default_value = "/basalt/", global = true)]
    pub cluster_prefix: String,
    /// A running server (`HOST:PORT`, or a cluster's masters `m1:16000,m2:16000`) whose
    /// users to change, signed in with --user or --token-file (or --bootstrap-token).
    #[arg(
        long,
        value_name = "HOST:PORT",
        global = true,
        conflicts_with_all = ["data_dir", "coordinator"]
    )]
    pub connect: Option<String>,
    /// With --connect: sign in as this user (password from BASALT_PASSWORD, else a prompt).
    #[arg(
        long,
        value_name = "NAME",
        global = true,
        conflicts_with = "token_file"
    )]
    pub user: Option<String>,
    /// With --connect: sign in with the token in this file.
    #[arg(long, value_name = "FILE", global = true)]
    pub token_file: Option<PathBuf>,
    /// With --connect: TLS, trusting the CA certificates in this PEM file.
    #[arg(long, value_name = "FILE", env = "BASALT_TLS_CA", global = true)]
    pub tls_ca: Option<PathBuf>,
    /// With --connect: a client certificate (PEM; with --tls-key).
    #[arg(long, value_name = "FILE", env = "BASALT_TLS_CERT", global = true)]
    pub tls_cert: Option<PathBuf>,
    /// With --connect: the client certificate's private key (PEM).
    #[arg(long, value_name = "FILE", env = "BASALT_TLS_KEY", global = true)]
    pub tls_key: Option<PathBuf>,
    /// A TOML configuration file: `[security] password_iterations` applies.
    #[arg(long, value_name = "FILE", global = true)]
    pub config: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum UserAction {
    /// Add a user (password from standard input or a prompt).
    Add {
        name: String,
        /// A superuser: every permission (the first one is made this way, locally, or
        /// with --bootstrap-token).
        #[arg(long)]
        superuser: bool,
        /// With --connect and --superuser: the one-time token the server printed at its
        /// first start (no superuser existed), instead of signing in.
        #[arg(long, value_name = "TOKEN", env = "BASALT_BOOTSTRAP_TOKEN")]
        bootstrap_token: Option<String>,
    },
    /// Set a user's password.
    Passwd { name: String },
    /// Remove a user and revoke its tokens.
    Remove { name: String },
    /// List users.
    List,
    /// Issue a bearer token for a user (printed once; keep it in a file).
    Token {
        name: String,
        /// How long it is valid: seconds, or with a unit: 90s, 30m, 12h, 30d.
        #[arg(long, value_name = "TTL", default_value = "30d", value_parser = parse_ttl)]
        ttl: Duration,
    },
    /// Revoke every token of a user.
    RevokeTokens { name: String },
}

/// What `list` prints: a header, a line per user, the count.
pub(crate) fn listing<'a>(users: impl Iterator<Item = (&'a str, bool)>) -> String {
    let mut text = String::from("USER\tSUPERUSER");
    let mut count = 0;
    for (name, superuser) in users {
        text.push_str(&format!("\n{name}\t{superuser}"));
        count += 1;
    }
    text.push_str(&format!("\n{count} user(s)"));
    text
}

/// `90`, `90s`, `30m`, `12h`, `30d`.
pub fn parse_ttl(text: &str) -> Result<Duration, String> {
    let (digits, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => text.split_at(i),
        None => (text, "s"),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("'{text}' is not a duration (90s, 30m, 12h, 30d)"))?;
    let secs = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return Err(format!("'{text}': unknown unit '{unit}' (s, m, h, d)")),
    };
    Ok(Duration::from_secs(n.saturating_mul(secs)))
}

pub(crate) fn fail(message: impl Into<String>) -> CliError {
    CliError::Cluster(message.into())
}

/// Reads a password: a line of standard input when it is not a terminal, else a prompt
/// without echo (twice when `confirm`).
pub fn read_password(prompt: &str, confirm: bool) -> Result<String, CliError> {
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        let mut line = String::new();
        stdin
            .lock()
            .read_line(&mut line)
            .map_err(|e| fail(format!("cannot read the password from standard input: {e}")))?;
        return Ok(line.trim_end_matches(['\n', '\r']).to_string());
    }
    let first = prompt_hidden(prompt)?;
    if confirm && prompt_hidden("Again: ")? != first {
        return Err(fail("the two passwords differ; nothing was changed"));
    }
    Ok(first)
}

/// A prompt on stderr with the terminal's echo off (`stty`), restored afterwards.
fn prompt_hidden(prompt: &str) -> Result<String, CliError> {
    let stty = |arg: &str| {
        std::process::Command::new("stty")
            .arg(arg)
            .stdin(std::process::Stdio::inherit())
            .status()
            .is_ok_and(|s| s.success())
    };
    eprint!("{prompt}");
    let _ = std::io::stderr().flush();
    let hidden = stty("-echo");
    let mut line = String::new();
    let read = std::io::stdin().lock().read_line(&mut line);
    if hidden {
        stty("echo");
    }
    eprintln!();
    read.map_err(|e| fail(format!("cannot read the password: {e}")))?;
    Ok(line.trim_end_matches(['\n', '\r']).to_string())
}

pub fn run(args: &UserArgs) -> Result<(), CliError> {
    if let Some(address) = &args.connect {
        let text = crate::user_connect::run(args, address)?;
        let _ = writeln!(std::io::stdout(), "{text}");
        return Ok(());
    }
    let file = match &args.config {
        Some(path) => crate::config::BasaltConfig::load(path)?,
        None => crate::config::BasaltConfig::default(),
    };
    let iterations = file.security.password_iterations;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(CliError::Runtime)?;
    let (_held, coord) = match (&args.data_dir, &args.coordinator) {
        (Some(dir), _) => {
            let prepared =
                crate::standalone_folder::open(dir, &basalt_db::DbConfig::default()).map_err(|e| {
                    fail(format!("{e} (basalt user --data-dir needs the folder to itself: stop the server first)"))
                })?;
            let coord = prepared.coord.clone();
            (Some(prepared), coord)
        }
        (None, Some(url)) => {
            let cluster = crate::cluster::ClusterArgs::for_coordinator(url, &args.cluster_prefix);
            let coord = runtime.block_on(crate::cluster::connect_coordinator(&cluster))?;
            (None, coord)
        }
        (None, None) => {
            return Err(fail(
                "say whose users: --data-dir DIR (a standalone folder, server stopped), --coordinator etcd://… (a cluster's etcd) or --connect HOST:PORT (a running server)",
            ))
        }
    };
    let store = UserStore::new(coord);
    let now = basalt_auth::authenticator::now_ms();
    let out = &mut std::io::stdout();
    let done = match &args.action {
        UserAction::Add {
            bootstrap_token: Some(_),
            ..
        } => return Err(fail("--bootstrap-token goes with --connect HOST:PORT")),
        UserAction::Add {
            name, superuser, ..
        } => {
            basalt_auth::record::check_name(name).map_err(|e| fail(e.to_string()))?;
            let password = read_password(&format!("Password for {name}: "), true)?;
            runtime
                .block_on(store.add(name, &password, *superuser, iterations, now))
                .map(|()| {
                    format!(
                        "added user {name}{}",
                        if *superuser { " (superuser)" } else { "" }
                    )
                })
        }
        UserAction::Passwd { name } => {
            let password = read_password(&format!("New password for {name}: "), true)?;
            runtime
                .block_on(store.passwd(name, &password, iterations))
                .map(|()| format!("changed the password of {name}"))
        }
        UserAction::Remove { name } => runtime
            .block_on(store.remove(name))
            .map(|()| format!("removed user {name} and its tokens")),
        UserAction::List => runtime
            .block_on(store.list())
            .map(|users| listing(users.iter().map(|u| (u.name.as_str(), u.superuser)))),
        UserAction::Token { name, ttl } => runtime
            .block_on(store.issue_token(name, *ttl, now))
            .map(|t| t.token),
        UserAction::RevokeTokens { name } => runtime
            .block_on(store.revoke_tokens(name))
            .map(|n| format!("revoked {n} token(s) of {name}")),
    };
    let text = done.map_err(|e| fail(e.to_string()))?;
    let _ = writeln!(out, "{text}");
    drop(runtime);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttls_take_units() {
        assert_eq!(parse_ttl("90"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_ttl("30m"), Ok(Duration::from_secs(1800)));
        assert_eq!(parse_ttl("2d"), Ok(Duration::from_secs(172_800)));
        assert!(parse_ttl("1w").expect_err("unit").contains("unknown unit"));
        assert!(parse_ttl("x").is_err());
    }
}
