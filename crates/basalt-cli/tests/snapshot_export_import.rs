//! `basalt snapshot export` and `basalt snapshot import` (HBase's ExportSnapshot) as an
//! operator runs them, against real `basalt standalone` processes and a cluster on an
//! S3-compatible server (moto): a snapshot exported to a folder and imported into a fresh
//! standalone, exported to S3 and imported into a cluster's store, cloned and restored
//! there with every row compared; an export killed with SIGKILL resumed and verified; a
//! damaged exported file named by the import, which then makes no snapshot.

use crate::support;

use basalt_api::{Connection, PreSplit, SnapshotOptions};
use basalt_client::RemoteConnection;
use basalt_types::{FamilyDescriptor, Put, Scan, TableDescriptor, TableName};
use bytes::Bytes;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use support::cluster::Cluster;

type Cell = (Bytes, Bytes, Bytes, i64, Bytes);

fn name(text: &str) -> TableName {
    TableName::parse(text).expect("name")
}

fn connect(addr: &str) -> RemoteConnection {
    RemoteConnection::connect(addr).expect("connect")
}

/// Table `t` in `regions` regions (split at r100, r200, …), three versions of each row,
/// each version flushed into files of its own; then snapshot `s1`.
fn fill_and_snapshot(conn: &RemoteConnection, rows: u32, regions: u32) {
    let mut family = FamilyDescriptor::new(Bytes::from_static(b"f")).expect("family");
    family.max_versions = 3;
    let splits = (1..regions).map(|i| Bytes::from(format!("r{:03}", i * rows / regions)));
    conn.admin()
        .create_table(
            &TableDescriptor::new(name("t"), vec![family]),
            &PreSplit::Keys(splits.collect()),
        )
        .expect("create");
    let t = conn.table(&name("t")).expect("table");
    for ts in [100, 200, 300] {
        let puts: Vec<Put> = (0..rows)
            .map(|i| {
                Put::new(format!("r{i:03}"))
                    .add_at("f", "a", ts, format!("a{i}@{ts}-{}", "x".repeat(200)))
                    .add_at("f", "b", ts, format!("b{i}@{ts}"))
            })
            .collect();
        t.put_many(&puts).expect("puts");
        conn.admin().flush(&name("t")).expect("flush");
    }
    conn.admin()
        .snapshot(&name("t"), "s1", &SnapshotOptions::default())
        .expect("snapshot");
}

/// Every version of every cell of `table`.
fn cells(conn: &RemoteConnection, table: &str) -> Vec<Cell> {
    conn.table(&name(table))
        .expect("table")
        .scan(&Scan::new().versions(10))
        .expect("scan")
        .flat_map(|r| r.expect("row").cells)
        .map(|c| {
            (
                c.row_bytes(),
                c.family_bytes(),
                c.qualifier_bytes(),
                c.timestamp(),
                c.value_bytes(),
            )
        })
        .collect()
}

fn basalt(args: &[&str], env: &[(String, String)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_basalt"))
        .args(args)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::null())
        .output()
        .expect("run basalt")
}

fn ok(out: Output) -> String {
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(out.status.success(), "{stdout}\n{stderr}");
    format!("{stdout}{stderr}")
}

fn url(dir: &Path) -> String {
    format!("file://{}", dir.display())
}

fn text(path: &Path) -> String {
    path.to_str().expect("UTF-8 path").to_owned()
}

/// The exported store files under `dir`, sorted.
fn hfiles(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(hfiles(&path));
        } else if path.extension().is_some_and(|x| x == "hfile") {
            out.push(path);
        }
    }
    out.sort();
    out
}

