//! `basalt export`, `basalt import` and `basalt copytable` as a user runs them, against
//! real `basalt standalone` processes: a table with several versions and deletes exported
//! to a folder and to an S3-compatible server (moto) and imported elsewhere cell for cell;
//! time range and versions honoured; a damaged part named and refused; an export killed
//! with SIGKILL resumed; copies to a new name and to a peer with a row range.

use crate::support;

use basalt_api::{Connection, PreSplit};
use basalt_client::RemoteConnection;
use basalt_types::{Delete, FamilyDescriptor, Put, Scan, TableDescriptor, TableName};
use bytes::Bytes;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

type CellKey = (Bytes, Bytes, Bytes, i64, u8, Bytes);

fn name(text: &str) -> TableName {
    TableName::parse(text).expect("name")
}

fn connect(addr: &str) -> RemoteConnection {
    RemoteConnection::connect(addr).expect("connect")
}

/// Table `t` split at `m`, family `f` keeping 5 versions: rows `r000`.. with values at
/// timestamps 100, 200 and 300, then a column delete, a version delete and a family delete.
fn fill(conn: &RemoteConnection, table: &str, rows: u32) {
    let mut family = FamilyDescriptor::new(Bytes::from_static(b"f")).expect("family");
    family.max_versions = 5;
    let descriptor = TableDescriptor::new(name(table), vec![family]);
    conn.admin()
        .create_table(
            &descriptor,
            &PreSplit::Keys(vec![Bytes::from_static(b"r050")]),
        )
        .expect("create");
    let t = conn.table(&name(table)).expect("table");
    let puts: Vec<Put> = (0..rows)
        .map(|i| {
            let mut put = Put::new(format!("r{i:03}"));
            for ts in [100, 200, 300] {
                put = put.add_at("f", "a", ts, format!("a{i}@{ts}")).add_at(
                    "f",
                    "b",
                    ts,
                    format!("b{i}@{ts}"),
                );
            }
            put
        })
        .collect();
    t.put_many(&puts).expect("puts");
    t.delete(&Delete::new("r001").at(250).columns("f", "a"))
        .expect("column delete");
    t.delete(&Delete::new("r002").at(200).version("f", "b"))
        .expect("version delete");
    t.delete(&Delete::new("r003").at(300).family("f"))
        .expect("family delete");
}

/// Every cell (delete markers too, every version) as comparable tuples.
fn cells(conn: &RemoteConnection, table: &str, raw: bool) -> Vec<CellKey> {
    let t = conn.table(&name(table)).expect("table");
    t.scan(&Scan::new().raw(raw).versions(100))
        .expect("scan")
        .flat_map(|r| r.expect("row").cells)
        .map(|c| {
            (
                c.row_bytes(),
                c.family_bytes(),
                c.qualifier_bytes(),
                c.timestamp(),
                c.cell_type().code(),
                c.value_bytes(),
            )
        })
        .collect()
}

