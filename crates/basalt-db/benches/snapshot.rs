//! The snapshot benchmark: prints figures, asserts nothing.
//!
//! ```text
//! cargo bench -p basalt-db --bench snapshot                    # 100 MB and 1 GB tables
//! cargo bench -p basalt-db --bench snapshot -- --quick         # 10 MB and 100 MB
//! cargo bench -p basalt-db --bench snapshot -- --mb 100,1000 --dir /mnt/nvme
//! ```
//!
//! # What it measures
//! For each table size: a table of 4 regions is loaded (10 KiB values, SKIP_WAL so the
//! load is not the log's) and then, each three times (the median printed):
//! 1. `flush`: the first snapshot's flush, timed apart (the one cost that grows with the
//!    memstore, not with the table);
//! 2. `snapshot`: taking a snapshot of the flushed table;
//! 3. `clone`: `clone_snapshot` into a new table;
//! 4. `restore`: `restore_snapshot` of the (disabled) source table.
//!
//! Time, and bytes the process wrote to storage (`write_bytes` of `/proc/self/io`, so
//! links and manifests, not file contents). The reference, measured in the same run: a
//! plain copy of the table's store files (what a copying snapshot would write), as a
//! ratio. On shared 2-core machines absolute figures swing between runs; compare the
//! ratios and the 100 MB against the 1 GB line.

use basalt_api::{Connection, PreSplit, SnapshotOptions};
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_types::{Durability, FamilyDescriptor, Put, SplitAlgorithm, TableDescriptor, TableName};
use std::path::{Path, PathBuf};
use std::time::Instant;

const VALUE_BYTES: usize = 10 * 1024;

fn parse() -> (Vec<u64>, Option<PathBuf>) {
    let mut sizes = vec![100, 1000];
    let mut dir = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => sizes = vec![10, 100],
            "--mb" => {
                let list = args.next().expect("--mb needs sizes, e.g. 100,1000");
                sizes = list
                    .split(',')
                    .map(|s| s.parse().expect("--mb: numbers"))
                    .collect();
            }
            "--dir" => dir = Some(PathBuf::from(args.next().expect("--dir needs a folder"))),
            _ => {}
        }
    }
    (sizes, dir)
}

/// Bytes this process has caused to be written to storage so far (0 where unknown).
fn written() -> u64 {
    std::fs::read_to_string("/proc/self/io")
        .ok()
        .and_then(|io| {
            io.lines()
                .find_map(|l| {
                    l.strip_prefix("write_bytes: ")
                        .map(|v| v.trim().parse().ok())
                })
                .flatten()
        })
        .unwrap_or(0)
}

/// Runs `f` and returns (seconds, bytes written).
fn measure(f: impl FnOnce()) -> (f64, u64) {
    let (bytes, start) = (written(), Instant::now());
    f();
    (
        start.elapsed().as_secs_f64(),
        written().saturating_sub(bytes),
    )
}

fn median(mut v: Vec<(f64, u64)>) -> (f64, u64) {
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    v[v.len() / 2]
}

fn hfiles(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            hfiles(&path, out);
        } else if path.extension().is_some_and(|x| x == "hfile") {
            out.push(path);
        }
    }
}

fn line(what: &str, mb: u64, (secs, bytes): (f64, u64), copy_secs: f64) {
    println!(
        "{mb:>6} MB  {what:<9} {:>9.1} ms  {:>12} bytes written  {:>7.4} x the copy",
        secs * 1000.0,
        bytes,
        secs / copy_secs
    );
}

fn run(root: &Path, mb: u64) {
    let db = Database::open(root, DbConfig::default()).expect("open");
    let conn = EmbeddedConnection::new(db);
    let admin = conn.admin();
    let name = TableName::parse("t").expect("name");
    let mut d = TableDescriptor::new(
        name.clone(),
        vec![FamilyDescriptor::new("f").expect("family")],
    );
    d.split_enabled = false;
    let split = PreSplit::Count {
        regions: 4,
        algorithm: SplitAlgorithm::HexString,
    };
    admin.create_table(&d, &split).expect("create");
    let table = conn.table(&name).expect("table");
    let rows = (mb * 1024 * 1024) as usize / VALUE_BYTES;
    let value = vec![b'x'; VALUE_BYTES];
    for chunk in (0..rows).collect::<Vec<_>>().chunks(100) {
        let puts: Vec<Put> = chunk
            .iter()
            .map(|i| {
                let mut put = Put::new(format!(
                    "{:08x}",
                    (*i as u64).wrapping_mul(0x9E37_79B9) as u32
                ))
                .add("f", "q", value.clone());
                put.durability = Durability::SkipWal;
                put
            })
            .collect();
        table.put_many(&puts).expect("load");
    }
    let flush = measure(|| admin.flush(&name).expect("flush"));
    let mut files = Vec::new();
    hfiles(&root.join("data"), &mut files);
    let copy_dir = root.join("copy");
    std::fs::create_dir_all(&copy_dir).expect("copy dir");
    let copy = measure(|| {
        for (i, f) in files.iter().enumerate() {
            std::fs::copy(f, copy_dir.join(i.to_string())).expect("copy");
        }
    });
    std::fs::remove_dir_all(&copy_dir).expect("remove the copy");
    let none = SnapshotOptions::default();
    let snap = median(
        (0..3)
            .map(|i| {
                measure(|| {
                    admin
                        .snapshot(&name, &format!("s{i}"), &none)
                        .expect("snapshot")
                })
            })
            .collect(),
    );
    let clone = median(
        (0..3)
            .map(|i| {
                let to = TableName::parse(&format!("c{i}")).expect("name");
                measure(|| admin.clone_snapshot("s0", &to).expect("clone"))
            })
            .collect(),
    );
    admin.disable_table(&name).expect("disable");
    let restore = median(
        (0..3)
            .map(|i| measure(|| admin.restore_snapshot(&format!("s{i}")).expect("restore")))
            .collect(),
    );
    line("copy", mb, copy, copy.0);
    line("flush", mb, flush, copy.0);
    line("snapshot", mb, snap, copy.0);
    line("clone", mb, clone, copy.0);
    line("restore", mb, restore, copy.0);
}

fn main() {
    let (sizes, dir) = parse();
    println!("snapshot, clone and restore against copying the table's files (medians of 3)");
    for mb in sizes {
        let tmp = match &dir {
            Some(d) => tempfile::tempdir_in(d),
            None => tempfile::tempdir(),
        }
        .expect("temp dir");
        run(tmp.path(), mb);
    }
}
