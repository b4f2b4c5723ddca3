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
//!
//! Write throughput during recovery: `--writers` (4) client threads, each with its own
//! connection, overwrite one 100-byte cell (`f:w`) of rows spread over every region, from
//! the first kill's load to the end. They write to the killed server's regions, so a
//! write waits while its region is down; the client retries with a short backoff (25 ms
//! to 250 ms, up to 1,000 retries) so the figure is the cluster's, not the client's
//! pauses. Each kill waits 3 s after the fresh server is up, then reports acknowledged
//! writes per second in those 3 s, in the recovery window (kill to every region open),
//! their ratio, and the longest pause between two acknowledged writes from the 3 s before
//! the kill to the first write acknowledged after recovery (the writes' outage).
//!
//! Writes on the surviving servers: a bystander region server (`--bystander-regions`, 4;
//! 0 = none) holds a second table, and `--writers` more threads write to it throughout.
//! The balancer is switched off and the bystander is decommissioned (without offload) once
//! its regions are on it, so the dead server's regions all go to the fresh server and the
//! bystander's writes show what a recovery costs the rest of the cluster.

use basalt_api::{Connection, PreSplit, RegionState};
use basalt_client::{ClientConfig, RemoteConnection};
use basalt_types::{FamilyDescriptor, Get, Put, TableDescriptor, TableName};
use bytes::Bytes;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long the writers run steadily before each kill: the "before" window.
const STEADY: Duration = Duration::from_secs(3);

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
    /// Where each region server's stderr goes (`rs-HOST.err`), if anywhere.
    log_dir: Option<String>,
    /// The region servers' log level (`--server-log`, warn).
    log_level: String,
}

/// A region server process, killed when dropped (so a failed run leaves none behind).
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A region server on `host`, once it printed its ready line; its name.
fn start_server(s: &Settings, host: &str) -> Result<(Server, String), Error> {
    let stderr = match &s.log_dir {
        Some(dir) => Stdio::from(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(format!("{dir}/rs-{host}.err"))?,
        ),
        None => Stdio::null(),
    };
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
            &s.log_level,
        ])
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    for line in BufReader::new(stdout).lines() {
        let line = line?;
        if let Some(rest) = line.strip_prefix("basalt regionserver ") {
            let name = rest.split(" listening on ").next().unwrap_or_default();
            return Ok((Server(child), name.to_string()));
        }
    }
    let _ = Server(child);
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

/// Client threads writing steadily to the table; the time of every acknowledged write.
struct Writer {
    stop: Arc<AtomicBool>,
    acks: Arc<Mutex<Vec<Instant>>>,
    failed: Arc<AtomicU64>,
    threads: Vec<JoinHandle<()>>,
}

impl Writer {
    fn start(address: &str, name: &TableName, rows: u64, threads: u64) -> Result<Self, Error> {
        let config = ClientConfig {
            backoff_base: Duration::from_millis(25),
            backoff_max: Duration::from_millis(250),
            retries_max: 1000,
            ..ClientConfig::default()
        };
        let stop = Arc::new(AtomicBool::new(false));
        let acks = Arc::new(Mutex::new(Vec::new()));
        let failed = Arc::new(AtomicU64::new(0));
        let mut handles = Vec::new();
        for t in 0..threads {
            let conn = RemoteConnection::connect_with(address, config.clone())?;
            let table = conn.table(name)?;
            let (stop, acks, failed) = (stop.clone(), acks.clone(), failed.clone());
            let value = Bytes::from(vec![b'w'; 100]);
            handles.push(std::thread::spawn(move || {
                let _conn = conn;
                // xorshift: rows spread over every region, a different sequence per thread.
                let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ (t + 1);
                while !stop.load(Ordering::Relaxed) {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let put = Put::new(row(x % rows)).add(&b"f"[..], &b"w"[..], value.clone());
                    match table.put(&put) {
                        Ok(()) => acks
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .push(Instant::now()),
                        Err(e) => {
                            if failed.fetch_add(1, Ordering::Relaxed) == 0 {
                                eprintln!("writer {t}: a write failed: {e}");
                            }
                        }
                    }
                }
            }));
        }
        Ok(Self {
            stop,
            acks,
            failed,
            threads: handles,
        })
    }

