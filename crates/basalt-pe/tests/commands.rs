//! Every `basalt pe` command, run small (`--rows 500 --clients 2`) against an in-process
//! database in a temporary folder: the table holds what the writes wrote, and the report
//! counts the operations.

use basalt_api::{Connection, Table};
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_pe::keys::{pe_row, ycsb_field, ycsb_key};
use basalt_pe::report::PhaseReport;
use basalt_pe::{PeArgs, Report};
use basalt_types::{BloomType, Compression, DataBlockEncoding, RowResult, Scan, TableName};
use clap::Parser;
use std::sync::Arc;

/// Writes go to the log without waiting for a sync: these tests measure nothing.
const SMALL: [&str; 7] = [
    "--rows",
    "500",
    "--clients",
    "2",
    "--seed",
    "7",
    "--durability=ASYNC_WAL",
];

struct Fixture {
    _dir: tempfile::TempDir,
    conn: Arc<dyn Connection>,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = Database::open(dir.path(), DbConfig::default()).expect("open database");
    Fixture {
        conn: Arc::new(EmbeddedConnection::new(db)),
        _dir: dir,
    }
}

impl Fixture {
    fn pe(&self, args: &[&str]) -> Report {
        let argv = std::iter::once("pe")
            .chain(SMALL)
            .chain(args.iter().copied());
        let options = PeArgs::try_parse_from(argv)
            .expect("arguments parse")
            .validate()
            .expect("arguments are valid");
        basalt_pe::run(Arc::clone(&self.conn), &options).expect("run succeeds")
    }

    fn table(&self, name: &str) -> Arc<dyn Table> {
        self.conn
            .table(&TableName::parse(name).expect("name"))
            .expect("table exists")
    }

    fn rows(&self, name: &str) -> Vec<RowResult> {
        self.table(name)
            .scan(&Scan::new())
            .expect("scan")
            .collect::<Result<_, _>>()
            .expect("rows")
    }
}

fn only_phase(report: &Report) -> &PhaseReport {
    assert_eq!(report.phases.len(), 1, "{:?}", report.phases);
    &report.phases[0]
}

#[test]
fn sequential_write_then_reads_find_every_row() {
    let f = fixture();
    let shape = ["--families", "2", "--columns", "2", "--value-size", "50"];
    let write = f.pe(&[&shape[..], &["sequentialWrite"]].concat());
    let phase = only_phase(&write);
    assert_eq!(
        (phase.command.as_str(), phase.ops, phase.bytes),
        ("sequentialWrite", 1000, 1000 * 200)
    );
    let rows = f.rows("TestTable");
    assert_eq!(rows.len(), 1000);
    for (n, row) in rows.iter().enumerate() {
        assert_eq!(row.row().expect("cells"), pe_row(n as u64).as_slice());
        assert_eq!(row.cells.len(), 4, "2 families x 2 columns");
        for (family, column) in [
            ("info0", "0"),
            ("info0", "1"),
            ("info1", "0"),
            ("info1", "1"),
        ] {
            let value = row
                .value(family.as_bytes(), column.as_bytes())
                .expect("cell written");
            assert_eq!(value.len(), 50);
        }
    }
    for command in ["sequentialRead", "randomRead"] {
        let read = f.pe(&[&shape[..], &[command]].concat());
        let phase = only_phase(&read);
        assert_eq!(
            (phase.command.as_str(), phase.ops, phase.misses),
            (command, 1000, 0)
        );
        assert_eq!(phase.bytes, 1000 * 200, "{command} read every value");
    }
    let multi = f.pe(&["--multi-get", "5", "multiGet"]);
    let phase = only_phase(&multi);
    assert_eq!(
        (phase.ops, phase.misses, phase.bytes),
        (1000, 0, 5000 * 200)
    );
    assert!(multi.peak_rss_bytes.expect("Linux reports VmHWM") > 0);
}