fn basalt(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_basalt"))
        .args(args)
        .envs(env.iter().copied())
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

#[test]
fn an_export_with_versions_and_deletes_imports_and_copies_cell_for_cell() {
    let (dir_a, dir_b, out) = (
        tempfile::tempdir().expect("dir"),
        tempfile::tempdir().expect("dir"),
        tempfile::tempdir().expect("dir"),
    );
    let (a, b) = (support::start(dir_a.path()), support::start(dir_b.path()));
    let (conn_a, conn_b) = (connect(&a.addr), connect(&b.addr));
    fill(&conn_a, "t", 100);
    let source = cells(&conn_a, "t", true);
    assert!(source.iter().any(|c| c.4 == 14) && source.iter().any(|c| c.4 == 8));

    // Everything, deletes included, into a fresh server: every cell the same.
    let full = out.path().join("full");
    let said = ok(basalt(
        &[
            "export",
            "--connect",
            &a.addr,
            "--raw",
            "--versions",
            "10",
            "--part-size",
            "2000",
            "t",
            &url(&full),
        ],
        &[],
    ));
    assert!(said.contains("part-00003 written"), "{said}");
    assert!(full.join("MANIFEST").exists() && full.join("JOB").exists());
    let said = ok(basalt(
        &["import", "--connect", &b.addr, "--create", "t", &url(&full)],
        &[],
    ));
    assert!(
        said.contains(&format!("imported {} cells", source.len())),
        "{said}"
    );
    assert_eq!(cells(&conn_b, "t", true), source);
    assert_eq!(cells(&conn_b, "t", false), cells(&conn_a, "t", false));
    let regions = conn_b.admin().list_regions(&name("t")).expect("regions");
    assert_eq!(regions.len(), 2, "the split point travels with the export");

    // A time range and one version: the newest value in [150, 300) of each column, no markers.
    let ranged = out.path().join("ranged");
    ok(basalt(
        &[
            "export",
            "--connect",
            &a.addr,
            "--start-time",
            "150",
            "--end-time",
            "300",
            "t",
            &url(&ranged),
        ],
        &[],
    ));
    ok(basalt(
        &[
            "import",
            "--connect",
            &b.addr,
            "--create",
            "ranged",
            &url(&ranged),
        ],
        &[],
    ));
    let got = cells(&conn_b, "ranged", true);
    assert!(got.iter().all(|c| c.3 == 200 && c.4 == 4), "{got:?}");
    // 100 rows × 2 columns, less r001:a (deleted at 250), r002:b@200 (deleted), r003 (family).
    assert_eq!(got.len(), 200 - 1 - 1 - 2);

    // A damaged part: named, nothing of it written, the others written.
    let part = full.join("part-00001");
    let mut bytes = std::fs::read(&part).expect("part");
    bytes[40] ^= 0x20;
    std::fs::write(&part, bytes).expect("damage");
    let out_damaged = basalt(
        &[
            "import",
            "--connect",
            &b.addr,
            "--create",
            "damaged",
            &url(&full),
        ],
        &[],
    );
    let said = String::from_utf8_lossy(&out_damaged.stderr).into_owned();
    assert!(!out_damaged.status.success());
    assert!(
        said.contains("part-00001") && said.contains("checksum mismatch"),
        "{said}"
    );
    let imported = cells(&conn_b, "damaged", true);
    assert!(!imported.is_empty() && imported.len() < source.len());

    // CopyTable: a row range to a new name here, and to the peer.
    ok(basalt(
        &[
            "copytable",
            "--connect",
            &a.addr,
            "--new-name",
            "copy",
            "--raw",
            "--versions",
            "10",
            "--start-row",
            "r010",
            "--stop-row",
            "r060",
            "t",
        ],
        &[],
    ));
    let in_range = |c: &&CellKey| c.0.as_ref() >= &b"r010"[..] && c.0.as_ref() < &b"r060"[..];
    let expected: Vec<CellKey> = source.iter().filter(in_range).cloned().collect();
    assert_eq!(cells(&conn_a, "copy", true), expected);
    ok(basalt(
        &[
            "copytable",
            "--connect",
            &a.addr,
            "--peer",
            &b.addr,
            "--versions",
            "10",
            "--start-row",
            "r000",
            "--stop-row",
            "r005",
            "t",
        ],
        &[],
    ));
    let on_peer = cells(&conn_b, "t", false);
    assert_eq!(
        on_peer,
        cells(&conn_a, "t", false),
        "the peer already held t: rewritten the same"
    );
    let refused = basalt(&["copytable", "--connect", &a.addr, "t"], &[]);
    assert!(!refused.status.success());
    support::stop(a);
    support::stop(b);
}

#[test]
fn an_export_killed_midway_resumes_and_completes() {
    let (dir, out) = (
        tempfile::tempdir().expect("dir"),
        tempfile::tempdir().expect("dir"),
    );
    let server = support::start(dir.path());
    let conn = connect(&server.addr);
    fill(&conn, "t", 1000);
    let target = out.path().join("exp");
    let args = [
        "export",
        "--connect",
        &server.addr,
        "--versions",
        "3",
        "--part-size",
        "300",
        "t",
    ];
    let mut child = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .args(args)
        .arg(url(&target))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("export");
    let deadline = Instant::now() + Duration::from_secs(60);
    while !target.join("part-00020").exists() {
        assert!(Instant::now() < deadline, "no part-00020");
        assert!(
            child.try_wait().expect("wait").is_none(),
            "the export ended too soon"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
    assert!(
        !target.join("MANIFEST").exists(),
        "killed before it finished"
    );
    let mut args = args.to_vec();
    let target_url = url(&target);
    args.push(&target_url);
    let said = ok(basalt(&args, &[]));
    assert!(said.contains("parts already complete, resuming"), "{said}");
    ok(basalt(
        &[
            "import",
            "--connect",
            &server.addr,
            "--create",
            "back",
            &target_url,
        ],
        &[],
    ));
    assert_eq!(cells(&conn, "back", false), cells(&conn, "t", false));
    let again = ok(basalt(&args, &[]));
    assert!(again.contains("nothing to do"), "{again}");
    support::stop(server);
}

#[test]
fn an_export_to_s3_imports_cell_for_cell() {
    let moto = basalt_store::testing::MotoServer::start().expect("moto");
    let (dir_a, dir_b) = (
        tempfile::tempdir().expect("dir"),
        tempfile::tempdir().expect("dir"),
    );
    let (a, b) = (support::start(dir_a.path()), support::start(dir_b.path()));
    let (conn_a, conn_b) = (connect(&a.addr), connect(&b.addr));
    fill(&conn_a, "t", 100);
    let env = [
        ("AWS_ACCESS_KEY_ID", "testing"),
        ("AWS_SECRET_ACCESS_KEY", "testing"),
        ("AWS_REGION", "us-east-1"),
    ];
    let (endpoint, target) = (moto.endpoint(), moto.url("exports/t"));
    ok(basalt(
        &[
            "export",
            "--connect",
            &a.addr,
            "--raw",
            "--versions",
            "10",
            "--part-size",
            "4000",
            "--store-endpoint",
            &endpoint,
            "t",
            &target,
        ],
        &env,
    ));
    ok(basalt(
        &[
            "import",
            "--connect",
            &b.addr,
            "--create",
            "--store-endpoint",
            &endpoint,
            "t",
            &target,
        ],
        &env,
    ));
    assert_eq!(cells(&conn_b, "t", true), cells(&conn_a, "t", true));
    support::stop(a);
    support::stop(b);
}