    /// Whether a write was acknowledged after `at`.
    fn acked_after(&self, at: Instant) -> bool {
        let acks = self.acks.lock().unwrap_or_else(PoisonError::into_inner);
        acks.iter().rev().take(64).any(|&a| a > at)
    }

    /// Writes/s before `killed` (the steady window), writes/s from `killed` to `done`,
    /// and the longest pause between two acknowledged writes from the steady window's
    /// start to the first write acknowledged after `done`.
    fn around(&self, killed: Instant, done: Instant) -> (f64, f64, f64) {
        let acks = self.acks.lock().unwrap_or_else(PoisonError::into_inner);
        let from = killed - STEADY;
        let before = acks.iter().filter(|&&a| a >= from && a < killed).count();
        let during = acks.iter().filter(|&&a| a >= killed && a <= done).count();
        let mut times: Vec<Instant> = acks.iter().copied().filter(|&a| a >= from).collect();
        times.sort();
        let end = times
            .iter()
            .position(|&a| a > done)
            .map_or(times.len(), |i| i + 1);
        let pause = times[..end]
            .windows(2)
            .map(|w| (w[1] - w[0]).as_secs_f64())
            .fold(0.0, f64::max);
        let window = (done - killed).as_secs_f64();
        (
            before as f64 / STEADY.as_secs_f64(),
            during as f64 / window,
            pause,
        )
    }

    fn stop(self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads {
            let _ = t.join();
        }
        self.failed.load(Ordering::Relaxed)
    }
}

/// (p50, max) of `values`, sorted in place.
fn p50_max(values: &mut [f64]) -> (f64, f64) {
    values.sort_by(f64::total_cmp);
    let p50 = values[(values.len() - 1) / 2];
    (p50, values.last().copied().unwrap_or(0.0))
}

/// A region server holding every region of a second table of `regions` regions, kept out
/// of the recovery (balancer off, decommissioned without offload); its server and table.
fn start_bystander(
    settings: &Settings,
    conn: &RemoteConnection,
    regions: u64,
    rows: u64,
) -> Result<(Server, TableName), Error> {
    let admin = conn.admin();
    admin.balance_switch(false)?;
    let (server, server_name) = start_server(settings, "127.0.0.250")?;
    let name = TableName::parse("bystander")?;
    let splits = (1..regions).map(|i| row(i * rows / regions)).collect();
    let family = FamilyDescriptor::new(Bytes::from_static(b"f"))?;
    admin.create_table(
        &TableDescriptor::new(name.clone(), vec![family]),
        &PreSplit::Keys(splits),
    )?;
    for region in admin.list_regions(&name)? {
        if region.server != server_name {
            admin.move_region(&region.region_name, Some(&server_name))?;
        }
    }
    wait_until(Duration::from_secs(60), || {
        admin.list_regions(&name).is_ok_and(|list| {
            list.iter()
                .all(|r| r.server == server_name && r.state == RegionState::Open)
        })
    })?;
    admin.decommission_region_servers(std::slice::from_ref(&server_name), false)?;
    Ok((server, name))
}

