//! The simulated region servers ([`Fleet`]) and the seam the masters reach them through
//! ([`SimHosts`], the simulation's [`RegionHosts`]).
//!
//! A simulated server registers in the coordinator as a real one does (`servers/<name>`
//! under a lease kept by the real [`LeaseKeeper`]), and answers opens and closes after a
//! latency drawn from the run's seed; an open fails with the configured probability. It
//! holds no data: it only remembers which regions it has open, so that the run can check
//! that no region is ever open on two live servers at once (checked at every open) and,
//! at the end of each phase, that every region is open exactly once, where the catalog
//! says.
//!
//! A call that reached a server runs to its end on the server's side even when the master
//! that sent it dies meanwhile (a task of its own), as an RPC does. A killed server drops
//! its lease keeper (its key goes when the TTL runs out, at the coordinator) and every
//! region it held; calls to it fail.

use crate::rng::Rng;
use crate::trace::Trace;
use basalt_api::Result;
use basalt_coord::keeper::{default_margin, Clock, LeaseKeeper};
use basalt_coord::{layout, Coordinator, Op, Txn};
use basalt_master::error::io;
use basalt_master::hosts::{HostFuture, RegionHosts};
use basalt_master::servers::Servers;
use basalt_proto::pb;
use parking_lot::Mutex;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How simulated servers behave.
#[derive(Debug, Clone)]
pub struct FleetConfig {
    /// An open takes a time drawn uniformly in this range.
    pub open_latency: (Duration, Duration),
    pub close_latency: (Duration, Duration),
    /// The probability that an open fails (the region is then FAILED_OPEN).
    pub open_failure: f64,
    pub lease_ttl: Duration,
}

#[derive(Debug)]
struct SimServer {
    alive: bool,
    regions: BTreeSet<String>,
    keeper: Option<LeaseKeeper>,
}

/// Every simulated server, the seeded randomness and what was seen.
pub struct Fleet {
    config: FleetConfig,
    rng: Mutex<Rng>,
    trace: Arc<Trace>,
    clock: Clock,
    servers: Mutex<BTreeMap<String, SimServer>>,
    /// Region → the live servers holding it open (the index the checks read).
    held: Mutex<BTreeMap<String, Vec<String>>>,
    /// Region → the killed servers whose logs hold its unflushed edits: its next open
    /// must name each of them (`recover_logs`), or acknowledged writes would be lost.
    unflushed: Mutex<BTreeMap<String, BTreeSet<String>>>,
    /// Broken invariants seen while running (a region open on two live servers, or
    /// opened without a dead holder's log).
    violations: Mutex<Vec<String>>,
}

impl std::fmt::Debug for Fleet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fleet")
            .field("config", &self.config)
            .field("servers", &self.servers.lock().len())
            .finish_non_exhaustive()
    }
}

impl Fleet {
    pub fn new(config: FleetConfig, rng: Rng, trace: Arc<Trace>, clock: Clock) -> Arc<Self> {
        Arc::new(Self {
            config,
            rng: Mutex::new(rng),
            trace,
            clock,
            servers: Mutex::new(BTreeMap::new()),
            held: Mutex::new(BTreeMap::new()),
            unflushed: Mutex::new(BTreeMap::new()),
            violations: Mutex::new(Vec::new()),
        })
    }

