//! The PyPI client hbase-rest-py (`HBaseRESTClient`, pinned in `scripts/python-env.sh`)
//! against standalone's REST gateway, through `tests/rest_py/client.py`: on a default
//! loopback standalone without credentials it creates a table, puts, gets and scans;
//! against `--auth`, with Basic set as `client.session.auth` and with a bearer token in
//! its session's headers (as docs/security.md shows), the admin puts, gets and scans, and
//! alice, granted only `R`, reads and scans but her put is refused with 403. Over https
//! (`[security] tls_cert_file`) it follows the scanner's `Location`, which says https.

use crate::support;

use std::path::Path;
use std::process::Command;
use support::{start_with, stop, user};

/// One step of `tests/rest_py/client.py` against the gateway at `rest`, with `env`.
fn step(rest: &str, args: &[&str], env: &[(&str, &str)]) -> serde_json::Value {
    step_at(&format!("http://{rest}"), args, env)
}

/// The same against the gateway at `url` (`http://…` or `https://…`).
fn step_at(url: &str, args: &[&str], env: &[(&str, &str)]) -> serde_json::Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rest_py/client.py");
    let out = Command::new(support::gateways::python())
        .arg(script)
        .arg(url)
        .args(args)
        .envs(env.iter().copied())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        // requests prefers these to the session's own `verify` (the test CA).
        .env_remove("REQUESTS_CA_BUNDLE")
        .env_remove("CURL_CA_BUNDLE")
        .output()
        .expect("run the Python client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "client.py {args:?}: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// Puts, gets and scans `table` (family `f`) as whoever `env` names.
fn put_get_scan(rest: &str, table: &str, env: &[(&str, &str)]) {
    let put = step(rest, &["put", table, "r1", "f:q", "v1"], env);
    assert_eq!(put["ok"], "put", "{put}");
    let put = step(rest, &["put", table, "r2", "f:q", "v2"], env);
    assert_eq!(put["ok"], "put", "{put}");
    let got = step(rest, &["get", table, "r1"], env);
    assert_eq!(got["ok"]["f:q"], "v1", "{got}");
    let scanned = step(rest, &["scan", table], env);
    assert_eq!(scanned["ok"], serde_json::json!(["r1", "r2"]), "{scanned}");
}

#[test]
fn hbase_rest_py_puts_gets_and_scans_on_a_default_standalone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let running = start_with(dir.path(), &["--no-thrift", "--no-hbase"]);
    let rest = running.sidecar_addr("rest").expect("REST is on");
    let created = step(&rest, &["create", "pyt", "f"], &[]);
    assert_eq!(created["ok"], "created", "{created}");
    put_get_scan(&rest, "pyt", &[]);
    stop(running);
}

#[test]
fn hbase_rest_py_authenticates_with_basic_and_a_bearer_token() {
    let dir = tempfile::tempdir().expect("tempdir");
    user(dir.path(), &["add", "admin", "--superuser"], "s3cret\n");
    user(dir.path(), &["add", "alice"], "alicepw\n");
    let token = user(dir.path(), &["token", "alice", "--ttl", "1d"], "");
    let running = start_with(dir.path(), &["--auth", "--no-thrift"]);
    let rest = running
        .sidecar_addr("rest")
        .expect("REST is on with --auth");
    let admin = [
        ("BASALT_REST_USER", "admin"),
        ("BASALT_REST_PASSWORD", "s3cret"),
    ];
    let created = step(&rest, &["create", "pyt", "f"], &admin);
    assert_eq!(created["ok"], "created", "{created}");
    put_get_scan(&rest, "pyt", &admin);

    let anonymous = step(&rest, &["get", "pyt", "r1"], &[]);
    assert_eq!(anonymous["status"], 401, "{anonymous}");
    let alice = [("BASALT_REST_TOKEN", token.trim())];
    let before = step(&rest, &["get", "pyt", "r1"], &alice);
    assert_eq!(before["status"], 403, "no grant yet: {before}");
    let granted = support::shell::run_script_with_env(
        &["--connect", &running.addr, "--user", "admin", "-n"],
        "grant 'alice', 'R', 'pyt'\n",
        &[("BASALT_PASSWORD", "s3cret")],
    );
    assert!(!granted.contains("ERROR"), "{granted}");
    let got = step(&rest, &["get", "pyt", "r1"], &alice);
    assert_eq!(got["ok"]["f:q"], "v1", "{got}");
    let scanned = step(&rest, &["scan", "pyt"], &alice);
    assert_eq!(scanned["ok"], serde_json::json!(["r1", "r2"]), "{scanned}");
    let refused = step(&rest, &["put", "pyt", "r3", "f:q", "no"], &alice);
    assert_eq!(refused["status"], 403, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .is_some_and(|e| e.contains("AccessDeniedException")),
        "{refused}"
    );
    stop(running);
}

#[test]
fn hbase_rest_py_scans_over_https() {
    let dir = tempfile::tempdir().expect("tempdir");
    let files = tempfile::tempdir().expect("tempdir");
    let tls = support::tls::TlsFiles::new(files.path(), false, "");
    let ca = &tls.ca;
    user(dir.path(), &["add", "admin", "--superuser"], "s3cret\n");
    let config = tls.config_arg();
    let running = start_with(dir.path(), &["--auth", "--no-thrift", "--config", config]);
    let rest = running.sidecar_addr("rest").expect("REST is on");
    let (_, port) = rest.rsplit_once(':').expect("host:port");
    // The certificate names 127.0.0.1 and localhost.
    let url = format!("https://localhost:{port}");
    let ca_file = ca.cert.to_str().expect("utf-8 path");
    let env = [
        ("BASALT_REST_USER", "admin"),
        ("BASALT_REST_PASSWORD", "s3cret"),
        ("BASALT_REST_CA", ca_file),
    ];
    let created = step_at(&url, &["create", "tlst", "f"], &env);
    assert_eq!(created["ok"], "created", "{created}");
    let put = step_at(&url, &["put", "tlst", "r1", "f:q", "v1"], &env);
    assert_eq!(put["ok"], "put", "{put}");
    let scanned = step_at(&url, &["scan", "tlst"], &env);
    assert_eq!(scanned["ok"], serde_json::json!(["r1"]), "{scanned}");
    stop(running);
}