fn main() -> Result<(), Error> {
    let settings = Settings {
        basalt: arg("--basalt", "target/release/basalt"),
        coordinator: arg("--coordinator", ""),
        prefix: arg("--prefix", "/recovery/"),
        store: arg("--store", ""),
        log_dir: Some(arg("--log-dir", "")).filter(|d| !d.is_empty()),
        log_level: arg("--server-log", "warn"),
    };
    let regions: u64 = arg("--regions", "10").parse()?;
    let mb: u64 = arg("--unflushed-mb", "64").parse()?;
    let kills: usize = arg("--kills", "10").parse()?;
    let writers: u64 = arg("--writers", "4").parse()?;
    let bystander_regions: u64 = arg("--bystander-regions", "4").parse()?;
    let rows = mb * 1024;
    let (mut holder, mut holder_name) = start_server(&settings, "127.0.0.2")?;
    let address = arg("--connect", "127.0.0.1:16000");
    let conn = RemoteConnection::connect(&address)?;
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
    let bystander = match bystander_regions {
        0 => None,
        n => {
            let (server, table) = start_bystander(&settings, &conn, n, rows)?;
            Some((server, Writer::start(&address, &table, rows, writers)?))
        }
    };
    let writer = Writer::start(&address, &name, rows, writers)?;
    let mut others = Vec::with_capacity(kills);
    let mut took = Vec::with_capacity(kills);
    let (mut before, mut during, mut ratio, mut pauses) = (vec![], vec![], vec![], vec![]);
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
        std::thread::sleep(STEADY);
        let killed = Instant::now();
        let killed_at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        holder.0.kill()?;
        let _ = holder.0.wait();
        wait_until(Duration::from_secs(300), || {
            admin.list_regions(&name).is_ok_and(|list| {
                list.len() as u64 == regions
                    && list
                        .iter()
                        .all(|r| r.server == fresh_name && r.state == RegionState::Open)
            })
        })?;
        let done = Instant::now();
        let seconds = (done - killed).as_secs_f64();
        for i in 0..regions {
            let got = table.get(&Get::new(row(i * rows / regions)))?;
            if got.value(b"f", b"q") != Some(&value) {
                return Err(format!("region {i} lost its rows after kill {kill}").into());
            }
        }
        eprintln!("kill {kill}: {holder_name} → {fresh_name}: {seconds:.2} s (killed at {killed_at} ms since the epoch)");
        let _ = wait_until(Duration::from_secs(30), || writer.acked_after(done));
        let (rate_before, rate_during, pause) = writer.around(killed, done);
        eprintln!(
            "kill {kill}: writes {rate_before:.0}/s before, {rate_during:.0}/s during recovery ({:.2}), longest pause {pause:.2} s",
            rate_during / rate_before
        );
        if let Some((_, other)) = &bystander {
            let (rate_before, rate_during, pause) = other.around(killed, done);
            eprintln!(
                "kill {kill}: bystander writes {rate_before:.0}/s before, {rate_during:.0}/s during recovery ({:.2}), longest pause {pause:.2} s",
                rate_during / rate_before
            );
            others.push(rate_during / rate_before);
        }
        took.push(seconds);
        before.push(rate_before);
        during.push(rate_during);
        ratio.push(rate_during / rate_before);
        pauses.push(pause);
        (holder, holder_name) = (fresh, fresh_name);
    }
    let failed = writer.stop();
    if let Some((server, other)) = bystander {
        let failed = other.stop();
        drop(server);
        let (p50, _) = p50_max(&mut others);
        let min = others[0];
        println!(
            "bystander writes during recovery ({regions} regions, {mb} MiB unflushed, {kills} kills, {writers} writers on another server): during/before p50 {p50:.2}, worst {min:.2}; {failed} writes failed"
        );
    }
    drop(holder);
    let (p50, max) = p50_max(&mut took);
    println!(
        "recovery after kill -9 ({regions} regions, {mb} MiB unflushed, {kills} kills): p50 {p50:.2} s, max {max:.2} s (lease TTL included)"
    );
    let ((before, _), (during, _)) = (p50_max(&mut before), p50_max(&mut during));
    let ((ratio, _), (pause_p50, pause_max)) = (p50_max(&mut ratio), p50_max(&mut pauses));
    println!(
        "writes during recovery ({regions} regions, {mb} MiB unflushed, {kills} kills, {writers} writers): p50 {before:.0}/s in the {} s before the kill, p50 {during:.0}/s from the kill to every region open, ratio p50 {ratio:.2}; longest pause in acknowledged writes p50 {pause_p50:.2} s, max {pause_max:.2} s; {failed} writes failed",
        STEADY.as_secs()
    );
    Ok(())
}
