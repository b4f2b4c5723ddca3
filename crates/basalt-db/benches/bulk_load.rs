//! The parallel bulk load benchmark (issue #18): prints figures, asserts nothing.
//!
//! ```text
//! cargo bench -p basalt-db --bench bulk_load                       # 256 MB per load
//! cargo bench -p basalt-db --bench bulk_load -- --mb 64 --dir /mnt/nvme
//! ```
//!
//! # What it measures
//! The same rows (4 cells of 250-byte values each, a pre-split table of 4 regions) are
//! bulk-loaded with one writer thread and with the default (the machine's cores), three
//! times each, into two table shapes: one family (the 4 cells are 4 qualifiers), and four
//! families (one cell each). Printed: MB/s of keys and values taken in (the median of
//! three, commit included), the ratio to one writer, and the share of the device's
//! sequential write bandwidth, measured in the same run the same way (1 MiB writes of a
//! 256 MiB file, then one `fdatasync`; median of three), and the cores the load kept busy
//! (CPU seconds over wall seconds: below the writers + 1 asked for, the machine's CPU, not
//! the design, is short). On a shared machine absolute figures swing between runs:
//! compare the ratios.

use basalt_api::{Connection, PreSplit};
use basalt_db::bulk_load::BulkLoadOptions;
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_types::{FamilyDescriptor, Put, SplitAlgorithm, TableDescriptor, TableName};
use bytes::Bytes;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

const CELLS_PER_ROW: usize = 4;
const VALUE_BYTES: usize = 250;
const REGIONS: u32 = 4;

fn parse() -> (u64, Option<PathBuf>) {
    let mut mb = 256;
    let mut dir = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--mb" => {
                mb = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--mb needs a number of megabytes")
            }
            "--dir" => dir = Some(PathBuf::from(args.next().expect("--dir needs a folder"))),
            _ => {}
        }
    }
    (mb, dir)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// MB/s of writing 256 MiB in 1 MiB writes, then one fdatasync.
fn device_mb_per_s(dir: &Path) -> f64 {
    const MIB: usize = 1 << 20;
    let path = dir.join("sequential-write");
    let block = vec![0x5a_u8; MIB];
    let start = Instant::now();
    let mut file = std::fs::File::create(&path).expect("create the device test file");
    for _ in 0..256 {
        file.write_all(&block).expect("write");
    }
    file.sync_data().expect("fdatasync");
    let secs = start.elapsed().as_secs_f64();
    std::fs::remove_file(&path).expect("remove the device test file");
    256.0 * MIB as f64 / 1e6 / secs
}

/// A table of `families` families, pre-split into [`REGIONS`] regions.
fn create(conn: &EmbeddedConnection, name: &TableName, families: usize) {
    let families = (0..families)
        .map(|f| FamilyDescriptor::new(format!("f{f}")).expect("family"))
        .collect();
    let mut descriptor = TableDescriptor::new(name.clone(), families);
    descriptor.split_enabled = false;
    let split = PreSplit::Count {
        regions: REGIONS,
        algorithm: SplitAlgorithm::HexString,
    };
    conn.admin()
        .create_table(&descriptor, &split)
        .expect("create");
}

/// CPU seconds this process has used (user and system; 0 where unknown).
fn cpu_secs() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // After the command name in parentheses: state is field 3; utime, stime are 14, 15.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(vec![], |(_, rest)| rest.split_whitespace().collect());
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

/// Loads `rows` rows and returns MB/s of keys and values, and the cores kept busy (CPU
/// seconds over wall seconds).
fn load(
    db: &std::sync::Arc<Database>,
    name: &TableName,
    rows: u64,
    families: usize,
    writers: usize,
) -> (f64, f64) {
    let value = Bytes::from(vec![b'v'; VALUE_BYTES]);
    let family: Vec<Bytes> = (0..CELLS_PER_ROW)
        .map(|c| Bytes::from(format!("f{}", c % families)))
        .collect();
    let qualifier: Vec<Bytes> = (0..CELLS_PER_ROW)
        .map(|c| Bytes::from(format!("q{c}")))
        .collect();
    let options = BulkLoadOptions {
        parallelism: writers,
        ..BulkLoadOptions::default()
    };
    let (start, cpu) = (Instant::now(), cpu_secs());
    let mut loader = db.bulk_loader(name, options).expect("loader");
    for i in 0..rows {
        // Hex keys spread evenly over the HexString split points.
        let key = i * (u64::from(u32::MAX) / rows);
        let mut put = Put::new(format!("{key:08x}{i:08}"));
        for c in 0..CELLS_PER_ROW {
            put = put.add(family[c].clone(), qualifier[c].clone(), value.clone());
        }
        loader.add(put).expect("row");
    }
    let counts = loader.commit().expect("commit");
    let secs = start.elapsed().as_secs_f64();
    (counts.bytes as f64 / 1e6 / secs, (cpu_secs() - cpu) / secs)
}

fn main() {
    let (mb, dir) = parse();
    let tmp = match &dir {
        Some(d) => tempfile::tempdir_in(d),
        None => tempfile::tempdir(),
    }
    .expect("temp dir");
    let default = BulkLoadOptions::default().parallelism;
    let row_bytes = (CELLS_PER_ROW * (VALUE_BYTES + 2 + 2 + 16)) as u64;
    let rows = mb * 1_000_000 / row_bytes;
    let mut config = DbConfig::default();
    config.storage.compaction_min_files = 1000;
    let db = Database::open(&tmp.path().join("db"), config).expect("open");
    let conn = EmbeddedConnection::new(db.clone());
    let device = median((0..3).map(|_| device_mb_per_s(tmp.path())).collect());
    println!(
        "bulk load of {mb} MB ({rows} rows), 1 writer against {default} (default); medians of 3"
    );
    println!("device sequential write (1 MiB writes, one fdatasync): {device:.0} MB/s");
    let mut n = 0;
    for families in [1, CELLS_PER_ROW] {
        let mut one = 0.0;
        for writers in [1, default] {
            let runs = (0..3)
                .map(|_| {
                    n += 1;
                    let name = TableName::parse(&format!("t{n}")).expect("name");
                    create(&conn, &name, families);
                    let measured = load(&db, &name, rows, families, writers);
                    let admin = conn.admin();
                    admin.disable_table(&name).expect("disable");
                    admin.delete_table(&name).expect("drop");
                    measured
                })
                .collect::<Vec<_>>();
            let (runs, cores): (Vec<f64>, Vec<f64>) = runs.into_iter().unzip();
            let (mb_per_s, cores) = (median(runs), median(cores));
            if writers == 1 {
                one = mb_per_s;
            }
            println!(
                "{families} famil{:<3} {writers:>2} writer(s): {mb_per_s:>7.1} MB/s  {:>5.2}x one writer  {:>4.0}% of sequential write  {cores:.2} cores busy",
                if families == 1 { "y" } else { "ies" },
                mb_per_s / one,
                100.0 * mb_per_s / device
            );
        }
    }
    db.close().expect("close");
}
