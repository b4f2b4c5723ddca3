//! The slow log through the shell against a real `basalt standalone` (its master asks its
//! region server, as in a cluster), with `slowlog_threshold_ms = 0` in `basalt.toml` so
//! every data call is slow: puts, gets and a scan appear in `get_slowlog_responses` with
//! their method, table, region, client address and user; TABLE_NAME, USER, CLIENT_IP,
//! REGION_NAME, LIMIT and FILTER_BY_OP select among them; `clear_slowlog_responses`
//! empties the log.

use crate::support;

use std::process::{Command, Stdio};

/// Runs `script` through `basalt shell --connect addr` as user `user`.
fn shell_as(user: &str, addr: &str, script: &str) -> String {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .args(["shell", "--connect", addr])
        .env("USER", user)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the shell");
    let mut stdin = child.stdin.take().expect("piped stdin");
    stdin
        .write_all(script.as_bytes())
        .expect("write the script");
    drop(stdin);
    let out = child.wait_with_output().expect("the shell ends");
    let printed = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{printed}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    printed
}

/// How many records a `get_slowlog_responses` printed.
fn records(printed: &str) -> usize {
    printed.matches("\"start_time\"").count()
}

#[test]
fn slow_calls_are_listed_filtered_and_cleared_through_the_shell() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("basalt.toml");
    std::fs::write(
        &config,
        "[server]\nslowlog_enabled = true\nslowlog_ring_buffer_size = 64\nslowlog_threshold_ms = 0\n",
    )
    .expect("write the config");
    let data = dir.path().join("data");
    let config_arg = config.display().to_string();
    let running = support::start_with(&data, &["--config", &config_arg]);
    let addr = running.addr.clone();

    shell_as(
        "alice",
        &addr,
        "create 'slow1', 'f'\ncreate 'slow2', 'f'\nput 'slow1', 'r1', 'f:q', 'v1'\nput 'slow1', 'r2', 'f:q', 'v2'\nget 'slow1', 'r1'\nscan 'slow1'\n",
    );
    shell_as("bob", &addr, "put 'slow2', 'x', 'f:q', 'v'\n");

    let all = shell_as(
        "carol",
        &addr,
        "get_slowlog_responses '*', {'LIMIT' => 50}\n",
    );
    assert!(
        all.contains("Retrieved SlowLog Responses from RegionServers"),
        "{all}"
    );
    for needle in [
        "\"method_name\": \"Mutate\"",
        "\"method_name\": \"Get\"",
        "\"method_name\": \"Scan\"",
        "\"call_details\": \"Get(GetRequest)\"",
        "\"param\": \"get row=r1\"",
        "\"user_name\": \"alice\"",
        "\"user_name\": \"bob\"",
        "\"server_class\": \"HRegionServer\"",
        "\"client_address\": \"127.0.0.1:",
        "\"region_name\": \"slow1,",
    ] {
        assert!(all.contains(needle), "{needle} is missing from\n{all}");
    }
    let total = records(&all);
    assert!(total >= 5, "{total} records:\n{all}");
    // The records name the region server that kept them.
    assert!(all.contains("\"server_name\": \"127.0.0.1,"), "{all}");

    let default_limit = shell_as("carol", &addr, "get_slowlog_responses '*'\n");
    assert_eq!(records(&default_limit), total.min(10), "{default_limit}");
    let limited = shell_as(
        "carol",
        &addr,
        "get_slowlog_responses '*', {'LIMIT' => 2}\n",
    );
    assert_eq!(records(&limited), 2, "{limited}");

    let by_table = shell_as(
        "carol",
        &addr,
        "get_slowlog_responses '*', {'TABLE_NAME' => 'slow2', 'LIMIT' => 50}\n",
    );
    assert_eq!(records(&by_table), 1, "{by_table}");
    assert!(by_table.contains("\"user_name\": \"bob\""), "{by_table}");

    let by_user = shell_as(
        "carol",
        &addr,
        "get_slowlog_responses '*', {'USER' => 'alice', 'LIMIT' => 50}\n",
    );
    assert_eq!(records(&by_user), total - 1, "{by_user}");
    assert!(!by_user.contains("\"user_name\": \"bob\""), "{by_user}");

    let either = shell_as(
        "carol",
        &addr,
        "get_slowlog_responses '*', {'TABLE_NAME' => 'slow2', 'USER' => 'alice', 'LIMIT' => 50}\n",
    );
    assert_eq!(records(&either), total, "OR is the default: {either}");
    let both = shell_as(
        "carol",
        &addr,
        "get_slowlog_responses '*', {'TABLE_NAME' => 'slow2', 'USER' => 'alice', 'FILTER_BY_OP' => 'AND', 'LIMIT' => 50}\n",
    );
    assert_eq!(records(&both), 0, "{both}");

    let by_client = shell_as(
        "carol",
        &addr,
        "get_slowlog_responses '*', {'CLIENT_IP' => '127.0.0.1', 'LIMIT' => 50}\n",
    );
    assert_eq!(records(&by_client), total, "{by_client}");
    let elsewhere = shell_as(
        "carol",
        &addr,
        "get_slowlog_responses '*', {'CLIENT_IP' => '10.9.9.9', 'LIMIT' => 50}\n",
    );
    assert_eq!(records(&elsewhere), 0, "{elsewhere}");

    let region = by_table
        .lines()
        .find_map(|l| l.trim().strip_prefix("\"region_name\": \""))
        .and_then(|rest| rest.strip_suffix("\","))
        .expect("the slow2 record names its region")
        .to_string();
    let by_region = shell_as(
        "carol",
        &addr,
        &format!("get_slowlog_responses '*', {{'REGION_NAME' => '{region}', 'LIMIT' => 50}}\n"),
    );
    assert_eq!(records(&by_region), 1, "{by_region}");

    let bad = shell_as(
        "carol",
        &addr,
        "get_slowlog_responses '*', {'COLOR' => 'red'}\n",
    );
    assert!(bad.contains("unknown filter COLOR"), "{bad}");

    let cleared = shell_as("carol", &addr, "clear_slowlog_responses\n");
    assert!(
        cleared.contains("Cleared Slowlog responses from 1/1 RegionServers"),
        "{cleared}"
    );
    let after = shell_as("carol", &addr, "get_slowlog_responses '*'\n");
    assert_eq!(records(&after), 0, "{after}");
    assert!(after.contains("[]"), "{after}");
    support::stop(running);
}
