//! Point-in-time restore against a real `basalt standalone` (a master and a region server
//! in one process, over a socket): a table keeping its logs (`WAL_RETENTION_SECS`) is
//! restored from a snapshot to a time between two known writes — through the shell's
//! `restore_snapshot 's', {TIMESTAMP => ms}` and through `basalt restore --to-time` — and
//! a table that did not keep its logs is refused by name.

use crate::support;

use basalt_api::Connection;
use basalt_client::RemoteConnection;
use basalt_types::{Get, Put, TableName};

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as i64
}

/// Waits (on the clock itself) until the wall clock has passed `ms`.
fn after(ms: i64) {
    while now_ms() <= ms {
        std::hint::spin_loop();
    }
}

fn put(conn: &RemoteConnection, row: &str, value: &str) {
    put_at(conn, row, basalt_types::LATEST_TIMESTAMP, value);
}

/// A put whose cell carries the client's timestamp `ts`.
fn put_at(conn: &RemoteConnection, row: &str, ts: i64, value: &str) {
    let table = conn
        .table(&TableName::parse("t").expect("name"))
        .expect("table");
    table
        .put(&Put::new(row.to_string()).add_at("f", "q", ts, value))
        .expect("put");
}

/// Row → value of f:q in table t (None: no such row).
fn value(conn: &RemoteConnection, row: &str) -> Option<String> {
    let table = conn
        .table(&TableName::parse("t").expect("name"))
        .expect("table");
    let result = table.get(&Get::new(row.to_string())).expect("get");
    result
        .value(b"f", b"q")
        .map(|v| String::from_utf8_lossy(v).into_owned())
}

#[test]
fn restoring_to_a_time_between_two_writes_keeps_the_first_and_not_the_second() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = support::start(dir.path());
    let addr = server.addr.clone();
    let out = support::shell(
        &addr,
        "create 't', 'f', {WAL_RETENTION_SECS => 3600}\ndescribe 't'\n\
         put 't', 'r1', 'f:q', 'v1'\nsnapshot 't', 's'\n",
    );
    assert!(
        out.contains("WAL_RETENTION_SECS => '3600'"),
        "describe shows it:\n{out}"
    );
    let conn = RemoteConnection::connect(&addr).expect("connect");
    put(&conn, "r2", "first");
    // Cells stamped by the client: the time that counts is when they were logged.
    put_at(&conn, "old", 5, "stamped in 1970");
    let between = now_ms();
    after(between);
    put(&conn, "r2", "second");
    put(&conn, "r3", "second");
    put_at(&conn, "late", between - 1, "stamped before the cut");
    let after_second = now_ms();
    after(after_second);

    // The shell: to the time between the writes.
    let out = support::shell(
        &addr,
        &format!("disable 't'\nrestore_snapshot 's', {{TIMESTAMP => {between}}}\nenable 't'\n"),
    );
    assert!(!out.contains("ERROR"), "{out}");
    assert_eq!(
        value(&conn, "r1").as_deref(),
        Some("v1"),
        "the snapshot's row"
    );
    assert_eq!(
        value(&conn, "r2").as_deref(),
        Some("first"),
        "the first write is replayed"
    );
    assert_eq!(value(&conn, "r3"), None, "the second write is not");
    assert_eq!(
        value(&conn, "old").as_deref(),
        Some("stamped in 1970"),
        "logged after the snapshot: rolled forward whatever its cell's timestamp"
    );
    assert_eq!(value(&conn, "late"), None, "logged after the cut");

    // `basalt restore`: to just after the second write, the table enabled before and
    // after (RFC 3339 times are read too: a unit test of the shell's parser).
    let to = after_second.to_string();
    let done = support::basalt(
        &[
            "restore",
            "--connect",
            &addr,
            "--snapshot",
            "s",
            "--to-time",
            &to,
        ],
        "",
    );
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    assert_eq!(value(&conn, "r2").as_deref(), Some("second"));
    assert_eq!(value(&conn, "r3").as_deref(), Some("second"));
    assert_eq!(value(&conn, "r1").as_deref(), Some("v1"));
    assert_eq!(
        value(&conn, "late").as_deref(),
        Some("stamped before the cut")
    );

    // A table that did not keep its logs is refused, and left as it was.
    let out = support::shell(
        &addr,
        "create 'plain', 'f'\nput 'plain', 'a', 'f:q', '1'\nsnapshot 'plain', 'p'\n\
         put 'plain', 'b', 'f:q', '2'\ndisable 'plain'\n\
         restore_snapshot 'p', {TIMESTAMP => 9999999999999}\nenable 'plain'\ncount 'plain'\n",
    );
    assert!(
        out.contains("did not retain its logs when it was taken"),
        "refused by name:\n{out}"
    );
    assert!(
        out.contains("2 row(s)"),
        "the refused restore changed nothing:\n{out}"
    );
    support::stop(server);
}
