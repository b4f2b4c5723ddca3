//! The chaos test's faults, chosen by a seeded schedule, and `heal`, which starts again
//! whatever died.
//!
//! The cluster has 2 masters and 3 region servers. With a network namespace (root and
//! `ip`: see `netns`), one region server runs inside it, reaching etcd through one veth
//! pair and everyone else through another, and the schedule may cut that server off from
//! etcd; without one, the three run on loopback and the schedule never picks that fault.

use super::chaos_load::Rng;
use super::cluster::{signal, Cluster};
use super::netns::Netns;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The kinds of fault, as the per-kind count names them.
pub const KINDS: [&str; 6] = [
    "region server killed",
    "region server paused",
    "master killed",
    "etcd leader killed",
    "etcd quorum lost",
    "region server cut off from etcd",
];
/// The cut, the last kind, needs a namespace.
const CUT: usize = 5;

/// One fault that fired: its kind, what it did, and whether a master may die of it (etcd
/// faults shorter than a lease, and a region server's cut, must cost no master: leases
/// survive an election and a short loss of quorum, and a master whose lease lapsed leads
/// again once it is renewed; a region server whose deadline passed stops, and its regions
/// are recovered).
pub struct Fault {
    pub kind: &'static str,
    pub what: String,
    pub may_cost_a_master: bool,
}

pub struct Faults<'a> {
    netns: Option<&'a Netns>,
    /// Each region server's host, where `heal` starts a new one.
    hosts: Vec<String>,
    master_addrs: Vec<String>,
    fired: BTreeMap<&'static str, usize>,
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

/// The chaos cluster: beside `netns` with one region server inside it, or all on loopback.
pub fn start_cluster(netns: Option<&Netns>) -> Cluster {
    match netns {
        Some(netns) => {
            let mut cluster = Cluster::start_beside(netns, 2, 2);
            cluster.start_server_in(netns);
            cluster
        }
        None => Cluster::start(2, 3),
    }
}

impl<'a> Faults<'a> {
    pub fn new(cluster: &Cluster, netns: Option<&'a Netns>) -> Self {
        let hosts: Vec<String> = cluster.servers.iter().map(|s| host_of(&s.name)).collect();
        if let Some(netns) = netns {
            assert!(
                hosts.contains(&netns.clients.ns_addr),
                "a region server in the namespace: {hosts:?}"
            );
        }
        Self {
            netns,
            hosts,
            master_addrs: cluster.masters.iter().map(|m| m.addr.clone()).collect(),
            fired: BTreeMap::new(),
        }
    }

    /// Fires one fault from the schedule and returns once it is over.
    pub fn inject(&mut self, cluster: &mut Cluster, rng: &mut Rng) -> Fault {
        let kinds = match self.netns {
            Some(_) => KINDS.len(),
            None => CUT,
        };
        let kind = rng.below(kinds as u64) as usize;
        let (what, may_cost_a_master) = match kind {
            0 => (kill_server(cluster, rng), true),
            1 => (pause_server(cluster, rng), true),
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
            4 => {
                let first = 1 + rng.below(3) as usize;
                let second = 1 + first % 3;
                cluster.etcd.kill(first).expect("kill etcd");
                cluster.etcd.kill(second).expect("kill etcd");
                std::thread::sleep(Duration::from_secs(3));
                let what = format!("etcd quorum lost (e{first}, e{second} killed) for 3 s");
                (what, false)
            }
            _ => {
                let netns = self.netns.expect("the cut is picked only with a namespace");
                (cut_server(cluster, netns, rng), false)
            }
        };
        *self.fired.entry(KINDS[kind]).or_default() += 1;
        Fault {
            kind: KINDS[kind],
            what,
            may_cost_a_master,
        }
    }

