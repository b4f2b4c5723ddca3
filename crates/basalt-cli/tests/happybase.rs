//! happybase, unchanged, against a real `basalt standalone`: the Python tests in
//! `tests/happybase/` run three times — buffered + binary (happybase's default), framed,
//! and compact. `scripts/python-env.sh` installs pinned happybase, thriftpy2 and pytest
//! into `target/python-venv` (once; an install failure fails the test).

use crate::support;

use std::process::Command;

fn run_pytest(server_flags: &[&str], transport: &str, protocol: &str) {
    let dir = tempfile::tempdir().expect("tempdir");
    let running = support::start_with(dir.path(), server_flags);
    let addr = running
        .sidecar_addr("thrift")
        .expect("standalone prints the thrift address");
    let outcome = std::panic::catch_unwind(|| pytest(&addr, transport, protocol));
    support::stop(running);
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

/// Runs the Python tests against the gateway at `addr`; fails with pytest's output.
fn pytest(addr: &str, transport: &str, protocol: &str) {
    support::gateways::happybase(addr, transport, protocol);
}

#[test]
fn happybase_buffered_binary() {
    run_pytest(&[], "buffered", "binary");
}

#[test]
fn happybase_framed_binary() {
    run_pytest(&["--thrift-framed"], "framed", "binary");
}

#[test]
fn happybase_buffered_compact() {
    run_pytest(&["--thrift-compact"], "buffered", "compact");
}

/// `basalt thrift --connect`: the gateway in its own process, in front of a server.
#[test]
fn happybase_through_basalt_thrift_connect() {
    use std::io::{BufRead, BufReader};
    let dir = tempfile::tempdir().expect("tempdir");
    let server = support::start_with(dir.path(), &["--no-thrift"]);
    assert_eq!(
        server.sidecar_addr("thrift"),
        None,
        "--no-thrift starts no gateway"
    );
    let mut gateway = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .args([
            "thrift",
            "--port",
            "0",
            "--log",
            "warn",
            "--connect",
            &server.addr,
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn basalt thrift");
    let stdout = gateway.stdout.take().expect("piped stdout");
    let line = BufReader::new(stdout)
        .lines()
        .next()
        .expect("basalt thrift prints its address")
        .expect("read stdout");
    let addr = line
        .strip_prefix("basalt thrift listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line}"))
        .to_string();
    let outcome = std::panic::catch_unwind(|| pytest(&addr, "buffered", "binary"));
    let status = Command::new("kill")
        .args(["-TERM", &gateway.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let exited = support::wait_exit(&mut gateway);
    support::stop(server);
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
    assert!(exited.success(), "clean exit");
}
