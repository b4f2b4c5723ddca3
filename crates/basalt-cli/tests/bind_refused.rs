//! Every command refuses a non-loopback bind without authentication, naming the settings,
//! before it opens anything: standalone, the Thrift and REST gateways, master and region
//! server.

use crate::support;

use support::basalt;

fn refused(args: &[&str], names: &[&str]) {
    let out = basalt(args, "");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "basalt {args:?} started: {stderr}");
    assert!(
        stderr.contains("refusing to listen beyond loopback"),
        "{args:?}: {stderr}"
    );
    for name in names {
        assert!(
            stderr.contains(name),
            "{args:?} should name {name}: {stderr}"
        );
    }
}

#[test]
fn a_non_loopback_bind_without_authentication_refuses_to_start() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let data = data.to_str().expect("utf-8");
    refused(
        &[
            "standalone",
            "--data-dir",
            data,
            "--bind",
            "0.0.0.0",
            "--port",
            "0",
        ],
        &[
            "gRPC on 0.0.0.0 (--bind)",
            "Thrift",
            "REST",
            "web UI",
            "--auth",
            "--insecure",
        ],
    );
    refused(
        &[
            "standalone",
            "--data-dir",
            data,
            "--rest-bind",
            "0.0.0.0",
            "--port",
            "0",
        ],
        &["REST on 0.0.0.0 (--rest-bind)"],
    );
    assert!(
        !dir.path().join("data").join("coordinator").exists(),
        "nothing was opened"
    );
    refused(
        &["thrift", "--bind", "0.0.0.0", "--port", "0"],
        &["Thrift on 0.0.0.0"],
    );
    refused(
        &["rest", "--bind", "0.0.0.0", "--port", "0"],
        &["REST on 0.0.0.0"],
    );
    let store = format!("file://{}", dir.path().display());
    for command in ["master", "regionserver"] {
        refused(
            &[
                command,
                "--coordinator",
                "etcd://127.0.0.1:1",
                "--store",
                &store,
                "--bind",
                "0.0.0.0",
            ],
            &["gRPC on 0.0.0.0 (--bind)"],
        );
    }
    // With authentication, the gRPC port and the web UI (which then needs a sign-in) may
    // open beyond loopback: the master gets past the bind check, to the coordinator.
    let out = basalt(
        &[
            "master",
            "--coordinator",
            "etcd://127.0.0.1:1",
            "--coordinator-timeout",
            "1",
            "--store",
            &store,
            "--bind",
            "0.0.0.0",
            "--auth",
        ],
        "",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && !stderr.contains("refusing to listen beyond loopback"),
        "{stderr}"
    );
    assert!(stderr.contains("did not answer"), "{stderr}");
}
