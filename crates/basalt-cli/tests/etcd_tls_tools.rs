//! The cluster's tools reach etcd over TLS: `basalt user … --coordinator etcds://…` with
//! etcd's CA and a client certificate (`BASALT_ETCD_CA`, `BASALT_ETCD_CERT`,
//! `BASALT_ETCD_KEY`, as `basalt master`/`regionserver` take them by flag or environment)
//! adds and lists users in an etcd that requires client certificates; without the CA the
//! command says what is missing.

use basalt_coord::testing::TlsEtcd;
use basalt_net::certs::TestCa;
use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn user(args: &[&str], env: &[(&str, &std::path::Path)], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .arg("user")
        .args(args)
        .env_remove("BASALT_ETCD_CA")
        .envs(env.iter().map(|(k, v)| (k, v.as_os_str())))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("basalt runs");
    let mut input = child.stdin.take().expect("stdin");
    input.write_all(stdin.as_bytes()).expect("write");
    drop(input);
    child.wait_with_output().expect("basalt ends")
}

#[test]
fn user_tools_reach_an_etcd_that_requires_client_certificates() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ca = TestCa::new(dir.path());
    let etcd = TlsEtcd::start(dir.path(), &ca);
    let (cert, key) = ca.issue("basalt", "basalt", "", 2);
    let url = etcd.endpoint.replace("https://", "etcds://");
    let env = [
        ("BASALT_ETCD_CA", ca.cert.as_path()),
        ("BASALT_ETCD_CERT", cert.as_path()),
        ("BASALT_ETCD_KEY", key.as_path()),
    ];
    // etcd takes a moment to start: the first add is repeated until it lands.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let added = user(
            &["add", "admin", "--superuser", "--coordinator", &url],
            &env,
            "pw\n",
        );
        if added.status.success() {
            break;
        }
        let why = String::from_utf8_lossy(&added.stderr).into_owned();
        assert!(Instant::now() < deadline, "user add over etcds://: {why}");
        std::thread::sleep(Duration::from_millis(300));
    }
    let listed = user(&["list", "--coordinator", &url], &env, "");
    let out = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.status.success() && out.contains("admin"), "{out}");

    let without_ca = user(&["list", "--coordinator", &url], &[], "");
    let why = String::from_utf8_lossy(&without_ca.stderr);
    assert!(
        !without_ca.status.success() && why.contains("--coordinator-ca"),
        "{why}"
    );
}
