//! A region server answers only while its lease is live: with the gate closed, a get and
//! a scan's next row or next answer (a server's response of many rows, gated once)
//! answer NotServingRegion (nothing was done: the client goes to the
//! master and retries), and a put, an increment, a batch's writes — logged by the time
//! the gate is asked — answer CallTimeoutException, a call whose outcome is unknown (the
//! client retries it; one that gives up must not take it as undone). With the gate open
//! again everything answers as before — the refused put was logged, so a read shows it,
//! like a write whose answer timed out.

use basalt_api::{Connection, ErrorKind, Table};
use basalt_db::meta::record::{RegionRecord, RegionState};
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_storage::fs::{FileSystem, LocalFs};
use basalt_types::{
    Action, FamilyDescriptor, Get, Increment, Put, Scan, TableDescriptor, TableName,
};
use bytes::Bytes;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

const SERVER: &str = "127.0.0.2,16020,1";

fn gated_table(root: &std::path::Path, open: Arc<AtomicBool>) -> Arc<dyn Table> {
    let fs: Arc<dyn FileSystem> = Arc::new(LocalFs);
    let wal = root.join("wal").join(SERVER);
    let db = Database::open_host(fs, root, &wal, SERVER, DbConfig::default()).expect("host");
    db.set_lease_gate(Arc::new(move || open.load(Ordering::SeqCst)));
    let table = TableName::parse("t").expect("name");
    let record = RegionRecord::new(
        table.clone(),
        1,
        Bytes::new(),
        Bytes::new(),
        RegionState::Open,
    );
    let descriptor = TableDescriptor::new(
        table.clone(),
        vec![FamilyDescriptor::new("f").expect("family")],
    );
    db.host_open(record, descriptor).expect("open");
    EmbeddedConnection::new(db).table(&table).expect("table")
}

fn put(row: &str, value: &str) -> Put {
    Put::new(row.to_string()).add("f", "q", value)
}

/// A read refused at the gate: NotServingRegion, nothing done.
fn assert_refused<T: std::fmt::Debug>(what: &str, result: basalt_api::Result<T>) {
    match result {
        Err(e) => {
            assert_eq!(e.kind, ErrorKind::RetryElsewhere, "{what}: {e}");
            assert_eq!(e.short_name(), "NotServingRegionException", "{what}: {e}");
            assert!(e.to_string().contains("lease"), "{what}: {e}");
            assert!(e.to_string().contains(SERVER), "{what}: {e}");
        }
        Ok(answer) => panic!("{what} answered past the lease's deadline: {answer:?}"),
    }
}

/// A logged write refused at the gate: its outcome is unknown, and the client retries it.
fn assert_unknown<T: std::fmt::Debug>(what: &str, result: basalt_api::Result<T>) {
    match result {
        Err(e) => {
            assert!(e.is_outcome_unknown(), "{what}: {e}");
            assert_eq!(e.short_name(), "CallTimeoutException", "{what}: {e}");
            assert_eq!(e.kind, ErrorKind::Unavailable, "{what}: retried: {e}");
            assert!(e.to_string().contains("lease"), "{what}: {e}");
            assert!(e.to_string().contains(SERVER), "{what}: {e}");
        }
        Ok(answer) => panic!("{what} answered past the lease's deadline: {answer:?}"),
    }
}

