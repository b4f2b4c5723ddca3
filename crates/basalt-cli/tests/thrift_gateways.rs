//! Thrift over HTTP and the Thrift2 gateway against a real `basalt standalone`, driven by
//! clients nobody here wrote: thriftpy2's HTTP client (`THttpClient`, with happybase's
//! Hbase IDL) and easybase (a Thrift2 client from PyPI), in `tests/thrift_gateways/`.
//! `scripts/python-env.sh` installs the pinned packages into `target/python-venv` (once).

use crate::support;

use std::path::Path;
use std::process::{Command, Stdio};

/// Runs the Python tests selected by `select` (a pytest `-k` expression) with `env`.
fn pytest(select: &str, env: &[(&str, &str)]) {
    let mut command = Command::new(support::gateways::python());
    command
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", select])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/thrift_gateways"))
        .env("PYTHONDONTWRITEBYTECODE", "1");
    for (key, value) in env {
        command.env(key, value);
    }
    let out = command.output().expect("run pytest");
    assert!(
        out.status.success(),
        "the gateway tests failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(" passed"),
        "pytest ran nothing"
    );
}

fn port(addr: &str) -> &str {
    addr.rsplit_once(':').expect("host:port").1
}

/// `--thrift-http` and `--thrift2-port 0`: Thrift1 over HTTP and Thrift2 side by side.
#[test]
fn thriftpy2_over_http_and_easybase_over_thrift2_in_standalone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let running = support::start_with(dir.path(), &["--thrift-http", "--thrift2-port", "0"]);
    let http = running.sidecar_addr("thrift").expect("the thrift address");
    let thrift2 = running
        .sidecar_addr("thrift2")
        .expect("the thrift2 address");
    let outcome = std::panic::catch_unwind(|| {
        pytest(
            "http or easybase",
            &[
                ("BASALT_THRIFT_HOST", "127.0.0.1"),
                ("BASALT_THRIFT_HTTP_PORT", port(&http)),
                ("BASALT_THRIFT2_PORT", port(&thrift2)),
            ],
        )
    });
    support::stop(running);
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

/// Without `--thrift2-port` there is no Thrift2 listener.
#[test]
fn thrift2_is_off_unless_asked_for() {
    let dir = tempfile::tempdir().expect("tempdir");
    let running = support::start(dir.path());
    let thrift2 = running.sidecar_addr("thrift2");
    support::stop(running);
    assert_eq!(thrift2, None);
}

/// `basalt thrift --connect … --thrift2`: the Thrift2 gateway in its own process.
#[test]
fn easybase_through_basalt_thrift_connect_thrift2() {
    use std::io::{BufRead, BufReader};
    let dir = tempfile::tempdir().expect("tempdir");
    let server = support::start_with(dir.path(), &["--no-thrift"]);
    let mut gateway = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .args([
            "thrift",
            "--thrift2",
            "--port",
            "0",
            "--log",
            "warn",
            "--connect",
            &server.addr,
        ])
        .stdout(Stdio::piped())
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
    let outcome = std::panic::catch_unwind(|| {
        pytest(
            "easybase",
            &[
                ("BASALT_THRIFT_HOST", "127.0.0.1"),
                ("BASALT_THRIFT2_PORT", port(&addr)),
            ],
        )
    });
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
