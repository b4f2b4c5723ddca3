//! `basalt importtsv` as a user runs it: sorted lines loaded into a pre-split table on a
//! data folder (one an earlier Basalt wrote, with its catalog in `hbase:meta`: the first
//! tool to serve it imports that catalog) by three writer threads, read back in process;
//! unsorted input, bad lines and a parallelism of 0 refused.

use basalt_api::{Connection, PreSplit};
use basalt_cli::in_process::InProcess;
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_types::{FamilyDescriptor, Get, Scan, TableDescriptor, TableName};
use std::path::Path;
use std::process::{Command, Output};

fn importtsv(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_basalt"))
        .arg("importtsv")
        .arg("--data-dir")
        .arg(dir)
        .args(args)
        .output()
        .expect("run basalt importtsv")
}

fn create_table(dir: &Path) {
    let db = Database::open(dir, DbConfig::default()).expect("open");
    let conn = EmbeddedConnection::new(db.clone());
    let table = TableDescriptor::new(
        TableName::parse("t").expect("name"),
        vec![FamilyDescriptor::new("cf").expect("family")],
    );
    conn.admin()
        .create_table(&table, &PreSplit::Keys(vec!["r50".into()]))
        .expect("create");
    db.close().expect("close");
}

#[test]
fn sorted_lines_are_loaded_and_bad_input_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    create_table(&data);
    let tsv = dir.path().join("rows.tsv");
    let lines: String = (0..100).map(|i| format!("r{i:02}\tv{i}\tw{i}\n")).collect();
    std::fs::write(&tsv, format!("{lines}\nr99x\tonly two\n")).expect("write tsv");
    let columns = "--columns=HBASE_ROW_KEY,cf:a,cf:b";
    let tsv_arg = tsv.to_str().expect("utf-8 path");

    let refused = importtsv(&data, &[columns, "t", tsv_arg]);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("line 102"), "{stderr}");

    let refused = importtsv(&data, &[columns, "--parallelism", "0", "t", tsv_arg]);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("parallelism must be 1 to 256"), "{stderr}");

    let out = importtsv(
        &data,
        &[
            columns,
            "--skip-bad-lines",
            "--parallelism",
            "3",
            "--timestamp",
            "42",
            "t",
            tsv_arg,
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("imported 100 rows (200 cells"), "{stdout}");
    assert!(
        stdout.contains("in 2 regions; 1 bad lines skipped"),
        "{stdout}"
    );

    let unsorted = dir.path().join("unsorted.tsv");
    std::fs::write(&unsorted, "zz\t1\t2\naa\t1\t2\n").expect("write tsv");
    let out = importtsv(&data, &[columns, "t", unsorted.to_str().expect("utf-8")]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not sorted"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Read back as the folder is served: in process, as `basalt shell --data-dir` does.
    let served = InProcess::start(&data, DbConfig::default()).expect("serve the folder");
    let conn = served.connection();
    let table = conn
        .table(&TableName::parse("t").expect("name"))
        .expect("table");
    let rows: Vec<_> = table
        .scan(&Scan::new())
        .expect("scan")
        .map(|r| r.expect("row"))
        .collect();
    assert_eq!(rows.len(), 100, "the unsorted file loaded nothing");
    let row = table.get(&Get::new("r73")).expect("get");
    let cell = &row.cells[1];
    assert_eq!((cell.value(), cell.timestamp()), (&b"w73"[..], 42));
    drop(table);
    drop(conn);
    served.close().expect("close");
}
