//! [`Cluster`]: the masters (the real [`Master`], its real election and leadership loop,
//! [`campaign_and_lead`]), the simulated region servers, and the one in-process
//! coordinator they share, all on the simulation's runtime; and the checks a run makes
//! ([`Cluster::converged`]).

use crate::counting::{Counting, Role, Stats};
use crate::fleet::{Fleet, SimHosts};
use crate::rng::Rng;
use crate::trace::Trace;
use basalt_api::PreSplit;
use basalt_coord::boot_clock::BootInstant;
use basalt_coord::keeper::{default_margin, Clock, LeaseKeeper};
use basalt_coord::{layout, Coordinator, LocalCoordinator, Op, Txn};
use basalt_master::catalog::{AssignState, Catalog};
use basalt_master::hosts::Surroundings;
use basalt_master::run::campaign_and_lead;
use basalt_master::{Master, MasterConfig};
use basalt_types::descriptor::{FamilyDescriptor, TableDescriptor};
use basalt_types::split::SplitAlgorithm;
use basalt_types::TableName;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;

/// The table every run creates.
pub const TABLE: &str = "usertable";
/// The wall clock masters read starts here (ms since the epoch); it moves with simulated
/// time, so region ids (and so region names) are the same on every run.
const EPOCH_MS: u64 = 1_700_000_000_000;

struct SimMaster {
    name: String,
    master: Arc<Master>,
    alive: Arc<AtomicBool>,
    task: JoinHandle<()>,
}

pub struct Cluster {
    pub trace: Arc<Trace>,
    pub stats: Arc<Stats>,
    /// The coordinator itself, uncounted: what the checks read.
    pub store: LocalCoordinator,
    pub fleet: Arc<Fleet>,
    masters_coord: Arc<dyn Coordinator>,
    servers_coord: Arc<dyn Coordinator>,
    masters: Vec<SimMaster>,
    clock: Clock,
    config: MasterConfig,
    rng: Rng,
}

/// A region server's name in the simulation.
pub fn server_name(i: usize) -> String {
    format!("rs{i:04}.sim,16020,1")
}

impl Cluster {
    /// An empty coordinator holding the cluster id (from the seed, so that no master draws
    /// one), and a fleet of no servers yet.
    pub async fn new(
        seed: u64,
        config: MasterConfig,
        fleet: crate::fleet::FleetConfig,
        trace: Arc<Trace>,
    ) -> Self {
        let store = LocalCoordinator::new();
        let id = Txn {
            compares: vec![],
            success: vec![Op::put(layout::CLUSTER_ID, format!("{seed:032x}"))],
            failure: vec![],
        };
        // The in-process coordinator in memory cannot refuse a small put.
        let _ = store.txn(id).await;
        let stats = Arc::new(Stats::default());
        let inner: Arc<dyn Coordinator> = Arc::new(store.clone());
        let start = tokio::time::Instant::now();
        let clock: Clock = Arc::new(move || BootInstant::from_since_boot(start.elapsed()));
        let mut rng = Rng::new(seed);
        let fleet_rng = Rng::new(rng.next_u64());
        Self {
            fleet: Fleet::new(fleet, fleet_rng, trace.clone(), clock.clone()),
            trace,
            masters_coord: Arc::new(Counting::new(inner.clone(), stats.clone(), Role::Masters)),
            servers_coord: Arc::new(Counting::new(inner, stats.clone(), Role::Servers)),
            stats,
            store,
            masters: Vec::new(),
            clock,
            config,
            rng,
        }
    }

