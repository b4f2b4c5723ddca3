//! [`Scenario`] and [`run`]: one seeded run through the phases every run goes through,
//! and its [`Report`].
//!
//! | phase     | what happens                                   | done when                |
//! |-----------|------------------------------------------------|--------------------------|
//! | start     | masters start, region servers register         | one master active, every server listed |
//! | create    | a table of `regions` regions is created        | converged                |
//! | steady    | nothing (the balancer and split checks run)    | `steady` has passed      |
//! | failover  | the active master is killed                    | converged under another  |
//! | lose      | `lost_fraction` of the servers killed at once, their leases ending together | converged on the rest, every region opened with its dead holder's log |
//!
//! Converged: [`Cluster::converged`] (every region open exactly once, on a live server,
//! where the catalog says), and then the coordinator's catalog agrees with the master's.
//! Each phase must converge within `converge_limit` of simulated time.

use crate::cluster::Cluster;
use crate::counting::{Load, Stats};
use crate::fleet::FleetConfig;
use crate::trace::Trace;
use basalt_master::MasterConfig;
use parking_lot::Mutex;
use std::sync::Arc;
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct Scenario {
    pub seed: u64,
    pub masters: usize,
    pub servers: usize,
    pub regions: u32,
    /// The share of servers killed at once in the `lose` phase.
    pub lost_fraction: f64,
    pub open_latency: (Duration, Duration),
    pub close_latency: (Duration, Duration),
    pub open_failure: f64,
    pub lease_ttl: Duration,
    pub balancer_period: Duration,
    pub split_check_period: Duration,
    /// How long the `steady` phase lasts.
    pub steady: Duration,
    /// The longest a phase may take to converge (simulated time).
    pub converge_limit: Duration,
    /// How often convergence is checked.
    pub check_every: Duration,
    /// Keep every trace line (else only the digest).
    pub keep_trace: bool,
}

impl Scenario {
    /// The small scale CI runs: 20 servers, 2,000 regions, 1% of opens failing.
    pub fn small(seed: u64) -> Self {
        Self {
            seed,
            masters: 2,
            servers: 20,
            regions: 2_000,
            lost_fraction: 0.1,
            open_latency: (Duration::from_millis(2), Duration::from_millis(40)),
            close_latency: (Duration::from_millis(1), Duration::from_millis(20)),
            open_failure: 0.01,
            lease_ttl: basalt_coord::keeper::DEFAULT_TTL,
            balancer_period: Duration::from_secs(30),
            split_check_period: Duration::from_secs(10),
            steady: Duration::from_secs(30),
            converge_limit: Duration::from_secs(120),
            check_every: Duration::from_millis(250),
            keep_trace: true,
        }
    }

    fn master_config(&self) -> MasterConfig {
        MasterConfig {
            // Never created: nothing in the simulation writes the store (a dead server's
            // log, looked for there, is simply absent).
            store_root: std::env::temp_dir().join("basalt-sim-store-not-created"),
            lease_ttl: self.lease_ttl,
            balancer_period: self.balancer_period,
            split_check_period: self.split_check_period,
            // The simulation's servers listen on no real port.
            probe_interval: None,
            ..MasterConfig::default()
        }
    }
}

/// One phase's outcome and the coordinator load it caused.
#[derive(Debug, Clone)]
pub struct Phase {
    pub name: &'static str,
    /// Simulated time from the run's start to the phase's start.
    pub start: Duration,
    /// Simulated time to converge (or the phase's length).
    pub took: Duration,
    /// Counts during the phase, by role (masters, servers).
    pub load: [Load; 2],
    /// The busiest simulated second of the phase, each count on its own.
    pub peak: [Load; 2],
    pub stored_keys: u64,
    pub stored_bytes: u64,
    pub revision: i64,
}

#[derive(Debug, Clone)]
pub struct Report {
    pub scenario: Scenario,
    pub phases: Vec<Phase>,
    /// Why the run stopped early (a phase did not converge, a step failed).
    pub failure: Option<String>,
    /// Regions seen open on two live servers at once.
    pub violations: Vec<String>,
    pub digest: u64,
    pub events: u64,
    pub trace: Vec<String>,
    /// Counts per simulated second (the difference over each second), by role.
    pub seconds: Vec<[Load; 2]>,
}

/// Runs `scenario` on a single-threaded runtime whose clock is paused (it jumps to the
/// next timer whenever every task waits).
pub fn run(scenario: &Scenario) -> Report {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => return failed(scenario, format!("no runtime: {e}")),
    };
    runtime.block_on(run_on_runtime(scenario))
}

fn failed(scenario: &Scenario, why: String) -> Report {
    Report {
        scenario: scenario.clone(),
        phases: Vec::new(),
        failure: Some(why),
        violations: Vec::new(),
        digest: 0,
        events: 0,
        trace: Vec::new(),
        seconds: Vec::new(),
    }
}

/// Samples the counters every simulated second.
fn sample(stats: Arc<Stats>, samples: Arc<Mutex<Vec<[Load; 2]>>>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        loop {
            tick.tick().await;
            samples.lock().push(stats.load());
        }
    })
}

