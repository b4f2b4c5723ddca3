//! `basalt user … --connect HOST:PORT`: the same actions as on a data folder, through a
//! running server's `UserService` (see [`crate::user`] for which standard input is which).
//!
//! The caller signs in with `--user` or `--token-file`; `add … --superuser
//! --bootstrap-token TOKEN` signs in with nothing else, once, to add the first superuser.

use crate::credentials::CredentialArgs;
use crate::user::{fail, listing, read_password, UserAction, UserArgs};
use crate::CliError;
use basalt_client::{ClientConfig, RemoteConnection};

/// Runs `args.action` against `address`; the line(s) to print.
pub fn run(args: &UserArgs, address: &str) -> Result<String, CliError> {
    let sign_in = CredentialArgs {
        user: args.user.clone(),
        token_file: args.token_file.clone(),
        tls_ca: args.tls_ca.clone(),
        tls_cert: args.tls_cert.clone(),
        tls_key: args.tls_key.clone(),
    };
    if let UserAction::Add {
        name,
        superuser,
        bootstrap_token: Some(token),
    } = &args.action
    {
        return bootstrap(&sign_in, address, name, *superuser, token);
    }
    if args.user.is_none() && args.token_file.is_none() {
        return Err(fail(
            "--connect needs --user NAME (password from BASALT_PASSWORD) or --token-file FILE; the first superuser: add NAME --superuser --bootstrap-token TOKEN",
        ));
    }
    // The caller's password first (an environment variable or a prompt), then the new one.
    let conn: RemoteConnection = sign_in.connect(address)?;
    let users = conn.users();
    let text = match &args.action {
        UserAction::Add {
            name, superuser, ..
        } => {
            basalt_auth::record::check_name(name).map_err(|e| fail(e.to_string()))?;
            let password = read_password(&format!("Password for {name}: "), true)?;
            users.add(name, &password, *superuser)
        }
        UserAction::Passwd { name } => {
            let password = read_password(&format!("New password for {name}: "), true)?;
            users.passwd(name, &password)
        }
        UserAction::Remove { name } => users.remove(name),
        UserAction::List => users
            .list()
            .map(|all| listing(all.iter().map(|u| (u.name.as_str(), u.superuser)))),
        UserAction::Token { name, ttl } => users.issue_token(name, *ttl).map(|t| t.token),
        UserAction::RevokeTokens { name } => users
            .revoke_tokens(name)
            .map(|n| format!("revoked {n} token(s) of {name}")),
    };
    text.map_err(CliError::Connect)
}

fn bootstrap(
    sign_in: &CredentialArgs,
    address: &str,
    name: &str,
    superuser: bool,
    token: &str,
) -> Result<String, CliError> {
    if !superuser {
        return Err(fail(
            "--bootstrap-token adds the first superuser only: add NAME --superuser --bootstrap-token TOKEN",
        ));
    }
    if sign_in.user.is_some() || sign_in.token_file.is_some() {
        return Err(fail(
            "--bootstrap-token signs in by itself: leave out --user and --token-file",
        ));
    }
    basalt_auth::record::check_name(name).map_err(|e| fail(e.to_string()))?;
    let password = read_password(&format!("Password for {name}: "), true)?;
    let config = ClientConfig {
        tls: sign_in.tls()?,
        ..ClientConfig::default()
    };
    basalt_client::users::add_first_superuser(address, &config, name, &password, token)
        .map_err(CliError::Connect)
}
