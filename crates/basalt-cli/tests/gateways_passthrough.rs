//! `basalt rest --connect` and `basalt thrift --connect` with `--auth`, in their own
//! processes in front of `basalt standalone --auth`, keep no users: each passes its
//! clients' credentials to the server. alice, granted `R` on `t1`, reads through both
//! (Basic and Bearer over REST, SASL PLAIN from happybase over Thrift) and is refused a
//! write by the server's ACLs (403, and Thrift's IOError naming AccessDeniedException),
//! while the admin writes through the same gateways as himself; a wrong password and no
//! credentials are refused at the gateway (401, SASL BAD, Thrift's "only SASL PLAIN").
//! The REST gateway listens on 0.0.0.0, which only an authenticating gateway may do
//! without `--insecure`. Then the Thrift gateway serves TLS (`[security] tls_cert_file`): happybase wraps its
//! socket with `ssl.create_default_context(cafile=…)`, negotiates SASL PLAIN inside it,
//! writes and reads back on one connection; a plaintext client gets nothing.

use crate::support;

use std::path::Path;
use std::process::Child;
use support::cluster::terminate;
use support::gateways::{sasl_message, sasl_step, start_gateway};
use support::http::{request, Answer};
use support::{start_with, stop, user};

fn basic(user: &str, password: &str) -> String {
    basalt_auth::Credentials::Password {
        user: user.into(),
        password: password.into(),
    }
    .header_value()
}

/// `basalt rest|thrift --connect ADDR --auth --port 0` with `extra`; the child and its address.
fn gateway(what: &str, server: &str, extra: &[&str]) -> (Child, String) {
    let mut args = vec![
        what,
        "--connect",
        server,
        "--auth",
        "--port",
        "0",
        "--log",
        "warn",
    ];
    args.extend_from_slice(extra);
    start_gateway(&args, what)
}

fn get(rest: &str, auth: Option<&str>, path: &str) -> Answer {
    let mut headers = vec![("Accept", "application/octet-stream")];
    if let Some(auth) = auth {
        headers.push(("Authorization", auth));
    }
    request(rest, "GET", path, &headers, "")
}

fn put(rest: &str, auth: &str, path: &str, value: &str) -> Answer {
    let headers = [
        ("Authorization", auth),
        ("Content-Type", "application/octet-stream"),
    ];
    request(rest, "PUT", path, &headers, value)
}

fn admin_shell(addr: &str, script: &str) {
    let text = support::shell::run_script_with_env(
        &["--connect", addr, "--user", "admin", "-n"],
        script,
        &[("BASALT_PASSWORD", "s3cret")],
    );
    assert!(!text.contains("ERROR"), "{text}");
}

fn rest_passes_credentials_through(rest: &str, alice_token: &str) {
    let alice = basic("alice", "alicepw");
    let bearer = format!("Bearer {alice_token}");
    for auth in [&alice, &bearer] {
        let read = get(rest, Some(auth), "/t1/r1/f:q");
        assert_eq!((read.status, read.body.as_str()), (200, "v1"), "{read:?}");
    }
    let refused = put(rest, &alice, "/t1/r2/f:q", "nope");
    assert_eq!(refused.status, 403, "{refused:?}");
    assert!(
        refused.body.contains("AccessDeniedException"),
        "{refused:?}"
    );
    let admin = basic("admin", "s3cret");
    let written = put(rest, &admin, "/t1/r2/f:q", "by-admin");
    assert_eq!(written.status, 200, "{written:?}");
    let read = get(rest, Some(&alice), "/t1/r2/f:q");
    assert_eq!(
        (read.status, read.body.as_str()),
        (200, "by-admin"),
        "{read:?}"
    );

    let wrong = get(rest, Some(&basic("alice", "wrong")), "/t1/r1/f:q");
    assert_eq!(wrong.status, 401, "{wrong:?}");
    assert!(wrong.body.contains("the server refused"), "{wrong:?}");
    let none = get(rest, None, "/t1/r1/f:q");
    assert_eq!(none.status, 401, "{none:?}");
    assert_eq!(
        none.header("www-authenticate"),
        Some("Basic realm=\"basalt\""),
        "{none:?}"
    );
}

/// Wrong passwords until the gateway's own limiter refuses this address unchecked; how
/// many attempts were made (the last one refused without asking the server).
fn rest_limits_failures(rest: &str) -> usize {
    for attempt in 1..=6 {
        let wrong = get(
            rest,
            Some(&basic("alice", &format!("guess-{attempt}"))),
            "/t1/r1/f:q",
        );
        assert_eq!(wrong.status, 401, "{wrong:?}");
        if wrong.body.contains("too many failed attempts") {
            assert!(wrong.header("retry-after").is_some(), "{wrong:?}");
            return attempt;
        }
        assert!(wrong.body.contains("the server refused"), "{wrong:?}");
    }
    panic!("the limiter refuses within six failures")
}