async fn run_on_runtime(s: &Scenario) -> Report {
    let trace = Arc::new(Trace::new(s.keep_trace));
    let fleet = FleetConfig {
        open_latency: s.open_latency,
        close_latency: s.close_latency,
        open_failure: s.open_failure,
        lease_ttl: s.lease_ttl,
    };
    let mut cluster = Cluster::new(s.seed, s.master_config(), fleet, trace.clone()).await;
    let samples = Arc::new(Mutex::new(Vec::new()));
    let sampler = sample(cluster.stats.clone(), samples.clone());
    let mut phases = Vec::new();
    let failure = phases_of(s, &mut cluster, &samples, &mut phases)
        .await
        .err();
    if let Some(why) = &failure {
        trace.record(format_args!("FAILED: {why}"));
    }
    sampler.abort();
    let samples = samples.lock().clone();
    let seconds = samples
        .windows(2)
        .map(|w| [w[1][0].minus(&w[0][0]), w[1][1].minus(&w[0][1])])
        .collect();
    Report {
        scenario: s.clone(),
        phases,
        failure,
        violations: cluster.fleet.violations(),
        digest: trace.digest(),
        events: trace.count(),
        trace: trace.lines(),
        seconds,
    }
}

/// What a phase measures from its start: the counters, the time, the sample index.
struct Mark {
    at: Duration,
    load: [Load; 2],
    sample: usize,
}

fn mark(cluster: &Cluster, samples: &Mutex<Vec<[Load; 2]>>) -> Mark {
    Mark {
        at: cluster.trace.elapsed(),
        load: cluster.stats.load(),
        sample: samples.lock().len(),
    }
}

async fn finish(
    name: &'static str,
    cluster: &Cluster,
    samples: &Mutex<Vec<[Load; 2]>>,
    from: Mark,
) -> Phase {
    let now = cluster.stats.load();
    let mut peak = [Load::default(); 2];
    {
        // The seconds overlapping the phase: from the sample before its start to now (the
        // last second partly).
        let samples = samples.lock();
        let first = from.sample.saturating_sub(1).min(samples.len());
        let mut points: Vec<[Load; 2]> = samples[first..].to_vec();
        if first == from.sample {
            points.insert(0, from.load);
        }
        points.push(now);
        for w in points.windows(2) {
            for role in 0..2 {
                peak[role] = peak[role].max(&w[1][role].minus(&w[0][role]));
            }
        }
    }
    let (stored_keys, stored_bytes, revision) = cluster.stored().await;
    let took = cluster.trace.elapsed() - from.at;
    let load = [now[0].minus(&from.load[0]), now[1].minus(&from.load[1])];
    cluster.trace.record(format_args!(
        "phase {name} done in {took:?}: revision {revision}, {stored_keys} keys, \
         {stored_bytes} bytes, masters {:?}, servers {:?}",
        load[0].0, load[1].0
    ));
    Phase {
        name,
        start: from.at,
        took,
        load,
        peak,
        stored_keys,
        stored_bytes,
        revision,
    }
}

async fn phases_of(
    s: &Scenario,
    cluster: &mut Cluster,
    samples: &Mutex<Vec<[Load; 2]>>,
    phases: &mut Vec<Phase>,
) -> Result<(), String> {
    let regions = usize::try_from(s.regions.max(1)).unwrap_or(usize::MAX);
    // start
    let from = mark(cluster, samples);
    for _ in 0..s.masters {
        cluster.start_master().await?;
    }
    cluster
        .start_servers(s.servers, Duration::from_secs(2))
        .await?;
    let deadline = tokio::time::Instant::now() + s.converge_limit;
    loop {
        let listed = cluster.active().map(|m| m.servers.live().len());
        if listed == Some(s.servers) {
            break;
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(format!(
                "start: {listed:?} servers listed by an active master"
            ));
        }
        tokio::time::sleep(s.check_every).await;
    }
    phases.push(finish("start", cluster, samples, from).await);

    // create
    let from = mark(cluster, samples);
    if let Err(e) = cluster.create_table(s.regions).await {
        cluster.trace.record(format_args!("create answered: {e}"));
    }
    settle(s, cluster, regions, "create").await?;
    phases.push(finish("create", cluster, samples, from).await);

    // steady
    let from = mark(cluster, samples);
    tokio::time::sleep(s.steady).await;
    cluster
        .converged(regions)
        .map_err(|e| format!("steady: {e}"))?;
    phases.push(finish("steady", cluster, samples, from).await);

    // failover
    let from = mark(cluster, samples);
    cluster
        .kill_active_master()
        .ok_or("failover: no active master to kill")?;
    settle(s, cluster, regions, "failover").await?;
    phases.push(finish("failover", cluster, samples, from).await);

    // lose
    let from = mark(cluster, samples);
    let killed = cluster.kill_servers(s.lost_fraction).await;
    cluster
        .trace
        .record(format_args!("killed {} servers at once", killed.len()));
    settle(s, cluster, regions, "lose").await?;
    phases.push(finish("lose", cluster, samples, from).await);
    Ok(())
}

/// Waits for convergence within the limit, then checks the stored catalog.
async fn settle(
    s: &Scenario,
    cluster: &Cluster,
    regions: usize,
    phase: &str,
) -> Result<(), String> {
    let took = cluster
        .wait_converged(regions, s.check_every, s.converge_limit)
        .await
        .map_err(|e| format!("{phase}: {e}"))?;
    cluster
        .trace
        .record(format_args!("phase {phase} converged after {took:?}"));
    cluster
        .check_stored_catalog()
        .await
        .map_err(|e| format!("{phase}: {e}"))
}
