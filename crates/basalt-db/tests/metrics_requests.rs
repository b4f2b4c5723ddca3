//! The embedded table counts every request by kind, with its latency and whether it
//! failed; a scanner counts its opening and each call for rows: a row taken alone, or an
//! answer of many (a server's response).

use crate::support;

use basalt_api::PreSplit;
use basalt_db::metrics::Op;
use basalt_db::DbConfig;
use basalt_types::{Action, Append, Delete, Get, Increment, Put, Scan};

#[test]
fn every_kind_of_request_is_counted_with_its_failures() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = support::open(dir.path(), DbConfig::default());
    let descriptor = support::descriptor("m", &["f"]);
    db.admin
        .create_table(&descriptor, &PreSplit::None)
        .expect("create");
    let table = db.table(&descriptor.name);
    let metrics = db.db.metrics();
    let before: Vec<u64> = Op::ALL
        .iter()
        .map(|&op| metrics.snapshot(op).latency.count)
        .collect();

    for row in ["a", "b", "c"] {
        table.put(&Put::new(row).add("f", "q", "v")).expect("put");
    }
    assert!(table.put(&Put::new("d").add("nope", "q", "v")).is_err());
    table.get(&Get::new("a")).expect("get");
    table.delete(&Delete::new("c")).expect("delete");
    table
        .increment(&Increment::new("n").add("f", "q", 1))
        .expect("increment");
    table
        .append(&Append::new("s").add("f", "q", "x"))
        .expect("append");
    let rows = table.scan(&Scan::new()).expect("scan").count();
    let results = table.batch(&[
        Action::Get(Get::new("a")),
        Action::Put(Put::new("e").add("f", "q", "v")),
    ]);
    assert!(results.iter().all(Result::is_ok));

    let moved = |op: Op| metrics.snapshot(op).latency.count - before[op as usize];
    assert_eq!(moved(Op::Put), 4, "three puts and a failed one");
    assert_eq!(metrics.snapshot(Op::Put).errors, 1);
    assert_eq!(moved(Op::Get), 1);
    assert_eq!(moved(Op::Delete), 1);
    assert_eq!(moved(Op::Increment), 1);
    assert_eq!(moved(Op::Append), 1);
    assert_eq!(moved(Op::Scan), 1);
    assert_eq!(moved(Op::ScanNext) as usize, rows, "one per row returned");
    assert_eq!(rows, 4, "a, b, n, s");
    assert_eq!(moved(Op::Batch), 1, "a batch is one request");
    assert_eq!(moved(Op::CheckAndMutate), 0);
    let get = metrics.snapshot(Op::Get).latency;
    assert!(get.max_us >= get.min_us);
    assert_eq!(get.counts.iter().sum::<u64>(), get.count);
}

/// A server takes a scanner's rows an answer at a time: each answer is one `ScanNext`,
/// however many rows it holds.
#[test]
fn a_scan_answer_of_many_rows_counts_as_one_scan_next() {
    use basalt_api::ResultScanner;
    let dir = tempfile::tempdir().expect("temp dir");
    let db = support::open(dir.path(), DbConfig::default());
    let descriptor = support::descriptor("m", &["f"]);
    db.admin
        .create_table(&descriptor, &PreSplit::None)
        .expect("create");
    let table = db.table(&descriptor.name);
    let puts: Vec<Put> = (0..25)
        .map(|i| Put::new(format!("r{i:02}")).add("f", "q", "v"))
        .collect();
    table.put_many(&puts).expect("puts");
    let metrics = db.db.metrics();
    let before = metrics.snapshot(Op::ScanNext).latency.count;
    let mut scanner = table.scan(&Scan::new()).expect("scan");
    let mut rows = 0;
    let mut answers = 0;
    loop {
        let (taken, more) = scanner.next_answer(10, u64::MAX).expect("an answer");
        rows += taken.len();
        answers += 1;
        if !more {
            break;
        }
    }
    assert_eq!((rows, answers), (25, 3), "10 + 10 + 5 rows");
    assert_eq!(metrics.snapshot(Op::ScanNext).latency.count - before, 3);
}