    /// Starts a master: its lease, then its campaign and leadership, as a process would.
    pub async fn start_master(&mut self) -> Result<(), String> {
        let name = format!("master{}.sim:16000", self.masters.len());
        let alive = Arc::new(AtomicBool::new(true));
        let surroundings = Surroundings {
            hosts: Arc::new(SimHosts::new(self.fleet.clone(), alive.clone())),
            wall_clock: {
                let clock = self.clock.clone();
                let origin = BootInstant::from_since_boot(Duration::ZERO);
                Arc::new(move || {
                    let ms = clock().saturating_duration_since(origin).as_millis();
                    EPOCH_MS + u64::try_from(ms).unwrap_or(0)
                })
            },
        };
        let master = Master::with_surroundings(
            self.config.clone(),
            self.masters_coord.clone(),
            Arc::new(basalt_storage::fs::LocalFs),
            name.clone(),
            tokio::runtime::Handle::current(),
            surroundings,
        );
        let ttl = self.config.lease_ttl;
        let keeper = LeaseKeeper::start_on_clock(
            self.masters_coord.clone(),
            ttl,
            default_margin(ttl),
            self.clock.clone(),
        )
        .await
        .map_err(|e| format!("{name}: no lease: {e}"))?;
        let (led, trace, who) = (master.clone(), self.trace.clone(), name.clone());
        let task = tokio::spawn(async move {
            let ended = campaign_and_lead(&led, &keeper).await;
            trace.record(format_args!("master {who} ended: {ended:?}"));
        });
        self.trace.record(format_args!("master {name} started"));
        self.masters.push(SimMaster {
            name,
            master,
            alive,
            task,
        });
        Ok(())
    }

    /// Kills the active master (its process: calls, leadership and lease keeping stop);
    /// its name.
    pub fn kill_active_master(&mut self) -> Option<String> {
        let index = self.active_index()?;
        let m = &self.masters[index];
        m.alive.store(false, Ordering::Release);
        m.task.abort();
        m.master.stand_down("killed by the simulation");
        self.trace.record(format_args!("master {} killed", m.name));
        Some(m.name.clone())
    }

    fn active_index(&self) -> Option<usize> {
        let active: Vec<usize> = (0..self.masters.len())
            .filter(|&i| self.masters[i].alive.load(Ordering::Acquire))
            .filter(|&i| self.masters[i].master.is_active())
            .collect();
        match active.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }

    /// The one active master (None while there is none, or more than one).
    pub fn active(&self) -> Option<Arc<Master>> {
        self.active_index().map(|i| self.masters[i].master.clone())
    }

