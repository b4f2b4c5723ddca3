//! Shared set-up for the database's integration tests: opening a database, building
//! tables, reading whole tables and checking that a table's regions tile the key space.
#![allow(dead_code)]

pub mod damage;
pub mod load;

use basalt_api::{Admin, Connection, RegionReport, Table};
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_types::{FamilyDescriptor, Scan, TableDescriptor, TableName};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// An open database and a connection to it.
pub struct Db {
    pub db: Arc<Database>,
    pub conn: EmbeddedConnection,
    pub admin: Arc<dyn Admin>,
}

pub fn open(dir: &Path, config: DbConfig) -> Db {
    // A test running beside this one may be starting a child process: until the child's
    // exec, it holds copies of this process's descriptors, the folder's lock among them, so
    // a folder closed a moment ago can still read as in use for that moment.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    let db = loop {
        match Database::open(dir, config.clone()) {
            Err(e) if e.message.contains("in use") && std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            opened => break opened.expect("database opens"),
        }
    };
    let conn = EmbeddedConnection::new(db.clone());
    let admin = conn.admin();
    Db { db, conn, admin }
}

impl Db {
    pub fn table(&self, name: &TableName) -> Arc<dyn Table> {
        self.conn.table(name).expect("table exists")
    }
}

/// A table with the given families at HBase's defaults.
pub fn descriptor(name: &str, families: &[&str]) -> TableDescriptor {
    TableDescriptor::new(
        TableName::parse(name).expect("valid table name"),
        families
            .iter()
            .map(|f| FamilyDescriptor::new(f.to_string()).expect("valid family"))
            .collect(),
    )
}

/// The folder of a region of `table` in the default layout.
pub fn region_dir(root: &Path, table: &TableName, encoded: &str) -> PathBuf {
    root.join("data")
        .join(table.namespace())
        .join(table.qualifier())
        .join(encoded)
}

/// The region folders in a table folder: every entry but the table's own dot-files
/// (`.tableinfo`).
pub fn region_folders(table_dir: &Path) -> std::io::Result<std::collections::BTreeSet<String>> {
    let mut names = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir(table_dir)? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if !name.starts_with('.') {
            names.insert(name);
        }
    }
    Ok(names)
}

/// Row keys of a full scan, in the order returned.
pub fn scan_keys(table: &dyn Table, reversed: bool) -> basalt_api::Result<Vec<Vec<u8>>> {
    let mut keys = Vec::new();
    for row in table.scan(&Scan::new().reversed(reversed))? {
        let row = row?;
        keys.push(row.row().expect("a scanned row has cells").to_vec());
    }
    Ok(keys)
}

/// Checks that `regions` are sorted and tile the whole key space: the first starts at the
/// empty key, each ends where the next starts, the last ends at the empty key.
pub fn check_tiling(regions: &[RegionReport]) -> Result<(), String> {
    let Some(first) = regions.first() else {
        return Err("the table has no region".into());
    };
    if !first.start_key.is_empty() {
        return Err(format!("the first region starts at {:?}", first.start_key));
    }
    for pair in regions.windows(2) {
        if pair[0].end_key.is_empty() || pair[0].end_key != pair[1].start_key {
            return Err(format!(
                "regions {} [{:?}, {:?}) and {} [{:?}, {:?}) overlap or leave a gap",
                pair[0].encoded_name,
                pair[0].start_key,
                pair[0].end_key,
                pair[1].encoded_name,
                pair[1].start_key,
                pair[1].end_key
            ));
        }
    }
    let last = regions.last().expect("not empty");
    if !last.end_key.is_empty() {
        return Err(format!("the last region ends at {:?}", last.end_key));
    }
    Ok(())
}

/// Polls `done` until it holds or `limit` passes; returns whether it held.
pub fn wait_for(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if done() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Runs `work` on its own thread and panics if it takes longer than `limit`, so that a
/// scan or an operation that never ends fails the test instead of hanging it. A panic in
/// `work` is passed on.
pub fn within<T: Send + 'static>(
    limit: Duration,
    what: &str,
    work: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (done, finished) = std::sync::mpsc::channel();
    let handle = std::thread::spawn(move || {
        let result = work();
        let _ = done.send(());
        result
    });
    match finished.recv_timeout(limit) {
        Ok(()) => handle.join().expect("finished without a panic"),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => match handle.join() {
            Ok(result) => result,
            Err(panic) => std::panic::resume_unwind(panic),
        },
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what} did not finish within {limit:?}: something hangs")
        }
    }
}

/// Waits for a child process at most `limit`, then kills it; `None` if it had to be killed.
pub fn wait_child(
    child: &mut std::process::Child,
    limit: Duration,
) -> Option<std::process::ExitStatus> {
    let mut status = None;
    let exited = wait_for(limit, || {
        status = child.try_wait().expect("child status");
        status.is_some()
    });
    if !exited {
        let _ = child.kill();
        let _ = child.wait();
    }
    status
}
