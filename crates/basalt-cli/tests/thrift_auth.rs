//! `basalt standalone --auth` keeps the Thrift gateway on behind SASL PLAIN, driven by a
//! real Python client (happybase with thriftpy2's `TSaslClientTransport`, set up as
//! README's Security section shows: `tests/thrift_sasl/`): a client that does not
//! negotiate is told SASL PLAIN is required; a user without grants is denied a read by
//! ACL and allowed after a superuser's `grant` through the shell; 10,000 attempts at
//! another user's scanner are all denied; wrong passwords are refused, counted, and then
//! refused unchecked by the limiter; the audit log has the logins and the denials.

use crate::support;

use std::path::Path;
use support::gateways::sasl_message as message;
use support::{basalt, start_with, stop};

fn user(dir: &Path, args: &[&str], stdin: &str) {
    let mut all = vec!["user"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--data-dir", dir.to_str().expect("utf-8 path")]);
    let out = basalt(&all, stdin);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// One step of `tests/thrift_sasl/client.py`: its line of JSON.
fn step(addr: &str, args: &[&str]) -> serde_json::Value {
    support::gateways::sasl_step(addr, args, None)
}

fn admin_shell(addr: &str, script: &str) {
    let text = support::shell::run_script_with_env(
        &["--connect", addr, "--user", "admin", "-n"],
        script,
        &[("BASALT_PASSWORD", "s3cret")],
    );
    assert!(!text.contains("ERROR"), "{text}");
}

#[test]
fn with_auth_required_thrift_authenticates_with_sasl_plain_and_checks_acls() {
    let dir = tempfile::tempdir().expect("tempdir");
    user(dir.path(), &["add", "admin", "--superuser"], "s3cret\n");
    user(dir.path(), &["add", "bob"], "bobpw\n");
    let config = dir.path().join("basalt.toml");
    // A long back-off, so that the limiter's refusal is seen however slow the test is.
    std::fs::write(
        &config,
        "[security]\nfree_failures = 3\nfailure_backoff_ms = 60000\n",
    )
    .expect("write the config");
    let running = start_with(
        dir.path(),
        &["--auth", "--config", config.to_str().expect("utf-8 path")],
    );
    let thrift = running
        .sidecar_addr("thrift")
        .expect("Thrift stays on with authentication required");
    admin_shell(
        &running.addr,
        "create 't1', 'f'\nput 't1', 'r1', 'f:q', 'v1'\n",
    );

    let plain = step(&thrift, &["plain"]);
    assert_eq!(plain["error"], "TApplicationException", "{plain}");
    assert!(message(&plain).contains("only SASL PLAIN"), "{plain}");

    let denied = step(&thrift, &["read", "bob", "bobpw"]);
    assert!(
        message(&denied).contains("AccessDeniedException: Insufficient permissions for user 'bob' (table=t1, action=READ)"),
        "{denied}"
    );
    admin_shell(&running.addr, "grant 'bob', 'R', 't1'\n");
    let allowed = step(&thrift, &["read", "bob", "bobpw"]);
    assert_eq!(allowed["ok"]["f:q"], "v1", "{allowed}");

    let steal = step(&thrift, &["steal", "admin", "s3cret", "bob", "bobpw"]);
    assert_eq!(steal["ok"]["attempts"], 10_000, "{steal}");
    assert_eq!(steal["ok"]["denied"], 10_000, "{steal}");
    assert_eq!(steal["ok"]["leaked"], 0, "{steal}");
    assert_eq!(
        steal["ok"]["owner_rows"], 1,
        "the owner still reads: {steal}"
    );

    // Last: the limiter then refuses this address (everything here is 127.0.0.1). The
    // first failures are checked and counted; past `free_failures` an attempt waits out
    // the back-off, refused unchecked.
    let mut refused_unchecked = None;
    for attempt in 1..=6 {
        let wrong = step(&thrift, &["read", "bob", &format!("guess-{attempt}")]);
        if message(&wrong).contains("too many failed authentication attempts") {
            refused_unchecked = Some(attempt);
            break;
        }
        assert!(
            message(&wrong).contains("wrong user name or password for 'bob'"),
            "{wrong}"
        );
    }
    let refused_unchecked = refused_unchecked.expect("the limiter refuses within six failures");
    assert!(
        refused_unchecked > 3,
        "three failures are free: {refused_unchecked}"
    );
    stop(running);

    let audit = std::fs::read_to_string(dir.path().join("audit.log")).expect("audit log");
    let lines = |needle: &str| audit.lines().filter(|l| l.contains(needle)).count();
    // Logins are audited once checked (a cached credential is not checked again).
    assert!(
        lines("outcome=\"authenticated\" user=\"bob\"") >= 1 && lines("op=\"thrift.sasl\"") >= 6,
        "{audit}"
    );
    assert!(
        lines("outcome=\"auth-failed\" user=\"bob\"") >= 4,
        "{audit}"
    );
    assert_eq!(
        lines("the scanner belongs to another connection"),
        100,
        "{audit}"
    );
    assert!(lines("access denied user=bob") >= 1, "{audit}");
}
