//! The npm `hbase` REST client (installed by `scripts/node-env.sh`) drives the REST
//! gateway of a real `basalt standalone`: schema, puts, gets, scans, deletes.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

mod support;

const REST_READY: &str = "basalt rest listening on ";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repository root")
}

/// Installs the pinned client (once); returns its node_modules folder.
fn node_env(root: &Path) -> String {
    let out = Command::new("bash")
        .arg(root.join("scripts/node-env.sh"))
        .stderr(Stdio::inherit())
        .output()
        .expect("run scripts/node-env.sh");
    assert!(
        out.status.success(),
        "scripts/node-env.sh failed: {}",
        out.status
    );
    let stdout = String::from_utf8(out.stdout).expect("utf8");
    stdout
        .lines()
        .last()
        .expect("the node_modules path")
        .trim()
        .to_string()
}

/// Starts standalone with REST on a free port; returns it and the REST address.
fn start(dir: &Path) -> (support::Running, String) {
    let mut child: Child = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .args([
            "standalone",
            "--port",
            "0",
            "--rest-port",
            "0",
            "--log",
            "warn",
            "--data-dir",
        ])
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn basalt");
    let stdout = child.stdout.take().expect("piped stdout");
    let mut rest = None;
    let mut lines = BufReader::new(stdout).lines();
    let addr = loop {
        let line = lines
            .next()
            .expect("basalt exited before it was ready")
            .expect("read stdout");
        if let Some(addr) = line.strip_prefix(REST_READY) {
            rest = Some(addr.to_string());
        }
        if let Some(addr) = line.strip_prefix(support::READY) {
            break addr.to_string();
        }
    };
    let rest = rest.expect("a 'basalt rest listening on' line before the ready line");
    let running = support::Running {
        child,
        addr,
        ready_after: std::time::Duration::ZERO,
    };
    (running, rest)
}

#[test]
fn the_npm_hbase_client_drives_the_rest_gateway() {
    let root = repo_root();
    let node_modules = node_env(&root);
    let dir = tempfile::tempdir().expect("tempdir");
    let (running, rest) = start(dir.path());
    let script = root.join("crates/basalt-rest/tests/rest-node/client.test.js");
    let out = Command::new("node")
        .arg("--test")
        .arg(&script)
        .env("BASALT_REST", &rest)
        .env("NODE_PATH", &node_modules)
        .output()
        .expect("run node");
    support::stop(running);
    assert!(
        out.status.success(),
        "the node client failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