#[test]
fn nothing_is_answered_past_the_lease_deadline_and_everything_again_once_renewed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let open = Arc::new(AtomicBool::new(true));
    let table = gated_table(dir.path(), open.clone());
    table.put(&put("a", "1")).expect("put with a live lease");
    table.put(&put("b", "2")).expect("put with a live lease");
    let mut scanner = table.scan(&Scan::default()).expect("scan");
    assert!(
        scanner.next().expect("a row").is_ok(),
        "first row while live"
    );

    open.store(false, Ordering::SeqCst);
    assert_unknown("put", table.put(&put("c", "3")));
    assert_refused("get", table.get(&Get::new("a")));
    assert_unknown(
        "increment",
        table.increment(&Increment::new("n").add("f", "n", 1)),
    );
    assert_unknown("put_many", table.put_many(&[put("d", "4"), put("e", "5")]));
    let mut answers = table
        .batch(&[Action::Get(Get::new("a")), Action::Put(put("f", "6"))])
        .into_iter();
    assert_refused("batch get", answers.next().expect("an answer"));
    assert_unknown("batch put", answers.next().expect("an answer"));
    assert_refused("scan next", scanner.next().expect("an answer"));

    open.store(true, Ordering::SeqCst);
    let got = table.get(&Get::new("c")).expect("get once renewed");
    assert_eq!(
        got.value(b"f", b"q"),
        Some(&b"3"[..]),
        "the refused put was logged and applied: its outcome was unknown, not undone"
    );
    let rows: Vec<String> = table
        .scan(&Scan::default())
        .expect("scan")
        .map(|r| String::from_utf8_lossy(r.expect("row").row().expect("a row")).into_owned())
        .collect();
    assert_eq!(
        rows,
        ["a", "b", "c", "d", "e", "f", "n"],
        "every refused write was logged"
    );
}

#[test]
fn an_increment_refused_at_the_gate_is_answered_not_applied_again_when_retried() {
    use basalt_types::{ActionResult, Nonce};
    let dir = tempfile::tempdir().expect("tempdir");
    let open = Arc::new(AtomicBool::new(true));
    let table = gated_table(dir.path(), open.clone());
    let increment = Action::Increment(Increment::new("n").add("f", "n", 1));
    let nonce = Nonce { group: 9, nonce: 1 };
    open.store(false, Ordering::SeqCst);
    assert_unknown("increment", table.apply_once(&increment, nonce));
    assert_unknown(
        "its retry while lapsed",
        table.apply_once(&increment, nonce),
    );
    open.store(true, Ordering::SeqCst);
    let counter = |result: ActionResult| match result {
        ActionResult::Row(row) => {
            let value = row.value(b"f", b"n").expect("the counter");
            i64::from_be_bytes(value.as_ref().try_into().expect("8 bytes"))
        }
        other => panic!("not a row: {other:?}"),
    };
    let retried = table.apply_once(&increment, nonce).expect("the retry");
    assert_eq!(counter(retried), 1, "the first application's answer");
    let next = table
        .apply_once(&increment, Nonce { group: 9, nonce: 2 })
        .expect("a new increment");
    assert_eq!(counter(next), 2, "applied once, then once more");
}

/// A server's scanner answers many rows per response and asks the gate once per answer:
/// past the deadline an answer is refused whole (no row of it is given), the scan's end
/// included; once renewed the scan goes on.
#[test]
fn a_scan_answer_past_the_lease_deadline_gives_no_row() {
    use basalt_api::ResultScanner;
    let dir = tempfile::tempdir().expect("tempdir");
    let open = Arc::new(AtomicBool::new(true));
    let table = gated_table(dir.path(), open.clone());
    let rows: Vec<Put> = (0..10).map(|i| put(&format!("r{i}"), "v")).collect();
    table.put_many(&rows).expect("puts with a live lease");
    let mut scanner = table.scan(&Scan::default()).expect("scan");
    let (first, more) = scanner
        .next_answer(4, u64::MAX)
        .expect("an answer while live");
    assert_eq!((first.len(), more), (4, true));

    open.store(false, Ordering::SeqCst);
    assert_refused("a scan's answer", scanner.next_answer(4, u64::MAX));
    let mut at_end = table.scan(&Scan::default()).expect("scan");
    assert_refused("a whole scan's answer", at_end.next_answer(100, u64::MAX));

    open.store(true, Ordering::SeqCst);
    let (rest, more) = scanner.next_answer(100, u64::MAX).expect("once renewed");
    assert!(!more);
    let first = rest.first().and_then(|r| r.row()).map(|k| k.to_vec());
    assert_eq!(first, Some(b"r8".to_vec()), "the refused rows are gone");
}
