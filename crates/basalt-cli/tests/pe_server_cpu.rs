//! `basalt pe --connect` reads the server's CPU time from its `/metrics` around each
//! command and prints ops per server CPU-second beside ops/s; a server whose metrics cannot
//! be read leaves the figure out and says why, and the run still reports.

use crate::support;

use std::process::{Command, Output};

fn pe(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .arg("pe")
        .args(args)
        .output()
        .expect("run basalt pe");
    assert!(
        out.status.success(),
        "basalt pe {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn pe_against_a_server_prints_ops_per_server_cpu_second() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = support::start(dir.path());
    let web = server.sidecar_addr("web").expect("the web UI started");
    let metrics = format!("http://{web}/metrics");
    let small = ["--rows", "300", "--clients", "2", "--seed", "3"];
    let target = ["--connect", &server.addr, "--server-metrics", &metrics];

    let out = pe(&[&target[..], &small[..], &["ycsbE"]].concat());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    let header: Vec<&str> = lines[1].split_whitespace().collect();
    let column = header
        .iter()
        .position(|h| *h == "ops/CPU-s")
        .expect("an ops/CPU-s column")
        - 2; // "srv CPU s" is three words of the header, one column of the rows
    let scans = lines
        .iter()
        .find(|l| l.starts_with("ycsbE "))
        .expect("the ycsbE line");
    let per_cpu: f64 = scans
        .split_whitespace()
        .nth(column)
        .expect("the figure")
        .parse()
        .unwrap_or_else(|_| panic!("not a number in {scans:?}\n{stdout}"));
    assert!(per_cpu > 0.0, "{stdout}");
    assert!(
        stdout.contains(&format!(
            "server CPU: process_cpu_seconds_total of {metrics}\n"
        )),
        "{stdout}"
    );

    let out = pe(&[&target[..], &small[..], &["--json", "ycsbC"]].concat());
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let phase = &report["phases"][0];
    assert_eq!(phase["command"], "ycsbC");
    assert!(
        phase["server_cpu_secs"].as_f64().expect("CPU seconds") > 0.0,
        "{phase}"
    );
    assert!(
        phase["ops_per_server_cpu_sec"]
            .as_f64()
            .expect("ops per CPU-second")
            > 0.0,
        "{phase}"
    );

    let nowhere = pe(&[
        &[
            "--connect",
            &server.addr,
            "--server-metrics",
            "http://127.0.0.1:1/metrics",
        ][..],
        &small[..],
        &["ycsbC"],
    ]
    .concat());
    let stdout = String::from_utf8_lossy(&nowhere.stdout);
    assert!(!stdout.contains("ops/CPU-s"), "{stdout}");
    assert!(
        stdout.contains("server CPU: unknown (http://127.0.0.1:1/metrics: cannot connect"),
        "{stdout}"
    );
    support::stop(server);
}
