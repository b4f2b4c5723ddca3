//! Starting and stopping the real `basalt` binary in tests.
#![allow(dead_code, reason = "each test binary uses a different part")]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const READY: &str = "basalt standalone listening on ";

pub struct Running {
    pub child: Child,
    pub addr: String,
    pub ready_after: Duration,
    /// The lines printed before the ready line (`basalt <sidecar> listening on ADDR`).
    pub before_ready: Vec<String>,
}

/// Starts `basalt standalone` on a free port and waits for its ready line.
pub fn start(dir: &Path) -> Running {
    start_with(dir, &[])
}

/// As [`start`], with more command-line arguments.
pub fn start_with(dir: &Path, extra: &[&str]) -> Running {
    let begun = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .args([
            "standalone",
            "--port",
            "0",
            "--thrift-port",
            "0",
            "--log",
            "warn",
        ])
        .arg("--data-dir")
        .arg(dir)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn basalt");
    let stdout = child.stdout.take().expect("piped stdout");
    let mut lines = BufReader::new(stdout).lines();
    let mut before_ready = Vec::new();
    let addr = loop {
        let line = lines
            .next()
            .expect("basalt exited before it was ready")
            .expect("read stdout");
        if let Some(addr) = line.strip_prefix(READY) {
            break addr.to_string();
        }
        before_ready.push(line);
    };
    Running {
        child,
        addr,
        ready_after: begun.elapsed(),
        before_ready,
    }
}

impl Running {
    /// The address a sidecar printed (`basalt <name> listening on ADDR`).
    pub fn sidecar_addr(&self, name: &str) -> Option<String> {
        let prefix = format!("basalt {name} listening on ");
        self.before_ready
            .iter()
            .find_map(|line| line.strip_prefix(&prefix).map(str::to_string))
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
