//! `basalt migrate`: a standalone folder, written to (some rows only in its log), moves
//! into a cluster; the masters started afterwards assign its regions and every row reads
//! back through the cluster. The folder itself is left as it was.

use crate::support;

use basalt_api::{Connection, PreSplit};
use basalt_client::RemoteConnection;
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_types::{FamilyDescriptor, Get, Put, Scan, TableDescriptor, TableName};
use bytes::Bytes;
use std::process::Command;
use support::cluster::Cluster;

fn put(i: u32) -> Put {
    Put::new(Bytes::from(format!("row{i:04}"))).add(
        Bytes::from_static(b"f"),
        Bytes::from_static(b"q"),
        Bytes::from(format!("v{i}")),
    )
}

/// Every file under `dir`, with its length.
fn files(dir: &std::path::Path) -> Vec<(std::path::PathBuf, u64)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            out.extend(files(&path));
        } else {
            let len = std::fs::metadata(&path).expect("metadata").len();
            out.push((path, len));
        }
    }
    out.sort();
    out
}

#[test]
fn a_standalone_folder_moves_into_a_cluster_and_serves_there() {
    let folder = tempfile::tempdir().expect("folder");
    let name = TableName::parse("grown").expect("name");
    {
        let db = Database::open(folder.path(), DbConfig::default()).expect("open");
        let conn = EmbeddedConnection::new(db.clone());
        let descriptor = TableDescriptor::new(
            name.clone(),
            vec![FamilyDescriptor::new(Bytes::from_static(b"f")).expect("family")],
        );
        conn.admin()
            .create_table(
                &descriptor,
                &PreSplit::Keys(vec![
                    Bytes::from_static(b"row0100"),
                    Bytes::from_static(b"row0200"),
                ]),
            )
            .expect("create");
        let table = conn.table(&name).expect("table");
        table
            .put_many(&(0..150).map(put).collect::<Vec<_>>())
            .expect("puts");
        conn.admin().flush(&name).expect("flush");
        table
            .put_many(&(150..300).map(put).collect::<Vec<_>>())
            .expect("more puts, in the log only");
        // Not closed: the last rows are only in the write-ahead log, as after a crash.
        drop(table);
        drop(conn);
        drop(db);
    }
    let before = files(folder.path());
    let mut cluster = Cluster::start(0, 0);
    let out = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .args(["migrate", "--data-dir"])
        .arg(folder.path())
        .args([
            "--coordinator",
            &cluster.coordinator(),
            "--store",
            &cluster.store_url(),
            "--log",
            "warn",
        ])
        .output()
        .expect("run migrate");
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{printed}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        printed.contains("migrated 1 tables (3 regions"),
        "{printed}"
    );
    // The folder is replayed and flushed (so it changed), but nothing of it was removed.
    let after = files(folder.path());
    for (path, _) in &before {
        if !path.to_string_lossy().contains("/wal/") {
            assert!(
                after.iter().any(|(p, _)| p == path),
                "{} is still there",
                path.display()
            );
        }
    }
    cluster.start_master();
    cluster.start_server("127.0.0.2");
    cluster.start_server("127.0.0.3");
    let outcome = std::panic::catch_unwind(|| {
        let conn = RemoteConnection::connect(&cluster.masters_arg()).expect("connect");
        let table = conn.table(&name).expect("the migrated table");
        let mut rows = 0;
        for deadline in 0..100 {
            match table.scan(&Scan::new()) {
                Ok(scan) => {
                    rows = scan.collect::<Result<Vec<_>, _>>().expect("rows").len();
                    break;
                }
                Err(e) if deadline < 99 => {
                    let _ = e;
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
                Err(e) => panic!("scan: {e}"),
            }
        }
        assert_eq!(rows, 300);
        let got = table
            .get(&Get::new(Bytes::from_static(b"row0299")))
            .expect("get");
        assert_eq!(got.value(b"f", b"q"), Some(&b"v299"[..]));
        let regions = conn.admin().list_regions(&name).expect("regions");
        assert_eq!(regions.len(), 3);
        // Migrating again is refused: the table exists in the cluster now (and a master runs).
        let again = Command::new(env!("CARGO_BIN_EXE_basalt"))
            .args(["migrate", "--data-dir"])
            .arg(folder.path())
            .args([
                "--coordinator",
                &cluster.coordinator(),
                "--store",
                &cluster.store_url(),
                "--log",
                "warn",
            ])
            .output()
            .expect("run migrate");
        assert!(!again.status.success());
        assert!(String::from_utf8_lossy(&again.stderr).contains("master is running"));
    });
    if let Err(panic) = outcome {
        cluster.fail_with_logs(panic);
    }
}
