//! `basalt pe` as a user runs it: against a real `basalt standalone` over its socket
//! (`--connect`), and in process on a data folder (`--data-dir`), checking the `--json`
//! report; plus its help and its refusals.

use crate::support;

use std::process::{Command, Output};

fn pe(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_basalt"))
        .arg("pe")
        .args(args)
        .output()
        .expect("run basalt pe")
}

/// Runs `basalt pe ... --json` and returns its report.
fn pe_json(target: &[&str], args: &[&str]) -> serde_json::Value {
    let small = ["--rows", "200", "--clients", "2", "--seed", "5", "--json"];
    let out = pe(&[target, &small[..], args].concat());
    assert!(
        out.status.success(),
        "basalt pe {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is the JSON report")
}

fn phase(report: &serde_json::Value, index: usize) -> &serde_json::Value {
    &report["phases"][index]
}

fn check_runs(target: &[&str]) {
    let write = pe_json(target, &["--value-size", "100", "sequentialWrite"]);
    assert_eq!(write["command"], "sequentialWrite");
    assert_eq!(
        (write["clients"].as_u64(), write["rows_per_client"].as_u64()),
        (Some(2), Some(200))
    );
    assert_eq!(phase(&write, 0)["ops"], 400);
    assert_eq!(phase(&write, 0)["bytes"], 400 * 100);
    assert!(write["peak_rss_bytes"].as_u64().expect("peak RSS") > 0);

    let read = pe_json(target, &["sequentialRead"]);
    let p = phase(&read, 0);
    assert_eq!(
        (p["ops"].as_u64(), p["misses"].as_u64()),
        (Some(400), Some(0)),
        "every row found"
    );
    assert_eq!(p["bytes"], 400 * 100);
    let latency = &p["latency_us"];
    let (p50, p99, max) = (
        latency["p50"].as_u64(),
        latency["p99"].as_u64(),
        latency["max"].as_u64(),
    );
    assert!(p50 <= p99 && p99 <= max && max > Some(0), "{latency}");

    let ycsb = pe_json(target, &["ycsbB"]);
    let commands: Vec<&str> = ycsb["phases"]
        .as_array()
        .expect("phases")
        .iter()
        .map(|p| p["command"].as_str().expect("name"))
        .collect();
    assert_eq!(
        commands,
        ["ycsbLoad", "ycsbB"],
        "an empty usertable is loaded first"
    );
    assert_eq!(
        (
            phase(&ycsb, 1)["ops"].as_u64(),
            phase(&ycsb, 1)["misses"].as_u64()
        ),
        (Some(400), Some(0))
    );
    let operations = phase(&ycsb, 1)["operations"]
        .as_array()
        .expect("operations");
    assert_eq!(operations[0]["name"], "read");
    assert_eq!(operations[1]["name"], "update");
}

#[test]
fn pe_against_a_server_reports_json() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = support::start(dir.path());
    let addr = server.addr.clone();
    check_runs(&["--connect", &addr]);
    let text = pe(&[
        "--connect",
        &addr,
        "--rows",
        "50",
        "--seed",
        "1",
        "randomRead",
    ]);
    assert!(text.status.success());
    let stdout = String::from_utf8_lossy(&text.stdout);
    assert!(
        stdout.starts_with("basalt pe randomRead: table TestTable, 1 clients x 50 rows, seed 1\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("\nrandomRead ") && stdout.contains("peak RSS: "),
        "{stdout}"
    );
    support::stop(server);
}

#[test]
fn pe_on_a_data_folder_reports_json() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().to_str().expect("utf-8 path");
    check_runs(&["--data-dir", data]);
    let logged = pe(&[
        "--data-dir",
        data,
        "--rows",
        "10",
        "--log",
        "info",
        "--table",
        "t2",
        "sequentialWrite",
    ]);
    assert!(logged.status.success());
    let stderr = String::from_utf8_lossy(&logged.stderr);
    assert!(
        stderr.contains("created table"),
        "--log info shows the run's steps: {stderr}"
    );
}

#[test]
fn pe_help_lists_options_and_commands_and_bad_input_is_refused() {
    let help = pe(&["--help"]);
    assert!(help.status.success());
    let help = String::from_utf8_lossy(&help.stdout);
    for word in [
        "--connect",
        "--data-dir",
        "--rows",
        "--clients",
        "--durability",
        "--auto-flush",
        "checkAndPut",
        "ycsbF",
    ] {
        assert!(help.contains(word), "help lacks {word}");
    }
    let bad = pe(&["--rows", "0", "scan"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("invalid value for --rows"));
    let unknown = pe(&["--rows", "5", "fastWrite"]);
    assert!(!unknown.status.success());
    let stderr = String::from_utf8_lossy(&unknown.stderr);
    assert!(
        stderr.contains("unknown command 'fastWrite'") && stderr.contains("sequentialWrite"),
        "{stderr}"
    );
    let nowhere = pe(&["--connect", "127.0.0.1:1", "--rows", "5", "scan"]);
    assert!(!nowhere.status.success(), "no server there");
    assert!(!String::from_utf8_lossy(&nowhere.stderr).is_empty());
}