#[test]
fn random_writes_land_in_the_table_one_by_one_or_buffered() {
    let f = fixture();
    let report = f.pe(&["--auto-flush=true", "--value-size", "10", "randomWrite"]);
    assert_eq!(only_phase(&report).ops, 1000);
    let written = f.rows("TestTable");
    // 1000 uniform draws from 1000 rows hit about 1 - 1/e = 63 % of them, none outside.
    assert!(
        (550..720).contains(&written.len()),
        "{} rows",
        written.len()
    );
    assert!(written
        .iter()
        .all(|r| r.row().expect("cells") < pe_row(1000).as_slice()));
    // The same seed draws the same rows, buffered or not; another seed draws others.
    let report = f.pe(&["--auto-flush=false", "--value-size", "10", "randomWrite"]);
    assert_eq!(only_phase(&report).ops, 1000);
    assert_eq!(f.rows("TestTable").len(), written.len());
    f.pe(&["--seed", "8", "--value-size", "10", "randomWrite"]);
    assert!(f.rows("TestTable").len() > written.len());
}

#[test]
fn scans_read_what_sequential_write_wrote() {
    let f = fixture();
    f.pe(&["--value-size", "10", "sequentialWrite"]);
    let scan = f.pe(&["scan"]);
    assert_eq!(
        (only_phase(&scan).ops, only_phase(&scan).bytes),
        (1000, 10_000)
    );
    let seek = f.pe(&["randomSeekScan"]);
    let phase = only_phase(&seek);
    assert_eq!((phase.ops, phase.misses), (1000, 0));
    assert!(phase.bytes <= 1000 * 120 * 10 && phase.bytes > 1000 * 10);
    for (command, range) in [
        ("scanRange10", 10),
        ("scanRange100", 100),
        ("scanRange1000", 1000),
    ] {
        let report = f.pe(&["--rows", "50", command]);
        let phase = only_phase(&report);
        assert_eq!((phase.ops, phase.misses), (100, 0), "{command}");
        assert!(
            phase.bytes <= 100 * range * 10,
            "{command} read at most its range"
        );
    }
    let filtered = f.pe(&["filterScan"]);
    let phase = only_phase(&filtered);
    assert_eq!(phase.ops, 2 * 5, "rows / 100 scans per client");
    assert_eq!(
        phase.bytes, 0,
        "a 1024-byte value matches none of the 10-byte values"
    );
}

fn counter(row: &RowResult, family: &str, qualifier: &str) -> i64 {
    let value = row
        .value(family.as_bytes(), qualifier.as_bytes())
        .expect("counter cell");
    i64::from_be_bytes(value.as_ref().try_into().expect("8-byte counter"))
}

/// As in HBase's PE, every client works on rows 0..rows: two clients contend for each row.
#[test]
fn counters_sum_to_the_operations() {
    let f = fixture();
    let first = f.pe(&["--families", "2", "increment"]);
    assert_eq!(only_phase(&first).ops, 1000);
    f.pe(&["--families", "2", "increment"]);
    let rows = f.rows("TestTable");
    assert_eq!(rows.len(), 500, "both clients share rows 0..500");
    let sum: i64 = rows
        .iter()
        .map(|r| counter(r, "info0", "IncrementTest"))
        .sum();
    assert_eq!(sum, 2000, "two runs of 2 x 500 increments");
    for row in &rows {
        assert_eq!(counter(row, "info0", "IncrementTest"), 4);
        assert_eq!(
            counter(row, "info1", "IncrementTest"),
            4,
            "every family is incremented"
        );
    }

    let append = f.pe(&["append"]);
    assert_eq!(only_phase(&append).ops, 1000);
    let check = f.pe(&["checkAndPut"]);
    assert_eq!(
        (only_phase(&check).ops, only_phase(&check).misses),
        (1000, 0),
        "every check held"
    );
    for (n, row) in f.rows("TestTable").iter().enumerate() {
        let key = pe_row(n as u64);
        let twice = [key.as_slice(), key.as_slice()].concat();
        assert_eq!(
            row.value(b"info0", b"AppendTest").expect("appended"),
            twice.as_slice()
        );
        assert_eq!(
            row.value(b"info0", b"CheckAndPutTest").expect("put"),
            key.as_slice()
        );
    }
}