    /// Starts `count` region servers, each after a delay drawn in `[0, spread)`, and
    /// returns once all have registered.
    pub async fn start_servers(&mut self, count: usize, spread: Duration) -> Result<(), String> {
        let mut tasks = tokio::task::JoinSet::new();
        for i in 0..count {
            let delay = self.rng.between(Duration::ZERO, spread);
            let (fleet, coord) = (self.fleet.clone(), self.servers_coord.clone());
            tasks.spawn(async move {
                tokio::time::sleep(delay).await;
                fleet.start_server(coord, &server_name(i)).await
            });
        }
        while let Some(done) = tasks.join_next().await {
            done.map_err(|e| e.to_string())?
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// Kills `fraction` of the live servers at once, drawn from the seed; their names.
    /// Kills `fraction` of the live servers at once. Their leases end together (revoked
    /// back to back), as they do when etcd comes back from a lost quorum and a new leader
    /// refreshes every lease: the master hears of all their deaths in one burst.
    pub async fn kill_servers(&mut self, fraction: f64) -> Vec<String> {
        let mut live = self.fleet.live();
        let count = ((live.len() as f64) * fraction).round() as usize;
        let mut killed = Vec::new();
        for _ in 0..count.min(live.len()) {
            let pick = self.rng.below(live.len() as u64) as usize;
            killed.push(live.swap_remove(pick));
        }
        killed.sort();
        let keepers: Vec<_> = killed
            .iter()
            .filter_map(|name| self.fleet.kill(name))
            .collect();
        for keeper in keepers {
            let _ = keeper.revoke().await;
        }
        killed
    }

    /// Creates the table of `regions` regions through the active master (a client's
    /// `create`); its answer (an open may fail: the balancer tries it again).
    pub async fn create_table(&self, regions: u32) -> Result<(), String> {
        let master = self.active().ok_or("no active master")?;
        let family = FamilyDescriptor::new("f").map_err(|e| e.to_string())?;
        let name = TableName::parse(TABLE).map_err(|e| e.to_string())?;
        let descriptor = TableDescriptor::new(name, vec![family]);
        let split = match regions {
            0 | 1 => PreSplit::None,
            n => PreSplit::Count {
                regions: n,
                algorithm: SplitAlgorithm::HexString,
            },
        };
        master
            .create_table(&descriptor, &split)
            .await
            .map_err(|e| e.to_string())
    }

    /// Waits (checking every `every`) until [`Cluster::converged`] holds, for at most
    /// `limit`; how long it took.
    pub async fn wait_converged(
        &self,
        regions: usize,
        every: Duration,
        limit: Duration,
    ) -> Result<Duration, String> {
        let start = tokio::time::Instant::now();
        loop {
            let outcome = self.converged(regions);
            if outcome.is_ok() {
                return Ok(start.elapsed());
            }
            if start.elapsed() >= limit {
                return Err(format!(
                    "not converged after {limit:?}: {}",
                    outcome.err().unwrap_or_default()
                ));
            }
            tokio::time::sleep(every).await;
        }
    }

    /// Whether the cluster has settled: one active master, nothing in transition, every
    /// serving region of the table OPEN in its catalog on a live server that holds it, and
    /// held by no other live server, and no server holding a region the catalog does not
    /// place there. Why not, when not.
    pub fn converged(&self, regions: usize) -> Result<(), String> {
        let master = self.active().ok_or("no single active master")?;
        let moving = master.in_transition.lock().len();
        if moving > 0 {
            return Err(format!("{moving} regions in transition"));
        }
        let live: std::collections::BTreeSet<String> = self.fleet.live().into_iter().collect();
        let catalog = master.catalog.read();
        let table = TableName::parse(TABLE).map_err(|e| e.to_string())?;
        let serving = catalog.serving(&table);
        if serving.len() != regions {
            return Err(format!("{} regions of {regions} exist", serving.len()));
        }
        let not_open = serving
            .iter()
            .filter(|r| {
                catalog.assign.get(&r.encoded_name).is_none_or(|a| {
                    a.state != AssignState::Open
                        || a.server.as_ref().is_none_or(|s| !live.contains(s))
                })
            })
            .count();
        if not_open > 0 {
            return Err(format!("{not_open} regions not open on a live server"));
        }
        self.fleet.with_holders(|holders| {
            for region in &serving {
                let server = catalog
                    .assign
                    .get(&region.encoded_name)
                    .and_then(|a| a.server.as_ref());
                let held = holders.get(&region.encoded_name);
                if held.is_none_or(|h| h.len() != 1 || h.first() != server) {
                    return Err(format!(
                        "{} is OPEN on {server:?} in the catalog but held by {held:?}",
                        region.encoded_name
                    ));
                }
            }
            if holders.len() != serving.len() {
                return Err(format!(
                    "servers hold {} regions, the catalog places {}",
                    holders.len(),
                    serving.len()
                ));
            }
            Ok(())
        })
    }

    /// The catalog the coordinator holds agrees with the active master's: every assignment
    /// the same. (The master writes the coordinator first; this shows nothing was left
    /// only in memory.)
    pub async fn check_stored_catalog(&self) -> Result<(), String> {
        let master = self.active().ok_or("no single active master")?;
        let stored = Catalog::load(&self.store)
            .await
            .map_err(|e| e.to_string())?;
        let memory = master.catalog.read();
        if stored.assign != memory.assign {
            let differ = memory
                .assign
                .iter()
                .filter(|(k, v)| stored.assign.get(*k) != Some(v))
                .count();
            return Err(format!(
                "{differ} assignments in the master's memory differ from the coordinator's"
            ));
        }
        Ok(())
    }

    /// Keys and bytes (keys plus values) the coordinator stores now, and its revision.
    pub async fn stored(&self) -> (u64, u64, i64) {
        let listing = self.store.list(b"").await.unwrap_or_default();
        let bytes: usize = listing
            .kvs
            .iter()
            .map(|kv| kv.key.len() + kv.value.len())
            .sum();
        (listing.kvs.len() as u64, bytes as u64, listing.revision)
    }
}