    /// Starts server `name` (`host,port,startcode`): a lease, then its registration.
    pub async fn start_server(&self, coord: Arc<dyn Coordinator>, name: &str) -> Result<()> {
        let ttl = self.config.lease_ttl;
        let keeper = LeaseKeeper::start_on_clock(
            coord.clone(),
            ttl,
            default_margin(ttl),
            self.clock.clone(),
        )
        .await
        .map_err(|e| io(format!("{name}: no lease: {e}")))?;
        let address = name.split(',').take(2).collect::<Vec<_>>().join(":");
        let mut props = BTreeMap::new();
        props.insert("address".to_string(), address);
        props.insert("web_port".to_string(), "0".to_string());
        let txn = Txn {
            compares: vec![],
            success: vec![Op::Put {
                key: layout::server(name),
                value: basalt_db::meta::codec::encode_properties(&props),
                lease: keeper.id(),
            }],
            failure: vec![],
        };
        coord
            .txn(txn)
            .await
            .map_err(|e| io(format!("{name}: cannot register: {e}")))?;
        self.servers.lock().insert(
            name.to_string(),
            SimServer {
                alive: true,
                regions: BTreeSet::new(),
                keeper: Some(keeper),
            },
        );
        self.trace.record(format_args!("server {name} registered"));
        Ok(())
    }

    /// Kills a server: it stops keeping its lease and loses every region it held.
    /// Returns its lease keeper: dropped, the lease expires after its TTL; revoked, it
    /// ends at once.
    pub fn kill(&self, name: &str) -> Option<LeaseKeeper> {
        let mut servers = self.servers.lock();
        let mut keeper = None;
        if let Some(server) = servers.get_mut(name) {
            server.alive = false;
            keeper = server.keeper.take();
            let regions = std::mem::take(&mut server.regions);
            let mut held = self.held.lock();
            let mut unflushed = self.unflushed.lock();
            for region in &regions {
                forget(&mut held, region, name);
                unflushed
                    .entry(region.clone())
                    .or_default()
                    .insert(name.to_string());
            }
            self.trace.record(format_args!(
                "server {name} killed holding {} regions",
                regions.len()
            ));
        }
        keeper
    }

    /// The live servers' names, sorted.
    pub fn live(&self) -> Vec<String> {
        self.servers
            .lock()
            .iter()
            .filter(|(_, s)| s.alive)
            .map(|(n, _)| n.clone())
            .collect()
    }

    /// Calls `f` with the index region → the live servers holding it open.
    pub fn with_holders<R>(&self, f: impl FnOnce(&BTreeMap<String, Vec<String>>) -> R) -> R {
        f(&self.held.lock())
    }

    pub fn violations(&self) -> Vec<String> {
        self.violations.lock().clone()
    }

    fn draw(&self, range: (Duration, Duration)) -> Duration {
        self.rng.lock().between(range.0, range.1)
    }