#[test]
fn ycsb_load_writes_ten_fields_of_100_bytes_and_workloads_run_their_mix() {
    let f = fixture();
    let load = f.pe(&["ycsbLoad"]);
    assert_eq!(
        (only_phase(&load).ops, only_phase(&load).bytes),
        (1000, 1000 * 1000)
    );
    let rows = f.rows("usertable");
    assert_eq!(rows.len(), 1000);
    let mut keys: Vec<Vec<u8>> = (0..1000).map(ycsb_key).collect();
    keys.sort();
    for (row, key) in rows.iter().zip(&keys) {
        assert_eq!(row.row().expect("cells"), key.as_slice());
        assert_eq!(row.cells.len(), 10);
        for field in 0..10 {
            let value = row
                .value(b"family", ycsb_field(field).as_bytes())
                .expect("field");
            assert_eq!(value.len(), 100);
        }
    }
    // Each run assumes the table holds --rows x --clients records, so each run's inserts
    // take the record numbers from 1000 on again (as YCSB does without insertstart).
    let mut inserted = 0;
    for (command, kinds) in [
        ("ycsbA", &["read", "update"][..]),
        ("ycsbB", &["read", "update"]),
        ("ycsbC", &["read"]),
        ("ycsbD", &["insert", "read"]),
        ("ycsbE", &["insert", "scan"]),
        ("ycsbF", &["read", "read-modify-write"]),
    ] {
        let report = f.pe(&[command]);
        let phase = only_phase(&report);
        assert_eq!(phase.ops, 1000, "{command}");
        let names: Vec<&str> = phase.operations.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, kinds, "{command}");
        assert_eq!(phase.operations.iter().map(|o| o.ops).sum::<u64>(), 1000);
        if !command.ends_with('D') {
            assert_eq!(phase.misses, 0, "{command} found every record");
        }
        let inserts = phase
            .operations
            .iter()
            .filter(|o| o.name == "insert")
            .map(|o| o.ops)
            .sum();
        inserted = inserted.max(inserts);
    }
    assert!(inserted > 0, "D and E insert");
    assert_eq!(f.rows("usertable").len() as u64, 1000 + inserted);
}

#[test]
fn ycsb_workload_loads_an_empty_table_first() {
    let f = fixture();
    let report = f.pe(&["--table", "fresh", "ycsbC"]);
    let commands: Vec<&str> = report.phases.iter().map(|p| p.command.as_str()).collect();
    assert_eq!(commands, ["ycsbLoad", "ycsbC"]);
    assert_eq!((report.phases[1].ops, report.phases[1].misses), (1000, 0));
    assert_eq!(f.rows("fresh").len(), 1000);
}

#[test]
fn new_tables_take_the_family_options_and_presplit() {
    let f = fixture();
    f.pe(&[
        "--presplit",
        "4",
        "--families",
        "2",
        "--compress",
        "GZ",
        "--bloom",
        "ROWCOL",
        "--block-encoding",
        "PREFIX",
        "--in-memory",
        "--value-size",
        "10",
        "sequentialWrite",
    ]);
    let name = TableName::parse("TestTable").expect("name");
    let admin = f.conn.admin();
    let descriptor = admin.describe_table(&name).expect("describe");
    assert_eq!(descriptor.families.len(), 2);
    for family in &descriptor.families {
        assert_eq!(family.compression, Compression::Gz);
        assert_eq!(family.bloom_filter, BloomType::RowCol);
        assert_eq!(family.data_block_encoding, DataBlockEncoding::Prefix);
        assert!(family.in_memory);
    }
    let regions = admin.list_regions(&name).expect("regions");
    let starts: Vec<Vec<u8>> = regions.iter().map(|r| r.start_key.to_vec()).collect();
    assert_eq!(starts, [vec![], pe_row(250), pe_row(500), pe_row(750)]);
    assert_eq!(f.rows("TestTable").len(), 1000);

    f.pe(&["--presplit", "3", "ycsbLoad"]);
    let regions = admin
        .list_regions(&TableName::parse("usertable").expect("name"))
        .expect("regions");
    assert_eq!(regions.len(), 3);
    assert_eq!(f.rows("usertable").len(), 1000);
}