    /// Starts again whatever died: masters at their addresses, region servers on their
    /// hosts (the namespace's inside it, its etcd link up again), etcd members on their
    /// data. Returns what it restarted.
    pub fn heal(&self, cluster: &mut Cluster) -> Vec<String> {
        let mut healed = Vec::new();
        cluster.etcd.restart_stopped().expect("etcd restarts");
        cluster
            .masters
            .retain_mut(|m| !matches!(m.child.try_wait(), Ok(Some(_))));
        for addr in &self.master_addrs {
            if !cluster.masters.iter().any(|m| &m.addr == addr) {
                cluster.restart_master_at(addr);
                healed.push(format!("master {addr}"));
            }
        }
        cluster
            .servers
            .retain_mut(|s| !matches!(s.child.try_wait(), Ok(Some(_))));
        for host in &self.hosts {
            if cluster.servers.iter().any(|s| &host_of(&s.name) == host) {
                continue;
            }
            match self.netns {
                Some(netns) if *host == netns.clients.ns_addr => {
                    cluster.start_server_in(netns);
                    healed.push(format!("region server in namespace {}", netns.name));
                }
                _ => {
                    cluster.start_server(host);
                    healed.push(format!("region server on {host}"));
                }
            }
        }
        healed
    }

    /// How many faults of each kind fired, one `kind: n` per kind the schedule could pick.
    pub fn counts(&self) -> String {
        let kinds = match self.netns {
            Some(_) => &KINDS[..],
            None => &KINDS[..CUT],
        };
        let counts: Vec<String> = kinds
            .iter()
            .map(|k| format!("{k}: {}", self.fired.get(k).copied().unwrap_or(0)))
            .collect();
        counts.join(", ")
    }
}

fn kill_server(cluster: &mut Cluster, rng: &mut Rng) -> String {
    let i = rng.below(cluster.servers.len() as u64) as usize;
    let mut dead = cluster.servers.remove(i);
    dead.child.kill().expect("kill -9");
    let _ = dead.child.wait();
    format!("kill -9 region server {}", dead.name)
}

/// Around the lease (5 s): shorter, it wakes with its lease and goes on; longer, its
/// regions reopened elsewhere meanwhile, and calls wait in its sockets. Past its lease it
/// stops by itself (a new one is started by `heal`).
fn pause_server(cluster: &mut Cluster, rng: &mut Rng) -> String {
    let i = rng.below(cluster.servers.len() as u64) as usize;
    let pause = Duration::from_millis(3000 + rng.below(4000));
    signal(&cluster.servers[i].child, "STOP");
    std::thread::sleep(pause);
    signal(&cluster.servers[i].child, "CONT");
    let linger = match pause >= Duration::from_secs(5) {
        true => Duration::from_secs(10),
        false => Duration::from_secs(2),
    };
    let _ = exited(&mut cluster.servers[i].child, linger);
    let name = &cluster.servers[i].name;
    format!("paused region server {name} for {pause:?}")
}

/// The namespace's server loses etcd for 6–9 s, past its lease (5 s), while clients and
/// masters still reach it: it stops answering at its lease's local deadline and stops;
/// etcd expires its lease and the master reopens its regions elsewhere. Then the link
/// comes back (`heal` starts a new server inside).
fn cut_server(cluster: &mut Cluster, netns: &Netns, rng: &mut Rng) -> String {
    let i = cluster
        .servers
        .iter()
        .position(|s| host_of(&s.name) == netns.clients.ns_addr)
        .expect("a region server in the namespace");
    let cut = Duration::from_millis(6000 + rng.below(3000));
    netns.set_link(&netns.etcd, false);
    std::thread::sleep(cut);
    netns.set_link(&netns.etcd, true);
    let server = &mut cluster.servers[i];
    assert!(
        exited(&mut server.child, Duration::from_secs(10)),
        "{} cut off from etcd past its lease did not stop",
        server.name
    );
    format!(
        "cut region server {} off from etcd for {cut:?} (clients still reached it)",
        server.name
    )
}