fn thrift_passes_credentials_through(thrift: &str) {
    let read = sasl_step(thrift, &["read", "alice", "alicepw"], None);
    assert_eq!(read["ok"]["f:q"], "v1", "{read}");
    let refused = sasl_step(thrift, &["write", "alice", "alicepw"], None);
    assert_eq!(refused["error"], "IOError", "{refused}");
    assert!(
        sasl_message(&refused).contains("AccessDeniedException"),
        "{refused}"
    );
    let written = sasl_step(thrift, &["write", "admin", "s3cret"], None);
    assert_eq!(written["ok"], "written", "{written}");
    let wrong = sasl_step(thrift, &["read", "alice", "wrong"], None);
    assert!(
        sasl_message(&wrong).contains("the server refused"),
        "{wrong}"
    );
    let plain = sasl_step(thrift, &["plain"], None);
    assert_eq!(plain["error"], "TApplicationException", "{plain}");
    assert!(sasl_message(&plain).contains("only SASL PLAIN"), "{plain}");
}

fn thrift_over_tls(server: &str, files: &Path) {
    let ca = basalt_net::certs::TestCa::new(files);
    let (cert, key) = ca.server("gateway", 1);
    let config = files.join("gateway.toml");
    std::fs::write(
        &config,
        format!("[security]\ntls_cert_file = {cert:?}\ntls_key_file = {key:?}\n"),
    )
    .expect("write the config");
    let config = config.to_str().expect("utf-8 path");
    let (mut child, thrift) = gateway("thrift", server, &["--config", config]);
    let trip = sasl_step(&thrift, &["roundtrip", "admin", "s3cret"], Some(&ca.cert));
    assert_eq!(trip["ok"]["f:q"], "round", "{trip}");
    let read = sasl_step(&thrift, &["read", "alice", "alicepw"], Some(&ca.cert));
    assert_eq!(read["ok"]["f:q"], "v1", "{read}");
    let plain = sasl_step(&thrift, &["read", "alice", "alicepw"], None);
    assert!(
        plain.get("ok").is_none(),
        "a plaintext client was served: {plain}"
    );
    assert!(
        terminate(&mut child).success(),
        "basalt thrift stops cleanly"
    );
}

#[test]
fn separate_gateways_with_auth_pass_each_clients_credentials_to_the_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    let files = tempfile::tempdir().expect("tempdir");
    user(dir.path(), &["add", "admin", "--superuser"], "s3cret\n");
    user(dir.path(), &["add", "alice"], "alicepw\n");
    let alice_token = user(dir.path(), &["token", "alice", "--ttl", "1d"], "");
    // The server sees every client of a gateway at the gateway's address: room for the
    // guesses below, so that its own limiter does not close that address.
    let server_config = files.path().join("server.toml");
    std::fs::write(&server_config, "[security]\nfree_failures = 50\n").expect("write");
    let server_config = server_config.to_str().expect("utf-8 path");
    let running = start_with(
        dir.path(),
        &[
            "--auth",
            "--no-thrift",
            "--no-rest",
            "--config",
            server_config,
        ],
    );
    admin_shell(
        &running.addr,
        "create 't1', 'f'\nput 't1', 'r1', 'f:q', 'v1'\ngrant 'alice', 'R', 't1'\n",
    );

    // Authenticating, it may listen beyond loopback (the bind policy). A long back-off,
    // so that the limiter's refusal is seen however slow the test is.
    let limits = files.path().join("limits.toml");
    std::fs::write(
        &limits,
        "[security]\nfree_failures = 3\nfailure_backoff_ms = 60000\ncredential_cache_ms = 600000\n",
    )
    .expect("write the config");
    let limits = limits.to_str().expect("utf-8 path");
    let (mut rest_child, rest) = gateway(
        "rest",
        &running.addr,
        &["--bind", "0.0.0.0", "--config", limits],
    );
    rest_passes_credentials_through(&rest, alice_token.trim());
    let attempts = rest_limits_failures(&rest);
    // The limiter does not let a client make the server check a guessed password.
    let alice_ok = get(&rest, Some(&basic("alice", "alicepw")), "/t1/r1/f:q");
    assert_eq!(
        alice_ok.status, 200,
        "a remembered credential still serves: {alice_ok:?}"
    );
    assert!(
        terminate(&mut rest_child).success(),
        "basalt rest stops cleanly"
    );

    let (mut thrift_child, thrift) = gateway("thrift", &running.addr, &[]);
    thrift_passes_credentials_through(&thrift);
    assert!(
        terminate(&mut thrift_child).success(),
        "basalt thrift stops cleanly"
    );

    thrift_over_tls(&running.addr, files.path());
    stop(running);
    // The server checked the gateway's wrong guesses but not the one refused unchecked:
    // REST's first wrong password, the guesses before the refusal, Thrift's wrong one.
    let audit = std::fs::read_to_string(dir.path().join("audit.log")).expect("audit log");
    let at_server = audit
        .lines()
        .filter(|l| {
            l.contains("outcome=\"auth-failed\" user=\"alice\"") && l.contains("op=\"/basalt.v1.")
        })
        .count();
    assert_eq!(at_server, 1 + (attempts - 1) + 1, "{audit}");
}
