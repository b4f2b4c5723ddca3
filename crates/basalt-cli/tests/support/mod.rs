//! Starting and stopping the real `basalt` binary in tests.
#![allow(dead_code, reason = "each test binary uses a different part")]

pub mod acl_matrix;
pub mod browser;
pub mod chaos_faults;
pub mod chaos_load;
pub mod chaos_probe;
pub mod cluster;
pub mod damage;
pub mod gateways;
pub mod grpc;
pub mod heat_loads;
pub mod http;
pub mod netns;
pub mod shell;
pub mod tables;
pub mod tls;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const READY: &str = "basalt standalone listening on ";

/// Every sidecar's port flag: tests run in parallel, so each takes a free port.
pub const SIDECAR_PORTS: [&str; 10] = [
    "--rest-port",
    "0",
    "--web-port",
    "0",
    "--thrift-port",
    "0",
    "--hbase-port",
    "0",
    "--zookeeper-port",
    "0",
];

pub struct Running {
    pub child: Child,
    pub addr: String,
    pub ready_after: Duration,
    /// Sidecar name → address, from the `basalt <name> listening on <addr>` lines.
    pub sidecars: std::collections::HashMap<String, String>,
}

impl Running {
    /// The address the sidecar `name` ("rest", "web", "thrift", "hbase", "zookeeper") printed, if it started.
    pub fn sidecar_addr(&self, name: &str) -> Option<String> {
        self.sidecars.get(name).cloned()
    }
}

/// Starts `basalt standalone` on a free port and waits for its ready line.
pub fn start(dir: &Path) -> Running {
    start_with(dir, &[])
}

/// As [`start`], with more command-line arguments.
pub fn start_with(dir: &Path, extra: &[&str]) -> Running {
    start_logging_to(dir, extra, Stdio::inherit())
}

/// As [`start_with`], with the server's log (its stderr) going to `log`.
pub fn start_logging_to(dir: &Path, extra: &[&str], log: impl Into<Stdio>) -> Running {
    let begun = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .args(["standalone", "--port", "0", "--log", "warn", "--data-dir"])
        .arg(dir)
        .args(SIDECAR_PORTS)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .expect("spawn basalt");
    let stdout = child.stdout.take().expect("piped stdout");
    let mut lines = BufReader::new(stdout).lines();
    let mut sidecars = std::collections::HashMap::new();
    let addr = loop {
        let line = lines
            .next()
            .expect("basalt exited before it was ready")
            .expect("read stdout");
        if let Some(addr) = line.strip_prefix(READY) {
            break addr.to_string();
        }
        let sidecar = line
            .strip_prefix("basalt ")
            .and_then(|rest| rest.split_once(" listening on "));
        if let Some((name, addr)) = sidecar {
            sidecars.insert(name.to_string(), addr.to_string());
        }
    };
    Running {
        child,
        addr,
        ready_after: begun.elapsed(),
        sidecars,
    }
}

pub fn wait_exit(child: &mut Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status;
        }
        assert!(Instant::now() < deadline, "basalt did not exit");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Stops a running server with SIGTERM and waits for it.
pub fn stop(mut running: Running) {
    let status = Command::new("kill")
        .args(["-TERM", &running.child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    assert!(wait_exit(&mut running.child).success(), "clean exit");
}

/// Runs `script` through `basalt shell --connect addr`, which must exit cleanly; what it
/// printed.
pub fn shell(addr: &str, script: &str) -> String {
    let out = basalt(&["shell", "--connect", addr], script);
    let printed = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{printed}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    printed
}

/// Runs `basalt ARGS` with `stdin` as its input; waits for it and returns what it printed.
pub fn basalt(args: &[&str], stdin: &str) -> std::process::Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn basalt");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write");
    child.wait_with_output().expect("basalt runs")
}

/// `basalt user ARGS --data-dir DIR` with `stdin` (a password), which must succeed; its
/// standard output.
pub fn user(dir: &std::path::Path, args: &[&str], stdin: &str) -> String {
    let data_dir = dir.to_str().expect("utf-8 path");
    let all: Vec<&str> = ["user"]
        .iter()
        .chain(args)
        .chain(&["--data-dir", data_dir])
        .copied()
        .collect();
    let out = basalt(&all, stdin);
    assert!(
        out.status.success(),
        "basalt {all:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Starts `basalt standalone` on `dir` expecting it to refuse: it must exit unsuccessfully
/// within the deadline, before its ready line. What it logged (its stderr).
pub fn refused(dir: &Path) -> String {
    let log = tempfile::NamedTempFile::new().expect("log file");
    let mut child = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .args(["standalone", "--port", "0", "--log", "warn", "--data-dir"])
        .arg(dir)
        .args(SIDECAR_PORTS)
        .stdout(Stdio::null())
        .stderr(log.reopen().expect("reopen"))
        .spawn()
        .expect("spawn basalt");
    let status = wait_exit(&mut child);
    let logged = std::fs::read_to_string(log.path()).expect("read the log");
    assert!(!status.success(), "basalt started: {logged}");
    logged
}
