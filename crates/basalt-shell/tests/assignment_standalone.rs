//! Region assignment commands against one process (standalone), which serves every region:
//! `assign` of an open region succeeds, `unassign` / `close_region` refuse with a
//! DoNotRetry error saying a cluster is needed (and the rows stay served), the balancer
//! switch is the process's (two shells see the same), and the process is the one live
//! server.

use basalt_api::Connection;
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_shell::{FixedClock, Shell, ShellError, ShellOptions};
use basalt_types::TableName;
use std::sync::Arc;

fn shell(conn: &Arc<dyn Connection>) -> Shell {
    let options = ShellOptions {
        clock: Arc::new(FixedClock),
        ..ShellOptions::default()
    };
    Shell::new(conn.clone(), options)
}

fn open(dir: &tempfile::TempDir) -> Arc<dyn Connection> {
    let db = Database::open(dir.path(), DbConfig::default()).expect("database opens");
    Arc::new(EmbeddedConnection::new(db))
}

/// The failure message of a command that must fail.
fn fails(sh: &mut Shell, line: &str) -> String {
    match sh.run_line(line) {
        Ok(out) => panic!("{line} succeeded: {}", out.text),
        Err(failure) => match failure.error {
            ShellError::Command { message, .. } => message,
            other => panic!("{line}: {other:?}"),
        },
    }
}

#[test]
fn assign_succeeds_and_unassign_needs_a_cluster() {
    let dir = tempfile::tempdir().expect("temp dir");
    let conn = open(&dir);
    let mut sh = shell(&conn);
    sh.run_line("create 't', 'f', SPLITS => ['m']")
        .expect("create");
    sh.run_line("put 't', 'a', 'f:q', 'v1'").expect("put");
    let regions = conn
        .admin()
        .list_regions(&TableName::parse("t").expect("name"))
        .expect("regions");
    assert_eq!(regions.len(), 2);
    let encoded = regions[0].encoded_name.clone();
    let full = regions[1].region_name.clone();

    let out = sh.run_line(&format!("assign '{encoded}'")).expect("assign");
    assert!(out.text.starts_with("Took "), "{}", out.text);
    sh.run_line(&format!("assign '{full}'"))
        .expect("assign a full name");
    let unknown = fails(&mut sh, "assign 'no-such-region'");
    assert!(unknown.contains("UnknownRegionException"), "{unknown}");

    for line in [
        format!("unassign '{encoded}'"),
        format!("unassign '{full}', true"),
        format!("close_region '{encoded}'"),
        format!("close_region '{full}', 'localhost,16020,1'"),
    ] {
        let message = fails(&mut sh, &line);
        assert!(
            message.contains("DoNotRetryIOException") && message.contains("needs a cluster"),
            "{line}: {message}"
        );
    }
    let unknown = fails(&mut sh, "unassign 'no-such-region'");
    assert!(unknown.contains("UnknownRegionException"), "{unknown}");
    let get = sh.run_line("get 't', 'a'").expect("get");
    assert!(
        get.text.contains("value=v1"),
        "rows are still served: {}",
        get.text
    );
}

#[test]
fn two_shells_share_the_process_balancer_switch() {
    let dir = tempfile::tempdir().expect("temp dir");
    let conn = open(&dir);
    let (mut a, mut b) = (shell(&conn), shell(&conn));
    let out = b.run_line("balancer_enabled").expect("balancer_enabled");
    assert!(out.text.starts_with("true\n"), "{}", out.text);
    let out = a.run_line("balance_switch false").expect("switch off");
    assert!(
        out.text.starts_with("Previous balancer state : true\n"),
        "{}",
        out.text
    );
    let out = b.run_line("balancer_enabled").expect("balancer_enabled");
    assert!(out.text.starts_with("false\n"), "{}", out.text);
    let out = b.run_line("balancer").expect("balancer");
    assert!(
        out.text.starts_with("false\n"),
        "switched off: {}",
        out.text
    );
    let out = b.run_line("balance_switch true").expect("switch on");
    assert!(
        out.text.starts_with("Previous balancer state : false\n"),
        "{}",
        out.text
    );
    let out = a.run_line("balancer").expect("balancer");
    assert!(out.text.starts_with("true\n"), "{}", out.text);
    let bad = fails(&mut a, "balance_switch 'maybe'");
    assert!(bad.contains("must be true or false"), "{bad}");
}

#[test]
fn the_process_is_the_one_live_server_and_none_is_dead() {
    let dir = tempfile::tempdir().expect("temp dir");
    let conn = open(&dir);
    let mut sh = shell(&conn);
    sh.run_line("create 't', 'f'").expect("create");
    let live = sh.run_line("list_liveservers").expect("list_liveservers");
    let lines: Vec<&str> = live.text.lines().collect();
    assert_eq!(lines[0], "SERVERNAME", "{}", live.text);
    assert!(lines[1].starts_with("localhost,16020"), "{}", live.text);
    assert_eq!(lines[2], "1 row(s)", "{}", live.text);
    let dead = sh.run_line("list_deadservers").expect("list_deadservers");
    let lines: Vec<&str> = dead.text.lines().collect();
    assert_eq!(lines[..2], ["SERVERNAME", "0 row(s)"], "{}", dead.text);
}

#[test]
fn decommissioning_and_clearing_dead_servers_need_a_cluster() {
    let dir = tempfile::tempdir().expect("temp dir");
    let conn = open(&dir);
    let mut sh = shell(&conn);
    for line in [
        "decommission_regionservers 'localhost'",
        "decommission_regionservers ['localhost,16020,1', 'other'], true",
        "recommission_regionserver 'localhost,16020,1'",
        "recommission_regionserver 'localhost', ['abc']",
        "clear_deadservers",
        "clear_deadservers 'localhost,16020,1', 'other,16020,1'",
    ] {
        let message = fails(&mut sh, line);
        assert!(
            message.contains("DoNotRetryIOException") && message.contains("needs a cluster"),
            "{line}: {message}"
        );
    }
    let listed = sh
        .run_line("list_decommissioned_regionservers")
        .expect("list_decommissioned_regionservers");
    let lines: Vec<&str> = listed.text.lines().collect();
    assert_eq!(
        lines[..2],
        ["DECOMMISSIONED REGION SERVERS", "0 row(s)"],
        "{}",
        listed.text
    );
    // Arguments are checked before the server is asked.
    let bad = fails(&mut sh, "decommission_regionservers 'h', 'maybe'");
    assert!(bad.contains("true or false"), "{bad}");
    let bad = fails(&mut sh, "recommission_regionserver 'h', 'not-a-list'");
    assert!(bad.contains("array"), "{bad}");
    let bad = fails(&mut sh, "list_decommissioned_regionservers 'x'");
    assert!(bad.contains("wrong number of arguments"), "{bad}");
}
