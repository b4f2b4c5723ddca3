//! `basalt standalone --skip-corrupt-wal` on a real data folder: after a kill -9, a bit
//! flipped in the middle of the log (valid records after it) costs exactly the damaged
//! edit; the server starts, every other acknowledged row is served, the damaged segment is
//! kept in its log folder's `corrupt/` and the log says which regions may have lost what.

use basalt_api::{Connection, PreSplit};
use basalt_client::RemoteConnection;
use basalt_types::{Durability, FamilyDescriptor, Get, Put, TableDescriptor, TableName};
use std::path::{Path, PathBuf};

use crate::support;

use support::{start, start_logging_to, stop};

fn value(row: &str) -> String {
    format!("the-value-of-{row}-in-the-log")
}

/// The newest segment file of the log folders (`wal/<server>/`, one per region-server
/// incarnation of the folder).
fn newest_segment(dir: &Path) -> PathBuf {
    let mut segments: Vec<PathBuf> = std::fs::read_dir(dir.join("wal"))
        .expect("log folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .flat_map(|server| std::fs::read_dir(server).expect("a server's log folder"))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    segments.sort();
    segments.pop().expect("a segment")
}

#[test]
fn skip_corrupt_wal_serves_every_readable_row_and_logs_the_loss() {
    let dir = tempfile::tempdir().expect("temp dir");
    let logs = tempfile::tempdir().expect("temp dir");
    let rows: Vec<String> = (0..20).map(|i| format!("r{i:02}")).collect();
    let t = TableName::parse("t").expect("valid");
    let mut server = start(dir.path());
    {
        let conn = RemoteConnection::connect(&server.addr).expect("connect");
        let d = TableDescriptor::new(t.clone(), vec![FamilyDescriptor::new("cf").expect("ok")]);
        conn.admin()
            .create_table(&d, &PreSplit::None)
            .expect("create");
        let table = conn.table(&t).expect("table");
        for row in &rows {
            let put = Put::new(row.clone())
                .add("cf", "q", value(row))
                .durability(Durability::SyncWal);
            table.put(&put).expect("put");
        }
    }
    server.child.kill().expect("kill -9");
    let _ = server.child.wait();

    let segment = newest_segment(dir.path());
    let mut bytes = std::fs::read(&segment).expect("read");
    let needle = value("r10");
    let at = bytes
        .windows(needle.len())
        .position(|w| w == needle.as_bytes())
        .expect("r10 is in the log");
    bytes[at + 4] ^= 0x01;
    std::fs::write(&segment, &bytes).expect("write");

    let log_path = logs.path().join("stderr.log");
    let log = std::fs::File::create(&log_path).expect("log file");
    let server = start_logging_to(dir.path(), &["--skip-corrupt-wal"], log);
    let conn = RemoteConnection::connect(&server.addr).expect("connect");
    let table = conn.table(&t).expect("table");
    let gets: Vec<Get> = rows.iter().map(|r| Get::new(r.clone())).collect();
    let got = table.get_many(&gets).expect("gets");
    for (row, result) in rows.iter().zip(&got) {
        let served = result.value(b"cf", b"q").map(|v| v.to_vec());
        let expected = (row != "r10").then(|| value(row).into_bytes());
        assert_eq!(served, expected, "{row}");
    }
    let name = segment.file_name().expect("name");
    let kept = segment
        .parent()
        .expect("its folder")
        .join("corrupt")
        .join(name);
    assert_eq!(std::fs::read(&kept).expect("kept in its corrupt/"), bytes);
    stop(server);

    let text = std::fs::read_to_string(&log_path).expect("log");
    let losses: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("may have lost edits"))
        .collect();
    assert!(!losses.is_empty(), "the loss is logged: {text}");
    for line in &losses {
        assert!(line.contains("WARN"), "{line}");
        assert!(line.contains(&segment.display().to_string()), "{line}");
        assert!(line.contains("offset="), "{line}");
        assert!(line.contains("sequence ids above"), "{line}");
    }
    // The table's region is among them: r10 was its 11th edit, between 10 and 12.
    assert!(
        losses
            .iter()
            .any(|l| l.contains("last before 10, first after 12") && l.contains(" seq 11\"")),
        "{losses:?}"
    );
}
