//! A real full disk: `basalt standalone` on a small tmpfs, filled with a ballast file.
//! Writes are refused with a clear error while it is full and succeed again, with no
//! restart, once the ballast is deleted; SIGTERM on the full disk exits 0, leaves no
//! partial file and says what stayed in the write-ahead log; a start on the full disk
//! serves every acknowledged value. Mounting needs root (as in CI): without it the test
//! fails and says so.

use crate::support;

use basalt_api::{Connection, PreSplit, Table};
use basalt_client::{ClientConfig, RemoteConnection};
use basalt_types::{FamilyDescriptor, Get, Put, TableDescriptor, TableName};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use support::{start_logging_to, wait_exit, Running};

/// A tmpfs of `size` mounted on a fresh folder, unmounted on drop.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    fn mount(size: &str) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .output()
            .expect("run mount");
        assert!(
            out.status.success(),
            "cannot mount a tmpfs on {} ({}): this test needs root to mount a small \
             file system it can fill (CI runs it as root)",
            dir.path().display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
        Self { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let unmounted = Command::new("umount").arg(self.path()).status();
        if !unmounted.is_ok_and(|s| s.success()) {
            let _ = Command::new("umount").arg("-l").arg(self.path()).status();
        }
    }
}

/// A server killed if the test ends while it runs.
struct Server(Running);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.child.kill();
        let _ = self.0.child.wait();
    }
}

impl Server {
    fn start(data: &Path, log: &Path) -> Self {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .expect("log file");
        Self(start_logging_to(data, &[], log))
    }

    fn table(&self) -> Arc<dyn Table> {
        let config = ClientConfig {
            retries_max: 0,
            ..ClientConfig::default()
        };
        let conn = RemoteConnection::connect_with(&self.0.addr, config).expect("connect");
        conn.table(&name()).expect("table")
    }

    /// SIGTERM; the exit must be clean.
    fn stop(mut self) {
        let pid = self.0.child.id().to_string();
        let sent = Command::new("kill").args(["-TERM", &pid]).status();
        assert!(sent.expect("kill").success());
        let status = wait_exit(&mut self.0.child);
        assert!(
            status.success(),
            "SIGTERM on this disk must exit 0: {status}"
        );
    }
}

fn name() -> TableName {
    TableName::parse("t").expect("valid")
}

fn put(table: &dyn Table, key: &str) -> basalt_api::Result<()> {
    table.put(&Put::new(key.to_string()).add("cf", "q", format!("value-{key}")))
}

/// Puts `prefix0000..` until one fails (at most `count`); returns the error, if any.
fn put_until_refused(
    table: &dyn Table,
    prefix: &str,
    count: usize,
    acked: &mut BTreeMap<String, String>,
) -> Option<basalt_api::ApiError> {
    for i in 0..count {
        let key = format!("{prefix}{i:04}");
        match put(table, &key) {
            Ok(()) => acked.insert(key.clone(), format!("value-{key}")),
            Err(e) => return Some(e),
        };
    }
    None
}

fn assert_refused_clearly(error: Option<basalt_api::ApiError>) {
    let error = error.expect("writes are refused on a full disk");
    assert!(
        error.message.contains("disk full") && error.message.contains("No space left on device"),
        "{error:?}"
    );
}

/// Fills the file system holding `path` with it, up to the last byte.
fn fill_with_ballast(path: &Path) {
    let mut file = std::fs::File::create(path).expect("ballast");
    let chunk = vec![0xBA; 64 * 1024];
    loop {
        if let Err(e) = file.write_all(&chunk) {
            assert_eq!(e.kind(), std::io::ErrorKind::StorageFull, "{e}");
            return;
        }
    }
}

fn assert_all_readable(table: &dyn Table, acked: &BTreeMap<String, String>) {
    let gets: Vec<Get> = acked.keys().map(|k| Get::new(k.clone())).collect();
    let rows = table.get_many(&gets).expect("reads are served");
    for ((key, value), row) in acked.iter().zip(&rows) {
        let found = row.value(b"cf", b"q");
        assert_eq!(found, Some(value.as_bytes()), "acknowledged {key} lost");
    }
}

/// Files a failed write may have left: anything in a `.tmp` folder, any `*.tmp` file.
fn partial_files(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("readable folder") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "tmp")
                || path.components().any(|c| c.as_os_str() == ".tmp")
            {
                found.push(path);
            }
        }
    }
    found
}

#[test]
fn a_real_full_disk_refuses_writes_clearly_and_they_resume_without_a_restart() {
    let disk = Tmpfs::mount("16m");
    let data = disk.path().join("data");
    let ballast = disk.path().join("ballast");
    let logs = tempfile::tempdir().expect("log folder");
    let log = logs.path().join("basalt.log");
    let mut acked = BTreeMap::new();

    let server = Server::start(&data, &log);
    let conn = RemoteConnection::connect(&server.0.addr).expect("connect");
    let descriptor =
        TableDescriptor::new(name(), vec![FamilyDescriptor::new("cf").expect("valid")]);
    conn.admin()
        .create_table(&descriptor, &PreSplit::None)
        .expect("create");
    let table = server.table();
    assert!(put_until_refused(table.as_ref(), "before", 200, &mut acked).is_none());

    fill_with_ballast(&ballast);
    assert_refused_clearly(put_until_refused(
        table.as_ref(),
        "full",
        10_000,
        &mut acked,
    ));
    std::fs::remove_file(&ballast).expect("delete the ballast");
    assert!(
        put_until_refused(table.as_ref(), "freed", 200, &mut acked).is_none(),
        "writes succeed again without a restart"
    );

    fill_with_ballast(&ballast);
    assert_refused_clearly(put_until_refused(
        table.as_ref(),
        "full2-",
        10_000,
        &mut acked,
    ));
    drop((table, conn));
    server.stop();
    assert_eq!(partial_files(&data), Vec::<PathBuf>::new());
    let said = std::fs::read_to_string(&log).expect("log");
    assert!(
        said.contains("stay in the write-ahead log and are replayed at the next start"),
        "the stop says what stayed in the log:\n{said}"
    );

    // A start on the still full disk serves every acknowledged value, refuses writes.
    let server = Server::start(&data, &log);
    let table = server.table();
    assert_all_readable(table.as_ref(), &acked);
    assert_refused_clearly(put_until_refused(
        table.as_ref(),
        "full3-",
        10_000,
        &mut acked,
    ));
    std::fs::remove_file(&ballast).expect("delete the ballast");
    assert!(put_until_refused(table.as_ref(), "resumed", 100, &mut acked).is_none());
    drop(table);
    server.stop();

    let server = Server::start(&data, &log);
    assert_all_readable(server.table().as_ref(), &acked);
    eprintln!("{} acknowledged writes checked", acked.len());
    server.stop();
}