    /// The server side of an open, once its latency passed.
    fn open(
        &self,
        server: &str,
        region: &str,
        fail: bool,
        open_seq: u64,
        recover: &[String],
    ) -> Result<()> {
        let mut servers = self.servers.lock();
        if !servers.get(server).is_some_and(|s| s.alive) {
            return Err(io(format!("region server {server} is not reachable")));
        }
        let missing: Vec<String> = self
            .unflushed
            .lock()
            .get(region)
            .map(|dead| {
                dead.iter()
                    .filter(|d| !recover.contains(d))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        if !missing.is_empty() {
            let broken = format!(
                "{region} opened on {server} without the log of dead holder(s) {missing:?}: their acknowledged edits are lost"
            );
            self.trace.record(format_args!("VIOLATION {broken}"));
            self.violations.lock().push(broken);
        }
        if fail {
            self.trace.record(format_args!(
                "open {region} on {server} seq {open_seq}: failed"
            ));
            return Err(io(format!("{server}: simulated failure opening {region}")));
        }
        let mut held = self.held.lock();
        let holders = held.entry(region.to_string()).or_default();
        let elsewhere: Vec<&String> = holders.iter().filter(|h| h.as_str() != server).collect();
        if !elsewhere.is_empty() {
            let broken = format!("{region} opened on {server} while open on {elsewhere:?}");
            self.trace.record(format_args!("VIOLATION {broken}"));
            self.violations.lock().push(broken);
        }
        if !holders.iter().any(|h| h == server) {
            holders.push(server.to_string());
        }
        if let Some(s) = servers.get_mut(server) {
            s.regions.insert(region.to_string());
        }
        // Replayed and flushed at this open: those logs are no longer needed for it.
        self.unflushed.lock().remove(region);
        self.trace
            .record(format_args!("open {region} on {server} seq {open_seq}"));
        Ok(())
    }

    /// The server side of a close.
    fn close(&self, server: &str, region: &str) -> Result<()> {
        let mut servers = self.servers.lock();
        match servers.get_mut(server) {
            Some(s) if s.alive => {
                let held = s.regions.remove(region);
                forget(&mut self.held.lock(), region, server);
                self.trace
                    .record(format_args!("close {region} on {server} (held: {held})"));
                Ok(())
            }
            _ => Err(io(format!("region server {server} is not reachable"))),
        }
    }

    fn report(&self, server: &str) -> Result<pb::ServerReport> {
        match self.servers.lock().get(server) {
            Some(s) if s.alive => Ok(pb::ServerReport::default()),
            _ => Err(io(format!("region server {server} is not reachable"))),
        }
    }
}

/// Takes `server` off the holders of `region`.
fn forget(held: &mut BTreeMap<String, Vec<String>>, region: &str, server: &str) {
    if let Some(holders) = held.get_mut(region) {
        holders.retain(|h| h != server);
        if holders.is_empty() {
            held.remove(region);
        }
    }
}

/// One master's way to the fleet; once that master is killed, every call fails at once
/// (its process is gone), while calls it already made run to their end.
#[derive(Debug)]
pub struct SimHosts {
    fleet: Arc<Fleet>,
    alive: Arc<AtomicBool>,
}

impl SimHosts {
    pub fn new(fleet: Arc<Fleet>, alive: Arc<AtomicBool>) -> Self {
        Self { fleet, alive }
    }

    fn check_alive(&self) -> Result<()> {
        match self.alive.load(Ordering::Acquire) {
            true => Ok(()),
            false => Err(io("this master process is gone".to_string())),
        }
    }
}

/// Runs `work` on the server's side after `latency`, and waits for its answer.
async fn on_server<T: Send + 'static>(
    latency: Duration,
    work: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        tokio::time::sleep(latency).await;
        let _ = tx.send(work());
    });
    rx.await
        .map_err(|_| io("the simulated call was dropped".to_string()))?
}

impl RegionHosts for SimHosts {
    fn open_region<'a>(
        &'a self,
        _servers: &'a Servers,
        server: &'a str,
        request: pb::OpenRegionRequest,
    ) -> HostFuture<'a, pb::OpenRegionResponse> {
        Box::pin(async move {
            self.check_alive()?;
            let record = basalt_db::meta::codec::decode_region(&request.record)
                .map_err(|e| io(format!("a bad region record: {e}")))?;
            let latency = self.fleet.draw(self.fleet.config.open_latency);
            let fail = self.fleet.rng.lock().chance(self.fleet.config.open_failure);
            let (fleet, server) = (self.fleet.clone(), server.to_string());
            let seq = request.open_seq;
            let recover = request.recover_logs.clone();
            on_server(latency, move || {
                fleet.open(&server, &record.encoded_name, fail, seq, &recover)
            })
            .await?;
            Ok(pb::OpenRegionResponse {
                recover_logs_needed: false,
            })
        })
    }

    fn close_region<'a>(
        &'a self,
        _servers: &'a Servers,
        server: &'a str,
        encoded: &'a str,
    ) -> HostFuture<'a, ()> {
        Box::pin(async move {
            self.check_alive()?;
            let latency = self.fleet.draw(self.fleet.config.close_latency);
            let (fleet, server, region) =
                (self.fleet.clone(), server.to_string(), encoded.to_string());
            on_server(latency, move || fleet.close(&server, &region)).await
        })
    }

    fn server_report<'a>(
        &'a self,
        _servers: &'a Servers,
        server: &'a str,
    ) -> HostFuture<'a, pb::ServerReport> {
        Box::pin(async move {
            self.check_alive()?;
            self.fleet.report(server)
        })
    }
}
