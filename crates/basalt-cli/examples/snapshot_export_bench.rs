//! Export throughput of `basalt snapshot export` against the target's raw write bandwidth,
//! both measured in the same run: a table of `--mb` MiB in an embedded database, flushed
//! into `--files` files and snapshotted, then (three rounds each, medians) the snapshot's
//! files exported to a fresh location under `--to`, and the same number of objects of the
//! same sizes written there straight with the store's put (no reads, no checks).
//!
//!     cargo run --release -p basalt-cli --example snapshot_export_bench -- --mb 256 --files 8 \
//!         [--to file:///tmp/bench | --to s3://bucket/prefix --endpoint http://host:port]

use basalt_api::{Connection, PreSplit, SnapshotOptions};
use basalt_cli::export::target::Target;
use basalt_cli::snapshot::{export, ExportSnapshotArgs, Home};
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_types::{FamilyDescriptor, Put, TableDescriptor, TableName};
use std::time::Instant;

fn arg(name: &str, default: &str) -> String {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
        .unwrap_or_else(|| default.to_string())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mb: u64 = arg("--mb", "256").parse()?;
    let files: u64 = arg("--files", "8").parse()?;
    let scratch = tempfile::tempdir()?;
    let default_to = format!("file://{}", scratch.path().join("out").display());
    let to = arg("--to", &default_to);
    let endpoint = std::env::args()
        .any(|a| a == "--endpoint")
        .then(|| arg("--endpoint", ""));
    let data = scratch.path().join("data");
    std::fs::create_dir_all(&data)?;

    let db = Database::open(&data, DbConfig::default())?;
    let conn = EmbeddedConnection::new(db.clone());
    let table = TableName::parse("bench")?;
    let family = FamilyDescriptor::new("f")?;
    conn.admin().create_table(
        &TableDescriptor::new(table.clone(), vec![family]),
        &PreSplit::Keys(vec![]),
    )?;
    let t = conn.table(&table)?;
    let value = vec![b'v'; 4000];
    let rows_per_file = (mb << 20) / files / 4096;
    let mut row = 0u64;
    for _ in 0..files {
        for chunk in (0..rows_per_file).collect::<Vec<_>>().chunks(1000) {
            let puts: Vec<Put> = chunk
                .iter()
                .map(|_| {
                    row += 1;
                    Put::new(format!("r{row:012}")).add("f", "q", value.clone())
                })
                .collect();
            t.put_many(&puts)?;
        }
        conn.admin().flush(&table)?;
    }
    conn.admin()
        .snapshot(&table, "s", &SnapshotOptions::default())?;
    let manifest = basalt_db::snapshot::read(&db, "s")?;
    let sizes: Vec<u64> = manifest
        .regions
        .iter()
        .flat_map(|r| &r.families)
        .flat_map(|f| &f.files)
        .map(|(_, size)| *size)
        .collect();
    let total: u64 = sizes.iter().sum();
    db.close()?;
    let total_mb = total as f64 / 1_048_576.0;

    let (mut raw, mut exported) = (Vec::new(), Vec::new());
    for round in 0..3 {
        let here = format!("{}/raw{round}", to.trim_end_matches('/'));
        let target = Target::open(&here, endpoint.as_deref(), true)?;
        let started = Instant::now();
        for (i, size) in sizes.iter().enumerate() {
            target.put(&format!("f{i}"), vec![b'x'; *size as usize])?;
        }
        raw.push(total_mb / started.elapsed().as_secs_f64());

        let args = ExportSnapshotArgs {
            home: Home {
                data_dir: Some(data.clone()),
                store: None,
                store_endpoint: endpoint.clone(),
                log: "warn".into(),
            },
            snapshot: "s".into(),
            to: format!("{}/export{round}", to.trim_end_matches('/')),
            to_endpoint: None,
        };
        let started = Instant::now();
        export::export(&args)?;
        exported.push(total_mb / started.elapsed().as_secs_f64());
    }
    let (raw, exported) = (median(raw), median(exported));
    println!(
        "snapshot export of {total_mb:.0} MiB in {} files to {to}: {exported:.0} MB/s; raw puts \
         of the same objects: {raw:.0} MB/s; ratio {:.2} (medians of 3)",
        sizes.len(),
        exported / raw
    );
    Ok(())
}
