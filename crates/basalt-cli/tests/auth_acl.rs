//! `basalt standalone --auth` checks HBase's ACLs on every gRPC call: a user holding no
//! grant is refused a read with `AccessDeniedException` and cannot grant himself one; a
//! superuser's `grant` through the shell lets him read, and `R` alone does not let him
//! write.

use crate::support;
use support::user;

use basalt_api::Connection;
use basalt_client::{ClientConfig, Credentials, RemoteConnection};
use basalt_types::{Put, TableName};
use std::path::{Path, PathBuf};
use support::shell::run_script;
use support::{start_with, stop};

/// A token of `name` (a day long), in a file beside the data folder.
fn token_file(dir: &Path, files: &Path, name: &str) -> PathBuf {
    let token = user(dir, &["token", name, "--ttl", "1d"], "");
    let path = files.join(format!("{name}.token"));
    std::fs::write(&path, token).expect("write the token file");
    path
}

/// `script` through the shell connected to `addr` as the token in `token`.
fn shell_as(addr: &str, token: &Path, script: &str) -> String {
    let token = token.to_str().expect("utf-8 path");
    run_script(&["--connect", addr, "--token-file", token, "-n"], script)
}

fn denied(out: &str, what: &str) {
    assert!(
        out.contains("AccessDeniedException")
            && out.contains("Insufficient permissions for user 'bob'")
            && out.contains(what),
        "expected bob refused {what}: {out}"
    );
}

#[test]
fn with_auth_required_a_user_reads_only_what_a_superuser_granted_him() {
    let dir = tempfile::tempdir().expect("tempdir");
    let files = tempfile::tempdir().expect("tempdir");
    user(dir.path(), &["add", "admin", "--superuser"], "s3cret\n");
    user(dir.path(), &["add", "bob"], "bobpw\n");
    let admin = token_file(dir.path(), files.path(), "admin");
    let bob = token_file(dir.path(), files.path(), "bob");
    let running = start_with(dir.path(), &["--auth"]);
    let addr = running.addr.clone();

    let made = shell_as(
        &addr,
        &admin,
        "create 't1', 'f'\nput 't1', 'r1', 'f:q', 'v1'\n",
    );
    assert!(!made.contains("ERROR"), "{made}");

    let before = shell_as(&addr, &bob, "get 't1', 'r1'\n");
    denied(&before, "action=READ");
    assert!(!before.contains("value=v1"), "{before}");
    let self_grant = shell_as(&addr, &bob, "grant 'bob', 'RW', 't1'\n");
    denied(&self_grant, "action=ADMIN");

    let granted = shell_as(
        &addr,
        &admin,
        "grant 'bob', 'R', 't1'\nuser_permission 't1'\n",
    );
    assert!(!granted.contains("ERROR"), "{granted}");
    assert!(granted.contains("bob"), "{granted}");

    let after = shell_as(&addr, &bob, "get 't1', 'r1'\nscan 't1'\n");
    assert!(!after.contains("ERROR"), "{after}");
    assert_eq!(after.matches("value=v1").count(), 2, "{after}");
    let write = shell_as(&addr, &bob, "put 't1', 'r2', 'f:q', 'v2'\n");
    denied(&write, "action=WRITE");
    // Naming a superuser in the user-agent (SIMPLE) changes nothing once authenticated.
    let token = std::fs::read_to_string(&bob).expect("bob's token");
    let config = ClientConfig {
        user: Some("admin".into()),
        retries_max: 0,
        ..ClientConfig::default().with_credentials(Credentials::Token(token.trim().into()))
    };
    let as_bob = RemoteConnection::connect_with(&addr, config).expect("connect as bob");
    let t1 = TableName::parse("t1").expect("valid name");
    let err = as_bob
        .table(&t1)
        .and_then(|t| t.put(&Put::new("r3").add("f", "q", "v3")))
        .expect_err("bob asserting admin still writes as bob");
    denied(&err.to_string(), "action=WRITE");
    let checked = shell_as(&addr, &admin, "get 't1', 'r2'\n");
    assert!(
        checked.contains("0 row(s)"),
        "bob's put was refused: {checked}"
    );
    stop(running);
    let audit = std::fs::read_to_string(dir.path().join("audit.log")).expect("audit log");
    let denials: Vec<&str> = audit
        .lines()
        .filter(|l| l.contains("access denied"))
        .collect();
    assert!(
        denials.len() >= 3 && denials.iter().all(|l| l.contains("bob")),
        "each refusal of bob is audited: {audit}"
    );
}
