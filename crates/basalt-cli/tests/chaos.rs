//! Chaos: clients read and write while servers die, pause and lose etcd, and the history
//! they saw must be one a correct HBase could give.
//!
//! A real cluster (3 etcd members, 2 masters, 3 region servers, 5 s leases) serves four
//! client threads (see `support::chaos_load`) while a seeded schedule of faults runs:
//! - a region server killed (SIGKILL), and a new one started on its host;
//! - a region server paused (SIGSTOP) for 3–7 s, around its lease, then resumed: within
//!   its lease it carries on; past it, it must answer nothing, learn that its lease is
//!   gone and stop, and a new one starts;
//! - the oldest master killed (the standby takes over), and started again at its address;
//! - the etcd leader killed, then restarted;
//! - two etcd members killed (quorum lost) for 3 s, then restarted;
//! - a region server cut off from etcd for 6–9 s, past its lease, while clients and
//!   masters still reach it: it runs in a network namespace (`support::netns`) with one
//!   veth pair to etcd and one to everyone else, and the etcd pair's link goes down. It
//!   must stop answering at its lease's local deadline and stop; once the link is back a
//!   new one starts inside. Without root or `ip` the test says so and the schedule never
//!   picks this fault (the rest runs as usual).
//!
//! Meanwhile a probe (`support::chaos_probe`) reads one row of each region straight from
//! every live region server, three times a second, and keeps which server answered for
//! which region when.
//!
//! An etcd fault shorter than a lease must cost no master: a master whose lease lapsed
//! stands by and leads again once it is renewed. A region server stops answering at its
//! lease's deadline and stops. After the schedule, every process is brought back, the
//! final value of each register and counter is read and every fresh row scanned;
//! `basalt_chaos` then checks the history: each key linearizable, every acknowledged row
//! there exactly once, and no region answered by two servers in overlapping windows. The
//! run ends with how many faults of each kind fired.
//!
//! CI runs seed 1 and seed 3 (server kills, a quorum loss and the cut from etcd) for 30 s
//! each. `BASALT_CHAOS_SEED` and `BASALT_CHAOS_SECS` choose others (`scripts/chaos.sh`
//! runs many).

use crate::support;

use basalt_api::{Connection, PreSplit};
use basalt_chaos::{
    check_durability, check_history, check_single_owner, CheckOptions, OpKind, Operation, Outcome,
    Ret,
};
use basalt_client::RemoteConnection;
use basalt_types::{FamilyDescriptor, Get, Scan, TableDescriptor, TableName};
use bytes::Bytes;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use support::chaos_faults::{start_cluster, Faults};
use support::chaos_load::{worker, Recorded, Rng, COUNTERS, REGISTERS};
use support::chaos_probe::{probe, Live};
use support::cluster::Cluster;
use support::netns::Netns;

/// One row of each region of the chaos table (split at c, r, r4 and u), labelled by the
/// region's bounds: what the probe reads.
const PROBE_ROWS: [(&str, &str); 5] = [
    ("[,c)", "b"),
    ("[c,r)", "c0"),
    ("[r,r4)", "r0"),
    ("[r4,u)", "r5"),
    ("[u,)", "u"),
];

