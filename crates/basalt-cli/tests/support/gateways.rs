//! The other clients' suites, runnable against any gateway address: happybase (Python)
//! through Thrift, hbase-driver (Python) and hbase-rpc-client (npm) through HBase's native RPC, the npm `hbase` client through REST; and gateways started in front of a
//! server or a cluster.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The project venv's python (installed by `scripts/python-env.sh` the first time).
pub fn python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let out = Command::new("bash")
            .arg(repo_root().join("scripts/python-env.sh"))
            .output()
            .expect("run scripts/python-env.sh");
        assert!(
            out.status.success(),
            "scripts/python-env.sh failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        PathBuf::from(stdout.lines().last().expect("the python path").trim())
    })
}

/// happybase's suite (`tests/happybase/`) against the Thrift gateway at `addr`.
pub fn happybase(addr: &str, transport: &str, protocol: &str) {
    let (host, port) = addr.rsplit_once(':').expect("host:port");
    let out = Command::new(python())
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/happybase"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("BASALT_THRIFT_HOST", host)
        .env("BASALT_THRIFT_PORT", port)
        .env("BASALT_THRIFT_TRANSPORT", transport)
        .env("BASALT_THRIFT_PROTOCOL", protocol)
        .output()
        .expect("run pytest");
    assert!(
        out.status.success(),
        "happybase tests failed ({transport}, {protocol}):\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(" passed"),
        "pytest ran nothing"
    );
}

/// hbase-driver's suite (`tests/hbase_driver/`): the native HBase client, finding the
/// server through the ZooKeeper responder at `zk`.
pub fn hbase_driver(zk: &str) {
    hbase_driver_in(&["tests/hbase_driver"], &[("BASALT_ZK", zk)]);
}

/// hbase-driver's tests in `dirs` (under the crate), with `env` added.
pub fn hbase_driver_in(dirs: &[&str], env: &[(&str, &str)]) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(python())
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .args(dirs.iter().map(|d| root.join(d)))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .envs(env.iter().copied())
        .output()
        .expect("run pytest");
    assert!(
        out.status.success(),
        "hbase-driver tests failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(" passed"),
        "pytest ran nothing"
    );
}

/// `target/node-env/node_modules`, installed by `scripts/node-env.sh` the first time.
fn node_modules() -> String {
    let out = Command::new("bash")
        .arg(repo_root().join("scripts/node-env.sh"))
        .stderr(Stdio::inherit())
        .output()
        .expect("run scripts/node-env.sh");
    assert!(
        out.status.success(),
        "scripts/node-env.sh failed: {}",
        out.status
    );
    String::from_utf8(out.stdout)
        .expect("utf8")
        .lines()
        .last()
        .expect("path")
        .trim()
        .to_string()
}

/// Runs the `node --test` file `test` with `env`; fails with its output.
fn node_test(test: &str, env: (&str, &str)) {
    node_test_with(test, &[env]);
}

/// Runs the `node --test` file `test` with the variables `env`; fails with its output.
fn node_test_with(test: &str, env: &[(&str, &str)]) {
    let out = Command::new("node")
        .arg("--test")
        .arg(repo_root().join(test))
        .envs(env.iter().copied())
        .env("NODE_PATH", node_modules())
        .output()
        .expect("run node");
    assert!(
        out.status.success(),
        "the node client failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The npm `hbase` client's suite against the REST gateway at `addr`.
pub fn node_hbase(addr: &str) {
    node_test(
        "crates/basalt-rest/tests/rest-node/client.test.js",
        ("BASALT_REST", addr),
    );
}

/// The npm `hbase` client with credentials against the REST gateway at `addr` requiring
/// authentication: `user:password` (Basic) and `token` (Bearer); the table `node_auth`
/// (family `cf`, row `r1` holding `cf:a = v1`) must exist, readable by both.
pub fn node_hbase_with_credentials(addr: &str, basic: &str, token: &str) {
    node_test_with(
        "crates/basalt-rest/tests/rest-node/auth.test.js",
        &[
            ("BASALT_REST", addr),
            ("BASALT_REST_BASIC", basic),
            ("BASALT_REST_TOKEN", token),
        ],
    );
}

/// The npm `hbase-rpc-client` suite (a native HBase client) against the server whose
/// ZooKeeper responder is at `zk`; the table `node_rpc` (family `cf`) must exist.
pub fn node_hbase_rpc(zk: &str) {
    node_test(
        "crates/basalt-cli/tests/hbase_rpc_node/client.test.js",
        ("BASALT_ZK", zk),
    );
}

/// `basalt <args…>` (a gateway) started and its `basalt <what> listening on ADDR` line read.
pub fn start_gateway(args: &[&str], what: &str) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .args(args)
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn basalt");
    let stdout = child.stdout.take().expect("piped stdout");
    let line = BufReader::new(stdout)
        .lines()
        .next()
        .expect("the gateway prints its address")
        .expect("read stdout");
    let prefix = format!("basalt {what} listening on ");
    let addr = line
        .strip_prefix(&prefix)
        .unwrap_or_else(|| panic!("unexpected first line {line}"))
        .to_string();
    (child, addr)
}

/// One step of `tests/thrift_sasl/client.py` against the Thrift gateway at `addr` (over
/// TLS trusting `ca` when given): its line of JSON.
pub fn sasl_step(addr: &str, args: &[&str], ca: Option<&Path>) -> serde_json::Value {
    let (host, port) = addr.rsplit_once(':').expect("host:port");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/thrift_sasl/client.py");
    let mut command = Command::new(python());
    command
        .arg(script)
        .args([host, port])
        .args(args)
        .env("PYTHONDONTWRITEBYTECODE", "1");
    if let Some(ca) = ca {
        command.env("BASALT_THRIFT_CA", ca);
    }
    let out = command.output().expect("run the Python client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "client.py {args:?}: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// The `message` of a [`sasl_step`]'s failure ("" when it succeeded).
pub fn sasl_message(v: &serde_json::Value) -> String {
    v["message"].as_str().unwrap_or_default().to_string()
}