#[test]
fn a_snapshot_exported_to_a_folder_imports_into_a_fresh_standalone_and_a_damaged_file_is_named() {
    let (dir_a, dir_b, dir_c, out) = (
        tempfile::tempdir().expect("dir"),
        tempfile::tempdir().expect("dir"),
        tempfile::tempdir().expect("dir"),
        tempfile::tempdir().expect("dir"),
    );
    let a = support::start(dir_a.path());
    let conn_a = connect(&a.addr);
    fill_and_snapshot(&conn_a, 300, 3);
    let source = cells(&conn_a, "t");
    assert_eq!(source.len(), 300 * 2 * 3);
    let to = url(out.path());
    let said = ok(basalt(
        &[
            "snapshot",
            "export",
            "--data-dir",
            &text(dir_a.path()),
            "--snapshot",
            "s1",
            "--to",
            &to,
        ],
        &[],
    ));
    assert!(said.contains("copied, verified"), "{said}");
    assert!(said.contains("exported snapshot s1 of table t"), "{said}");
    let exported = hfiles(&out.path().join("s1"));
    assert!(
        exported.len() >= 3,
        "a file or more per region: {exported:?}"
    );
    let again = ok(basalt(
        &[
            "snapshot",
            "export",
            "--data-dir",
            &text(dir_a.path()),
            "--snapshot",
            "s1",
            "--to",
            &to,
        ],
        &[],
    ));
    assert!(again.contains("nothing to do"), "{again}");

    // Into a fresh standalone, running: clone and restore work there, row for row.
    let b = support::start(dir_b.path());
    let conn_b = connect(&b.addr);
    let said = ok(basalt(
        &[
            "snapshot",
            "import",
            "--data-dir",
            &text(dir_b.path()),
            "--from",
            &to,
        ],
        &[],
    ));
    assert!(said.contains("imported snapshot s1"), "{said}");
    let listed = conn_b.admin().list_snapshots(None).expect("list");
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].table, name("t"));
    conn_b
        .admin()
        .clone_snapshot("s1", &name("t"))
        .expect("clone under the source's name");
    assert_eq!(cells(&conn_b, "t"), source);
    conn_b
        .table(&name("t"))
        .expect("table")
        .put(&Put::new("r000").add_at("f", "a", 400, "later"))
        .expect("put");
    conn_b.admin().disable_table(&name("t")).expect("disable");
    conn_b.admin().restore_snapshot("s1").expect("restore");
    conn_b.admin().enable_table(&name("t")).expect("enable");
    assert_eq!(cells(&conn_b, "t"), source, "restored to the snapshot");

    // One flipped byte in one exported file: named, and no snapshot made.
    let victim = &exported[exported.len() / 2];
    let mut bytes = std::fs::read(victim).expect("read");
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    std::fs::write(victim, bytes).expect("damage");
    let refused = basalt(
        &[
            "snapshot",
            "import",
            "--data-dir",
            &text(dir_c.path()),
            "--from",
            &to,
        ],
        &[],
    );
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    let victim_rel = victim.strip_prefix(out.path()).expect("under the export");
    assert!(
        err.contains(&*victim_rel.to_string_lossy()) && err.contains("checksum mismatch"),
        "{err}"
    );
    assert!(!dir_c.path().join("snapshots/s1/SNAPSHOT").exists());
    support::stop(a);
    support::stop(b);
}

#[test]
fn a_snapshot_exported_to_s3_and_killed_midway_resumes_and_imports_into_a_cluster() {
    let cluster = Cluster::start_on_s3(1, 1);
    let outcome = std::panic::catch_unwind(|| {
        let moto = cluster.moto().expect("on moto");
        let env = cluster.store_env().to_vec();
        let dir_a = tempfile::tempdir().expect("dir");
        let a = support::start(dir_a.path());
        let conn_a = connect(&a.addr);
        fill_and_snapshot(&conn_a, 400, 8);
        let source = cells(&conn_a, "t");
        let (endpoint, to) = (moto.endpoint(), moto.url("exports"));
        let export = [
            "snapshot",
            "export",
            "--data-dir",
            &text(dir_a.path()),
            "--snapshot",
            "s1",
            "--to",
            &to,
            "--store-endpoint",
            &endpoint,
        ];

        // Killed after its first file: the rerun keeps what verifies and copies the rest.
        let mut child = Command::new(env!("CARGO_BIN_EXE_basalt"))
            .args(export)
            .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("export");
        let stderr = child.stderr.take().expect("piped");
        let first = BufReader::new(stderr)
            .lines()
            .map(|l| l.expect("line"))
            .find(|l| l.starts_with("[1/"))
            .expect("a first file copied");
        assert!(first.contains("copied, verified"), "{first}");
        child.kill().expect("SIGKILL");
        child.wait().expect("reaped");
        let count: usize = first[3..first.find(']').expect("[1/N]")]
            .parse()
            .expect("N");
        assert!(count >= 8, "a file or more per region: {first}");
        let said = ok(basalt(&export, &env));
        assert!(
            said.contains(&format!("[1/{count}] s1/")) && said.contains("already there, verified"),
            "{said}"
        );
        assert!(said.contains(&format!("{count} files")), "{said}");

        // Into the cluster's store; the cluster clones it and reads every row.
        let mut import = vec!["snapshot", "import", "--from", &to];
        let store_args: Vec<&str> = cluster.store_args().iter().map(String::as_str).collect();
        import.extend(store_args);
        let said = ok(basalt(&import, &env));
        assert!(said.contains("imported snapshot s1"), "{said}");
        let conn = connect(&cluster.masters_arg());
        conn.admin()
            .clone_snapshot("s1", &name("copy"))
            .expect("clone in the cluster");
        assert_eq!(cells(&conn, "copy"), source);
        let again = basalt(&import, &env);
        assert!(!again.status.success(), "a second import is refused");
        assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));
        support::stop(a);
    });
    if let Err(panic) = outcome {
        cluster.fail_with_logs(panic);
    }
}