fn knob(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The final reads, as operations after everything else: each register's and counter's
/// value with a fresh connection once the cluster is whole again.
fn final_reads(table: &dyn basalt_api::Table, at: u64) -> Vec<Operation> {
    let keys = (0..REGISTERS)
        .map(|r| format!("r{r}"))
        .chain((0..COUNTERS).map(|c| format!("c{c}")));
    keys.map(|key| {
        let row = table
            .get(&Get::new(Bytes::from(key.clone())))
            .expect("a final read");
        let value = row.value(b"f", b"q").map(|v| v.to_vec());
        Operation::new(
            u32::MAX,
            key,
            OpKind::Get,
            at,
            at + 1,
            Outcome::Ok(Ret::Read(value)),
        )
    })
    .collect()
}

/// The live region servers, `(name, host:port)`, for the probe.
fn servers_of(cluster: &Cluster) -> Vec<(String, String)> {
    cluster
        .servers
        .iter()
        .map(|s| (s.name.clone(), s.addr.clone()))
        .collect()
}

/// One chaos run at a time in this binary: two clusters at once on a small machine
/// would turn every lease into a coin toss.
static ONE_RUN: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn clients_see_a_linearizable_history_and_lose_nothing_while_servers_fail() {
    run(knob("BASALT_CHAOS_SEED", 1), knob("BASALT_CHAOS_SECS", 30));
}

/// A second fixed schedule, one that kills region servers, loses etcd's quorum and cuts a
/// server off from etcd (where a network namespace can be made); skipped when
/// `BASALT_CHAOS_SEED` picks the schedule. (It found a nonce forgotten after two moves,
/// an open to a just-killed server left FAILED_OPEN, and a put applied twice — logged by a
/// server whose lease ran out before it could answer, replayed by the region's next owner,
/// then applied again by the client's resend, its value coming back over later writes —
/// all fixed.)
#[test]
fn a_second_schedule_kills_servers_and_cuts_one_off_from_etcd() {
    if std::env::var("BASALT_CHAOS_SEED").is_ok() {
        return;
    }
    run(3, knob("BASALT_CHAOS_SECS", 30));
}

fn run(seed: u64, secs: u64) {
    let _one = ONE_RUN
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let netns = match Netns::create() {
        Ok(netns) => Some(netns),
        Err(why) => {
            eprintln!("the cut from etcd is skipped: no network namespace here: {why}");
            None
        }
    };
    // Declared after the namespace, so dropped (its processes killed) before it.
    let mut cluster = start_cluster(netns.as_ref());
    let mut faults = Faults::new(&cluster, netns.as_ref());
    let masters = cluster.masters_arg();
    let name = TableName::parse("chaos").expect("name");
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let admin = RemoteConnection::connect(&masters).expect("connect");
        let splits = ["c", "r", "r4", "u"].map(|k| Bytes::from_static(k.as_bytes()));
        admin
            .admin()
            .create_table(
                &TableDescriptor::new(
                    name.clone(),
                    vec![FamilyDescriptor::new(Bytes::from_static(b"f")).expect("family")],
                ),
                &PreSplit::Keys(splits.to_vec()),
            )
            .expect("create");
        let start = Instant::now();
        let stop = AtomicBool::new(false);
        let mut fired = Vec::new();
        let live: Live = Mutex::new(servers_of(&cluster));
        let (recorded, probed) = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..4u32)
                .map(|client| {
                    let (masters, name, stop) = (&masters, &name, &stop);
                    scope.spawn(move || {
                        let conn = RemoteConnection::connect(masters).expect("connect");
                        let table = conn.table(name).expect("table");
                        worker(
                            client,
                            table.as_ref(),
                            seed ^ u64::from(client) << 32,
                            start,
                            stop,
                        )
                    })
                })
                .collect();
            let (live, name, stop) = (&live, &name, &stop);
            let prober = scope.spawn(move || probe(name, &PROBE_ROWS, live, start, stop));
            let mut rng = Rng::new(seed);
            let until = Instant::now() + Duration::from_secs(secs);
            while Instant::now() < until {
                std::thread::sleep(Duration::from_millis(1000 + rng.below(2000)));
                let fault = faults.inject(&mut cluster, &mut rng);
                eprintln!("[{:>6.1}s] {}", start.elapsed().as_secs_f64(), fault.what);
                std::thread::sleep(Duration::from_secs(1));
                let healed = faults.heal(&mut cluster);
                *live.lock().expect("live servers") = servers_of(&cluster);
                assert!(
                    fault.may_cost_a_master || !healed.iter().any(|h| h.starts_with("master")),
                    "{} cost a master: {healed:?}",
                    fault.what
                );
                if !healed.is_empty() {
                    eprintln!(
                        "[{:>6.1}s] restarted {}",
                        start.elapsed().as_secs_f64(),
                        healed.join(", ")
                    );
                }
                fired.push(fault.kind);
            }
            std::thread::sleep(Duration::from_secs(2));
            stop.store(true, Ordering::Relaxed);
            let recorded: Vec<Recorded> = workers
                .into_iter()
                .map(|w| w.join().expect("a worker"))
                .collect();
            (recorded, prober.join().expect("the probe"))
        });
        let reader = RemoteConnection::connect(&masters).expect("connect");
        let table = reader.table(&name).expect("table");
        let mut history: Vec<Operation> = recorded.iter().flat_map(|r| r.ops.clone()).collect();
        let at = start.elapsed().as_nanos() as u64;
        history.extend(final_reads(table.as_ref(), at));
        let scanned: Vec<(Vec<u8>, Vec<u8>)> = table
            .scan(&Scan::new().start(Bytes::from_static(b"u")))
            .expect("scan")
            .map(|row| {
                let row = row.expect("a row");
                let key = row.row().expect("a row key").to_vec();
                (
                    key,
                    row.value(b"f", b"q")
                        .map(|v| v.to_vec())
                        .unwrap_or_default(),
                )
            })
            .collect();
        let acked: Vec<_> = recorded.iter().flat_map(|r| r.acked_rows.clone()).collect();
        let unknown: Vec<_> = recorded
            .iter()
            .flat_map(|r| r.unknown_rows.clone())
            .collect();
        let errors: usize = recorded.iter().map(|r| r.errors).sum();
        let report = check_history(&history, &CheckOptions::default());
        let durability = check_durability(&acked, &unknown, &scanned);
        let owners = check_single_owner(&probed.served);
        eprintln!(
            "seed {seed}: {} faults, {} operations ({errors} errors), {} fresh rows acknowledged\n{report}\n{durability}\n{owners} ({} probe reads refused)\nfaults fired: {}",
            fired.len(),
            history.len(),
            acked.len(),
            probed.refused,
            faults.counts()
        );
        assert!(!fired.is_empty(), "the schedule injected faults");
        assert!(
            history
                .iter()
                .filter(|o| matches!(o.outcome, Outcome::Ok(_)))
                .count()
                > 100,
            "the clients got work done"
        );
        assert!(report.is_valid(), "{report}");
        assert!(durability.is_clean(), "{durability}");
        assert!(
            owners.regions == PROBE_ROWS.len(),
            "every region was served to the probe: {owners}"
        );
        assert!(owners.is_clean(), "{owners}");
    }));
    if let Err(panic) = outcome {
        cluster.fail_with_logs(panic);
    }
}
