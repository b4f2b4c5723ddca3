//! The REST gateway from the command line: standalone's sidecar driven by the npm `hbase`
//! REST client (installed by `scripts/node-env.sh`), and `basalt rest --connect` over a
//! running server.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::support;

/// Starts standalone; returns it and the REST gateway's address.
fn start(dir: &Path) -> (support::Running, String) {
    let running = support::start(dir);
    let rest = running
        .sidecar_addr("rest")
        .expect("standalone prints the rest address");
    (running, rest)
}

#[test]
fn the_npm_hbase_client_drives_the_rest_gateway() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (running, rest) = start(dir.path());
    let outcome = std::panic::catch_unwind(|| support::gateways::node_hbase(&rest));
    support::stop(running);
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

/// One HTTP/1.1 exchange; returns the status and body.
fn http(addr: &str, method: &str, path: &str, content_type: &str, body: &str) -> (u16, String) {
    let mut stream = std::net::TcpStream::connect(addr).expect("connect");
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nAccept: application/json\r\n\
         Content-Type: {content_type}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).expect("write");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("read");
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status code");
    let body = response
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_string();
    (status, body)
}

#[test]
fn basalt_rest_serves_a_running_server_and_honours_read_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = support::start_with(dir.path(), &["--no-rest"]);
    let mut gateway = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .args([
            "rest",
            "--connect",
            &server.addr,
            "--port",
            "0",
            "--read-only",
            "--log",
            "warn",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn basalt rest");
    let stdout = gateway.stdout.take().expect("piped stdout");
    let line = BufReader::new(stdout)
        .lines()
        .next()
        .expect("basalt rest exited before it was ready")
        .expect("read stdout");
    let rest = line
        .strip_prefix("basalt rest listening on ")
        .expect("the ready line")
        .to_string();

    let (status, body) = http(&rest, "GET", "/version/cluster", "text/plain", "");
    assert_eq!((status, body.as_str()), (200, r#"{"Version":"2.5.5"}"#));
    let (status, body) = http(&rest, "GET", "/namespaces", "text/plain", "");
    assert_eq!(status, 200);
    assert!(body.contains("\"default\""), "{body}");
    let schema = r#"{"name":"t","ColumnSchema":[{"name":"f"}]}"#;
    let (status, body) = http(&rest, "PUT", "/t/schema", "application/json", schema);
    assert_eq!(status, 403, "{body}");
    assert!(body.starts_with("Forbidden"), "{body}");
    let (status, _) = http(&rest, "GET", "/t/schema", "text/plain", "");
    assert_eq!(status, 404);

    let kill = Command::new("kill")
        .args(["-TERM", &gateway.id().to_string()])
        .status()
        .expect("kill");
    assert!(kill.success());
    assert!(
        support::wait_exit(&mut gateway).success(),
        "basalt rest exits cleanly"
    );
    support::stop(server);
}
