//! The pristine worlds every case starts from (copied, never damaged in place).
//!
//! Table `faults:target` is pre-split at `r1` and `r2` into regions t0, t1, t2 (one family
//! `cf`, 1 KiB blocks and a ROW bloom, so its store files have many data blocks, an index
//! and a bloom); table `faults:idle` is split at `m` into i0, i1. Every row holds one cell
//! `cf:v`. Phase one writes 60 rows per target region and 40 per idle region, flushes
//! everything and closes cleanly: that is the `clean` world. The `crashed` world reopens a
//! copy of it (a fresh log segment), writes twenty more puts alternating between t0 and
//! t1 (each one log record, each a new value for an existing row) and drops the database
//! without closing: those puts exist only in the newest log segment.

use basalt_api::{Admin, Connection, PreSplit, RegionReport};
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_types::{BloomType, FamilyDescriptor, Put, TableDescriptor, TableName};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

pub const FAMILY: &str = "cf";
pub const QUALIFIER: &str = "v";
/// Puts in the crashed world's newest segment, one log record each.
pub const CRASH_PUTS: usize = 20;

/// A region of the worlds, as the model knows it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RegionId {
    T0,
    T1,
    T2,
    I0,
    I1,
}

impl RegionId {
    pub const ALL: [RegionId; 5] = [Self::T0, Self::T1, Self::T2, Self::I0, Self::I1];

    pub fn table(&self) -> TableName {
        match self {
            Self::T0 | Self::T1 | Self::T2 => target_table(),
            Self::I0 | Self::I1 => idle_table(),
        }
    }
}

pub fn target_table() -> TableName {
    TableName::new("faults", "target").expect("valid name")
}

pub fn idle_table() -> TableName {
    TableName::new("faults", "idle").expect("valid name")
}

/// One row of the model: where it lives and the values it had.
#[derive(Debug, Clone)]
pub struct Row {
    pub region: RegionId,
    pub key: Vec<u8>,
    /// Written in phase one (in the store files).
    pub v1: Vec<u8>,
    /// Written after the crash world's reopen (in the newest log segment only), with the
    /// index of its log record.
    pub v2: Option<(usize, Vec<u8>)>,
}

/// Both worlds and what they hold.
pub struct Worlds {
    _dir: tempfile::TempDir,
    pub clean: std::path::PathBuf,
    pub crashed: std::path::PathBuf,
    /// Encoded region names by model id (the same in both worlds).
    pub regions: BTreeMap<RegionId, String>,
    /// Every row; `v2` is only in the crashed world.
    pub rows: Vec<Row>,
}

pub fn config() -> DbConfig {
    let mut config = DbConfig {
        split_check_interval_ms: 3_600_000,
        ..DbConfig::default()
    };
    // No compaction or major compaction may rewrite files behind the suite's back.
    config.storage.compaction_min_files = 1000;
    config.storage.major_compaction_period_ms = 0;
    config
}

fn value(phase: u8, key: &[u8]) -> Vec<u8> {
    let mut v = format!("v{phase}-{}-", String::from_utf8_lossy(key)).into_bytes();
    v.resize(100, b'.');
    v
}

fn descriptor(name: TableName) -> TableDescriptor {
    let mut family = FamilyDescriptor::new(FAMILY).expect("valid family");
    family.block_size_bytes = 1024;
    family.bloom_filter = BloomType::Row;
    TableDescriptor::new(name, vec![family])
}

fn put(conn: &EmbeddedConnection, table: &TableName, key: &[u8], value: &[u8]) {
    conn.table(table)
        .expect("table exists")
        .put(&Put::new(key.to_vec()).add(FAMILY, QUALIFIER, value))
        .expect("put is acknowledged");
}

pub fn build() -> Worlds {
    let dir = tempfile::tempdir().expect("temp dir");
    let clean = dir.path().join("clean");
    let crashed = dir.path().join("crashed");
    let mut rows = Vec::new();
    for (region, prefix, count) in [
        (RegionId::T0, "r0-", 60),
        (RegionId::T1, "r1-", 60),
        (RegionId::T2, "r2-", 60),
        (RegionId::I0, "a-", 40),
        (RegionId::I1, "n-", 40),
    ] {
        for i in 0..count {
            let key = format!("{prefix}{i:03}").into_bytes();
            let v1 = value(1, &key);
            rows.push(Row {
                region: region.clone(),
                key,
                v1,
                v2: None,
            });
        }
    }
    let regions = {
        let db = Database::open(&clean, config()).expect("database opens");
        let conn = EmbeddedConnection::new(db.clone());
        let admin = conn.admin();
        admin
            .create_namespace(&basalt_types::NamespaceDescriptor::new("faults").expect("valid"))
            .expect("namespace");
        let split = |keys: &[&str]| {
            PreSplit::Keys(keys.iter().map(|k| k.as_bytes().to_vec().into()).collect())
        };
        admin
            .create_table(&descriptor(target_table()), &split(&["r1", "r2"]))
            .expect("target table");
        admin
            .create_table(&descriptor(idle_table()), &split(&["m"]))
            .expect("idle table");
        for row in &rows {
            put(&conn, &row.region.table(), &row.key, &row.v1);
        }
        admin.flush(&target_table()).expect("flush");
        admin.flush(&idle_table()).expect("flush");
        let regions = region_names(admin.as_ref());
        db.close().expect("clean close");
        regions
    };
    copy_dir(&clean, &crashed);
    {
        let db = Database::open(&crashed, config()).expect("database reopens");
        let conn = EmbeddedConnection::new(db.clone());
        let t0: Vec<usize> = (0..rows.len())
            .filter(|&i| rows[i].region == RegionId::T0)
            .collect();
        let t1: Vec<usize> = (0..rows.len())
            .filter(|&i| rows[i].region == RegionId::T1)
            .collect();
        for record in 0..CRASH_PUTS {
            let index = if record % 2 == 0 {
                t0[record / 2]
            } else {
                t1[record / 2]
            };
            let v2 = value(2, &rows[index].key);
            put(&conn, &target_table(), &rows[index].key, &v2);
            rows[index].v2 = Some((record, v2));
        }
        drop(conn);
        drop(db);
    }
    Worlds {
        _dir: dir,
        clean,
        crashed,
        regions,
        rows,
    }
}

fn region_names(admin: &dyn Admin) -> BTreeMap<RegionId, String> {
    let mut names = BTreeMap::new();
    let sorted = |table: TableName| -> Vec<RegionReport> {
        let mut regions = admin.list_regions(&table).expect("regions");
        regions.sort_by(|a, b| a.start_key.cmp(&b.start_key));
        regions
    };
    let target = sorted(target_table());
    let idle = sorted(idle_table());
    assert_eq!((target.len(), idle.len()), (3, 2), "the worlds' regions");
    for (id, report) in [RegionId::T0, RegionId::T1, RegionId::T2]
        .into_iter()
        .zip(&target)
        .chain([RegionId::I0, RegionId::I1].into_iter().zip(&idle))
    {
        names.insert(id, report.encoded_name.clone());
    }
    names
}

/// Copies a folder tree (a data folder is small here).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create copy");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("dir entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else if entry.file_name() != "LOCK" {
            std::fs::copy(entry.path(), &target).expect("copy file");
        }
    }
}

/// The database of a world, as an `Arc`, for callers that hold it.
pub type Db = Arc<Database>;
