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
//! - two etcd members killed (quorum lost) for 3 s, then restarted.
//!
//! An etcd fault shorter than a lease must cost no master: a master whose lease lapsed
//! stands by and leads again once it is renewed. A region server stops answering at its
//! lease's deadline and stops. After the schedule, every process is brought back, the final value of each register and
//! counter is read and every fresh row scanned; `basalt_chaos` then checks the history:
//! each key linearizable, and every acknowledged row there exactly once.
//!
//! CI runs seed 1 for 30 s. `BASALT_CHAOS_SEED` and `BASALT_CHAOS_SECS` choose others
//! (`scripts/chaos.sh` runs many).

mod support;

use basalt_api::{Connection, PreSplit};
use basalt_chaos::{
    check_durability, check_history, CheckOptions, OpKind, Operation, Outcome, Ret,
};
use basalt_client::RemoteConnection;
use basalt_types::{FamilyDescriptor, Get, Scan, TableDescriptor, TableName};
use bytes::Bytes;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use support::chaos_load::{worker, Recorded, Rng, COUNTERS, REGISTERS};
use support::cluster::{signal, Cluster};

const SERVER_HOSTS: [&str; 3] = ["127.0.0.2", "127.0.0.3", "127.0.0.4"];

fn knob(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The host a region server named `host,port,startcode` runs on.
fn host_of(name: &str) -> String {
    name.split(',').next().unwrap_or_default().to_string()
}

/// Waits (up to `limit`) for `child` to exit by itself.
fn exited(child: &mut std::process::Child, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

/// Starts again whatever died: masters at their addresses, region servers on their hosts,
/// etcd members on their data. Returns what it restarted.
fn heal(cluster: &mut Cluster, master_addrs: &[String]) -> Vec<String> {
    let mut healed = Vec::new();
    cluster.etcd.restart_stopped().expect("etcd restarts");
    cluster
        .masters
        .retain_mut(|m| !matches!(m.child.try_wait(), Ok(Some(_))));
    for addr in master_addrs {
        if !cluster.masters.iter().any(|m| &m.addr == addr) {
            cluster.restart_master_at(addr);
            healed.push(format!("master {addr}"));
        }
    }
    cluster
        .servers
        .retain_mut(|s| !matches!(s.child.try_wait(), Ok(Some(_))));
    for host in SERVER_HOSTS {
        if !cluster.servers.iter().any(|s| host_of(&s.name) == host) {
            cluster.start_server(host);
            healed.push(format!("region server on {host}"));
        }
    }
    healed
}

/// One fault from the schedule: what it did, and whether masters may die of it (etcd
/// faults shorter than a lease must cost no master: leases survive an election and a
/// short loss of quorum, and a master whose lease lapsed leads again once it is renewed;
/// a region server whose deadline passed stops, and its regions are recovered).
fn inject(cluster: &mut Cluster, rng: &mut Rng) -> (String, bool) {
    match rng.below(5) {
        0 => {
            let i = rng.below(cluster.servers.len() as u64) as usize;
            let mut dead = cluster.servers.remove(i);
            dead.child.kill().expect("kill -9");
            let _ = dead.child.wait();
            (format!("kill -9 region server {}", dead.name), true)
        }
        1 => {
            // Around the lease (5 s): shorter, it wakes with its lease and goes on; longer,
            // its regions reopened elsewhere meanwhile, and calls wait in its sockets.
            let i = rng.below(cluster.servers.len() as u64) as usize;
            let pause = Duration::from_millis(3000 + rng.below(4000));
            signal(&cluster.servers[i].child, "STOP");
            std::thread::sleep(pause);
            signal(&cluster.servers[i].child, "CONT");
            // Past its lease it stops by itself (a new one is started by `heal`).
            let linger = match pause >= Duration::from_secs(5) {
                true => Duration::from_secs(10),
                false => Duration::from_secs(2),
            };
            let _ = exited(&mut cluster.servers[i].child, linger);
            let name = &cluster.servers[i].name;
            (format!("paused region server {name} for {pause:?}"), true)
        }
        2 => {
            let mut dead = cluster.masters.remove(0);
            dead.child.kill().expect("kill -9");
            let _ = dead.child.wait();
            (format!("kill -9 master {}", dead.addr), true)
        }
        3 => {
            let leader = cluster.etcd.leader().expect("etcd leader");
            cluster.etcd.kill(leader).expect("kill the etcd leader");
            std::thread::sleep(Duration::from_secs(2));
            (format!("kill -9 etcd leader e{leader} for 2 s"), false)
        }
        _ => {
            let first = 1 + rng.below(3) as usize;
            let second = 1 + first % 3;
            cluster.etcd.kill(first).expect("kill etcd");
            cluster.etcd.kill(second).expect("kill etcd");
            std::thread::sleep(Duration::from_secs(3));
            let fault = format!("etcd quorum lost (e{first}, e{second} killed) for 3 s");
            (fault, false)
        }
    }
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

#[test]
fn clients_see_a_linearizable_history_and_lose_nothing_while_servers_fail() {
    let seed = knob("BASALT_CHAOS_SEED", 1);
    let secs = knob("BASALT_CHAOS_SECS", 30);
    let mut cluster = Cluster::start(2, 3);
    let master_addrs: Vec<String> = cluster.masters.iter().map(|m| m.addr.clone()).collect();
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
        let mut faults = Vec::new();
        let recorded: Vec<Recorded> = std::thread::scope(|scope| {
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
            let mut rng = Rng::new(seed);
            let until = Instant::now() + Duration::from_secs(secs);
            while Instant::now() < until {
                std::thread::sleep(Duration::from_millis(1000 + rng.below(2000)));
                let (fault, may_kill) = inject(&mut cluster, &mut rng);
                eprintln!("[{:>6.1}s] {fault}", start.elapsed().as_secs_f64());
                std::thread::sleep(Duration::from_secs(1));
                let healed = heal(&mut cluster, &master_addrs);
                assert!(
                    may_kill || !healed.iter().any(|h| h.starts_with("master")),
                    "{fault} cost a master: {healed:?}"
                );
                if !healed.is_empty() {
                    eprintln!(
                        "[{:>6.1}s] restarted {}",
                        start.elapsed().as_secs_f64(),
                        healed.join(", ")
                    );
                }
                faults.push(fault);
            }
            std::thread::sleep(Duration::from_secs(2));
            stop.store(true, Ordering::Relaxed);
            workers
                .into_iter()
                .map(|w| w.join().expect("a worker"))
                .collect()
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
        eprintln!(
            "seed {seed}: {} faults, {} operations ({errors} errors), {} fresh rows acknowledged\n{report}\n{durability}",
            faults.len(),
            history.len(),
            acked.len()
        );
        assert!(!faults.is_empty(), "the schedule injected faults");
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
    }));
    if let Err(panic) = outcome {
        eprintln!("{}", cluster.logs());
        std::panic::resume_unwind(panic);
    }
}
