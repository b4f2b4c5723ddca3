//! `basalt standalone --auth` with `[security] tls_cert_file` serves TLS only on every
//! listener: the shell (the Rust client) with `--tls-ca`, REST with `curl --cacert` and
//! Basic, the web UI's sign-in over HTTPS with a `Secure` cookie; a plaintext client is
//! told the port speaks TLS and the listener goes on; a replaced certificate is served to
//! new connections without a restart, and a broken replacement keeps the previous one.

use crate::support;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;
use support::http::curl;
use support::tls::TlsFiles;
use support::{start_logging_to, stop, user};

/// `basalt shell` with `args`, the admin's password in the environment; stdout, stderr.
fn shell(args: &[&str], script: &str) -> (String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .arg("shell")
        .args(args)
        .env("BASALT_PASSWORD", "s3cret")
        .env_remove("BASALT_TLS_CA")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn basalt shell");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(script.as_bytes())
        .expect("write the script");
    let out = child.wait_with_output().expect("the shell runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The serial `openssl s_client` sees on a new connection to `addr`.
fn served_serial(addr: &str, ca: &Path) -> String {
    let connect = Command::new("openssl")
        .args(["s_client", "-connect", addr, "-CAfile"])
        .arg(ca)
        .stdin(Stdio::null())
        .output()
        .expect("openssl s_client");
    let mut x509 = Command::new("openssl")
        .args(["x509", "-noout", "-serial"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("openssl x509");
    x509.stdin
        .take()
        .expect("stdin")
        .write_all(&connect.stdout)
        .expect("the session's output");
    let out = x509.wait_with_output().expect("openssl x509 runs");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn with_tls_every_listener_serves_tls_only_and_a_new_certificate_needs_no_restart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let files = tempfile::tempdir().expect("tempdir");
    let tls = TlsFiles::new(files.path(), false, "");
    let (ca, cert, key, config) = (&tls.ca, &tls.cert, &tls.key, &tls.config);
    user(dir.path(), &["add", "admin", "--superuser"], "s3cret\n");
    let log_path = files.path().join("server.log");
    let log = std::fs::File::create(&log_path).expect("log file");
    let config_arg = config.to_string_lossy().to_string();
    let running = start_logging_to(dir.path(), &["--auth", "--config", &config_arg], log);
    let ca_arg = ca.cert.to_string_lossy().to_string();

    // The shell over TLS, as the admin.
    let tls_shell = [
        "--connect",
        &running.addr,
        "--tls-ca",
        &ca_arg,
        "--user",
        "admin",
    ];
    let (out, err) = shell(
        &tls_shell,
        "create 't1', 'f'\nput 't1', 'r1', 'f:q', 'over-tls'\nget 't1', 'r1'\n",
    );
    assert!(
        out.contains("value=over-tls"),
        "stdout: {out}\nstderr: {err}"
    );
    // Without --tls-ca the shell is refused (the server closes the plaintext connection:
    // gRPC has no way to tell it why).
    let plain_shell = ["--connect", &running.addr, "--user", "admin"];
    let (out, err) = shell(&plain_shell, "list\n");
    assert!(
        !out.contains("t1"),
        "a plaintext shell read the table list: {out}"
    );
    assert!(err.contains("transport error"), "stderr: {err}");

    // REST: Basic over TLS; plaintext HTTP is told to use https.
    let rest = running.sidecar_addr("rest").expect("REST is on");
    let answer = curl(&[
        "--cacert",
        &ca_arg,
        "-u",
        "admin:s3cret",
        &format!("https://{rest}/t1/r1/f:q"),
        "-H",
        "Accept: application/octet-stream",
    ]);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.ends_with("over-tls"), "{answer}");
    let plain = curl(&[&format!("http://{rest}/version/cluster")]);
    assert!(plain.starts_with("HTTP/1.1 400"), "{plain}");
    assert!(plain.contains("TLS only"), "{plain}");
    // An untrusted certificate is refused by the client.
    let untrusted = curl(&[&format!("https://{rest}/version/cluster")]);
    assert!(untrusted.contains("certificate"), "{untrusted}");

    // The web UI's sign-in over HTTPS: a Secure cookie.
    let web = running.sidecar_addr("web").expect("the web UI is on");
    let signed_in = curl(&[
        "--cacert",
        &ca_arg,
        "--data",
        "user=admin&password=s3cret",
        &format!("https://{web}/login"),
    ]);
    let cookie = signed_in
        .lines()
        .find(|l| l.to_ascii_lowercase().starts_with("set-cookie:"))
        .unwrap_or_else(|| panic!("no session cookie: {signed_in}"));
    assert!(cookie.contains("; Secure"), "{cookie}");

    // The certificate replaced on disk: new connections see it without a restart.
    assert_eq!(served_serial(&rest, &ca.cert), "serial=01");
    let (next_cert, next_key) = ca.server("next", 2);
    std::fs::rename(&next_cert, cert).expect("replace the certificate");
    std::fs::rename(&next_key, key).expect("replace the key");
    std::thread::sleep(Duration::from_millis(1100));
    let _ = served_serial(&rest, &ca.cert); // the handshake that looks at the files
    assert_eq!(served_serial(&rest, &ca.cert), "serial=02");
    assert_eq!(served_serial(&running.addr, &ca.cert), "serial=02", "gRPC");
    // A broken replacement keeps the previous certificate, with a warning naming the file.
    std::fs::write(cert, "not a certificate\n").expect("break the certificate");
    std::thread::sleep(Duration::from_millis(1100));
    let _ = served_serial(&rest, &ca.cert);
    assert_eq!(served_serial(&rest, &ca.cert), "serial=02");
    let (out, err) = shell(&tls_shell, "get 't1', 'r1'\n");
    assert!(
        out.contains("value=over-tls"),
        "stdout: {out}\nstderr: {err}"
    );
    stop(running);
    let log = std::fs::read_to_string(&log_path).expect("the log");
    assert!(
        log.contains("TLS certificate not reloaded") && log.contains(&*cert.to_string_lossy()),
        "{log}"
    );
}
