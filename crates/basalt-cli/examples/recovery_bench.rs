//! Times crash recovery: from a region server's kill -9 to every one of its regions
//! serving again on another server, with `--unflushed-mb` MiB of acknowledged edits only
//! in its log (so their replay is measured, not skipped). A benchmark, run by
//! `scripts/bench-cluster.sh recovery`; prints p50 and max over `--kills` kills.
//!
//!     cargo run --release -p basalt-cli --example recovery_bench -- --basalt target/release/basalt \
//!         --connect MASTER --coordinator etcd://… --prefix /p/ --store file:///… \
//!         --regions 100 --unflushed-mb 64 --kills 10
//!
//! One region server holds every region of the table. Each kill: rows over all regions are
//! overwritten with `--unflushed-mb` MiB of 1 KiB values (never flushed), a fresh server
//! starts, the holder is killed, and the clock runs until the master reports every region
//! open on the fresh server; then one row of each region is read back (not timed). The
//! fresh server holds everything for the next kill. The time includes noticing the death:
//! the lease's TTL (6 s by default) runs out first.

use basalt_api::{Connection, PreSplit, RegionState};
use basalt_client::RemoteConnection;
use basalt_types::{FamilyDescriptor, Get, Put, TableDescriptor, TableName};
use bytes::Bytes;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

type Error = Box<dyn std::error::Error>;

fn arg(name: &str, default: &str) -> String {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
        .unwrap_or_else(|| default.to_string())
}

struct Settings {
    basalt: String,
    coordinator: String,
    prefix: String,
    store: String,
}

/// A region server on `host`, once it printed its ready line; its name.
fn start_server(s: &Settings, host: &str) -> Result<(Child, String), Error> {
    let mut child = Command::new(&s.basalt)
        .args(["regionserver", "--coordinator", &s.coordinator])
        .args(["--cluster-prefix", &s.prefix, "--store", &s.store])
        .args([
            "--bind",
            host,
            "--port",
            "0",
            "--web-port",
            "0",
            "--log",
            "warn",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    for line in BufReader::new(stdout).lines() {
        let line = line?;
        if let Some(rest) = line.strip_prefix("basalt regionserver ") {
            let name = rest.split(" listening on ").next().unwrap_or_default();
            return Ok((child, name.to_string()));
        }
    }
    Err(format!("the region server on {host} exited before it was ready").into())
}

fn wait_until(limit: Duration, mut done: impl FnMut() -> bool) -> Result<(), Error> {
    let deadline = Instant::now() + limit;
    while !done() {
        if Instant::now() > deadline {
            return Err("gave up waiting".into());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Ok(())
}

fn row(i: u64) -> Bytes {
    Bytes::from(format!("r{i:08}"))
}

fn main() -> Result<(), Error> {
    let settings = Settings {
        basalt: arg("--basalt", "target/release/basalt"),
        coordinator: arg("--coordinator", ""),
        prefix: arg("--prefix", "/recovery/"),
        store: arg("--store", ""),
    };
    let regions: u64 = arg("--regions", "10").parse()?;
    let mb: u64 = arg("--unflushed-mb", "64").parse()?;
    let kills: usize = arg("--kills", "10").parse()?;
    let rows = mb * 1024;
    let (mut holder, mut holder_name) = start_server(&settings, "127.0.0.2")?;
    let conn = RemoteConnection::connect(&arg("--connect", "127.0.0.1:16000"))?;
    let admin = conn.admin();
    let name = TableName::parse("recovery")?;
    let splits = (1..regions).map(|i| row(i * rows / regions)).collect();
    let family = FamilyDescriptor::new(Bytes::from_static(b"f"))?;
    admin.create_table(
        &TableDescriptor::new(name.clone(), vec![family]),
        &PreSplit::Keys(splits),
    )?;
    let table = conn.table(&name)?;
    let value = Bytes::from(vec![b'x'; 1024]);
    let mut took = Vec::with_capacity(kills);
    for kill in 0..kills {
        // Overwrite every row: `mb` MiB only in the holder's memstores and log.
        for chunk in (0..rows).collect::<Vec<_>>().chunks(1000) {
            let puts: Vec<Put> = chunk
                .iter()
                .map(|&i| Put::new(row(i)).add(&b"f"[..], &b"q"[..], value.clone()))
                .collect();
            table.put_many(&puts)?;
        }
        let host = format!("127.0.0.{}", 3 + kill % 200);
        let (fresh, fresh_name) = start_server(&settings, &host)?;
        wait_until(Duration::from_secs(30), || {
            admin
                .cluster_status()
                .ok()
                .flatten()
                .is_some_and(|s| s.servers.iter().any(|s| s.name == fresh_name))
        })?;
        let killed = Instant::now();
        holder.kill()?;
        let _ = holder.wait();
        wait_until(Duration::from_secs(300), || {
            admin.list_regions(&name).is_ok_and(|list| {
                list.len() as u64 == regions
                    && list
                        .iter()
                        .all(|r| r.server == fresh_name && r.state == RegionState::Open)
            })
        })?;
        let seconds = killed.elapsed().as_secs_f64();
        for i in 0..regions {
            let got = table.get(&Get::new(row(i * rows / regions)))?;
            if got.value(b"f", b"q") != Some(&value) {
                return Err(format!("region {i} lost its rows after kill {kill}").into());
            }
        }
        eprintln!("kill {kill}: {holder_name} → {fresh_name}: {seconds:.2} s");
        took.push(seconds);
        (holder, holder_name) = (fresh, fresh_name);
    }
    let _ = holder.kill();
    let _ = holder.wait();
    took.sort_by(f64::total_cmp);
    let p50 = took[(took.len() - 1) / 2];
    let max = took.last().copied().unwrap_or(0.0);
    println!(
        "recovery after kill -9 ({regions} regions, {mb} MiB unflushed, {kills} kills): p50 {p50:.2} s, max {max:.2} s (lease TTL included)"
    );
    Ok(())
}
