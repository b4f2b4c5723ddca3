//! Fast death detection: a region server whose port refuses connections is gone.
//!
//! A lease proves a server alive; its expiry is the only proof of death for a server that
//! went silent, and it comes up to the lease's TTL after the fact. But a process killed
//! outright leaves a sharper trace: its kernel closes its listener at once, so a
//! connection to its port is refused. A live process — however busy, paused or swapped
//! out — has its kernel accept connections into the listener's backlog, and a machine
//! that is down or cut off answers nothing (a timeout). So the active master connects to
//! every accepting server's RPC port each `probe_interval`; a port that refuses on
//! [`REFUSALS_NEEDED`] probes in a row is taken as a dead process, and the master revokes
//! the server's lease at once: its crash recovery (seal, split, reassign, replay) starts
//! then, not at the lease's expiry. Anything else — accepted, timed out, unreachable —
//! proves nothing, and the lease decides as before.
//!
//! A second incarnation registered at the same `host:port` (design §5.8 case 13) proves
//! the first one gone the same way: one port has one listener.
//!
//! If the inference were ever wrong (a firewall rejecting only the master's connections),
//! the revoked server finds its lease gone at its next keep-alive and stops, and its log
//! is sealed before any of its regions reopens, so no acknowledged write is lost: the cost
//! is an unneeded recovery. A stopping server is not probed (it closes its listener on the
//! way out, after moving its regions). `[master] probe_interval_ms = 0` turns this off.
//!
//! # Layout
//! - [`Refusals`]: the pure core (probes in a row per server → who is gone), with its table.
//! - [`probe_periodically`], [`declare_gone`]: the probe loop and the revocation.

use crate::master::Master;
use crate::servers::LiveServer;
use basalt_coord::layout;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// Refused probes in a row that make a server gone.
pub const REFUSALS_NEEDED: u32 = 2;

/// What one connection attempt to a server's port showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probe {
    /// The kernel accepted the connection: a listener is there.
    Accepted,
    /// Refused: nothing listens on the port.
    Refused,
    /// Timed out, unreachable, or any other error: proves nothing.
    Unknown,
}

/// Consecutive refusals per server.
#[derive(Debug, Default)]
pub struct Refusals {
    counts: BTreeMap<String, u32>,
}

impl Refusals {
    /// Records `probe` of `server`; true when this probe makes it gone (once: the count
    /// restarts, so a server whose lease outlives the revocation is not declared twice
    /// in a row).
    pub fn observe(&mut self, server: &str, probe: Probe) -> bool {
        match probe {
            Probe::Refused => {
                let count = self.counts.entry(server.to_string()).or_insert(0);
                *count += 1;
                if *count >= REFUSALS_NEEDED {
                    self.counts.remove(server);
                    return true;
                }
                false
            }
            Probe::Accepted | Probe::Unknown => {
                self.counts.remove(server);
                false
            }
        }
    }

    /// Forgets servers no longer probed.
    pub fn retain(&mut self, probed: impl Fn(&str) -> bool) {
        self.counts.retain(|name, _| probed(name));
    }
}

/// The live servers registered at `joined`'s address under another name: earlier
/// incarnations, certainly gone.
pub fn earlier_incarnations(live: &[LiveServer], joined: &LiveServer) -> Vec<String> {
    live.iter()
        .filter(|s| s.address == joined.address && s.name != joined.name)
        .map(|s| s.name.clone())
        .collect()
}

/// One connection attempt to `address`, given up after `timeout`.
pub async fn probe(address: &str, timeout: Duration) -> Probe {
    match tokio::time::timeout(timeout, tokio::net::TcpStream::connect(address)).await {
        Ok(Ok(_)) => Probe::Accepted,
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::ConnectionRefused => Probe::Refused,
        _ => Probe::Unknown,
    }
}

/// Probes every accepting region server each `every`, forever; revokes the lease of one
/// whose port refused [`REFUSALS_NEEDED`] times in a row.
pub async fn probe_periodically(master: &Arc<Master>, every: Duration) {
    let mut refusals = Refusals::default();
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let servers: Vec<LiveServer> = master
            .servers
            .live()
            .into_iter()
            .filter(|s| s.accepting)
            .collect();
        refusals.retain(|name| servers.iter().any(|s| s.name == name));
        let mut set = tokio::task::JoinSet::new();
        for server in servers {
            set.spawn(async move {
                let seen = probe(&server.address, every).await;
                (server, seen)
            });
        }
        while let Some(Ok((server, seen))) = set.join_next().await {
            if refusals.observe(&server.name, seen) {
                let why = format!(
                    "its port {} refused {REFUSALS_NEEDED} connections in a row",
                    server.address
                );
                declare_gone(master, &server.name, &why).await;
            }
        }
    }
}

/// Revokes `name`'s lease (its registration goes with it, and the master's watch starts
/// its crash recovery), saying why; nothing when this master is not active or the
/// server is no longer registered.
pub async fn declare_gone(master: &Arc<Master>, name: &str, why: &str) {
    if !master.is_active() {
        return;
    }
    let key = layout::server(name);
    let lease = match master.coord.get(&key).await {
        Ok(Some(kv)) if kv.lease != 0 => kv.lease,
        Ok(_) => return,
        Err(e) => {
            tracing::warn!(server = %name, error = %e, "cannot read a gone server's registration");
            return;
        }
    };
    tracing::warn!(server = %name, reason = %why, "a region server's process is gone: its lease is revoked so that its crash recovery starts now, not at the lease's expiry");
    if let Err(e) = master.coord.revoke_lease(lease).await {
        tracing::warn!(server = %name, error = %e, "cannot revoke a gone server's lease: its expiry will tell");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Probe::*;

    /// Each row: the probes of one server in order, and after which ones it is gone.
    #[test]
    fn refusals_in_a_row_and_only_in_a_row_make_a_server_gone() {
        let table: &[(&[Probe], &[usize])] = &[
            (&[Refused, Refused], &[1]),
            (&[Refused], &[]),
            (&[Refused, Accepted, Refused], &[]),
            (&[Refused, Unknown, Refused], &[]),
            (&[Unknown, Unknown, Unknown], &[]),
            (&[Accepted, Refused, Refused, Refused, Refused], &[2, 4]),
        ];
        for (probes, gone_after) in table {
            let mut refusals = Refusals::default();
            let gone: Vec<usize> = probes
                .iter()
                .enumerate()
                .filter(|(_, p)| refusals.observe("rs1", **p))
                .map(|(i, _)| i)
                .collect();
            assert_eq!(&gone, gone_after, "{probes:?}");
        }
    }

    #[test]
    fn servers_are_counted_apart_and_forgotten_when_no_longer_probed() {
        let mut refusals = Refusals::default();
        assert!(!refusals.observe("a", Refused));
        assert!(!refusals.observe("b", Refused));
        refusals.retain(|name| name == "b");
        assert!(!refusals.observe("a", Refused), "a starts again");
        assert!(refusals.observe("b", Refused));
    }

    #[test]
    fn an_earlier_incarnation_is_one_at_the_same_address_under_another_name() {
        let server = |name: &str, address: &str| LiveServer {
            name: name.to_string(),
            address: address.to_string(),
            web_port: 0,
            hbase_address: None,
            accepting: true,
        };
        let live = [
            server("h,1,100", "h:1"),
            server("h,2,100", "h:2"),
            server("h,1,200", "h:1"),
        ];
        assert_eq!(earlier_incarnations(&live, &live[2]), vec!["h,1,100"]);
        assert!(earlier_incarnations(&live, &live[1]).is_empty());
    }

    #[tokio::test]
    async fn a_closed_port_is_refused_and_a_listening_one_accepted() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let open = listener.local_addr().expect("addr").to_string();
        let closed = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
            l.local_addr().expect("addr").to_string()
        };
        let wait = Duration::from_secs(5);
        assert_eq!(probe(&open, wait).await, Accepted);
        assert_eq!(probe(&closed, wait).await, Refused);
        assert_eq!(probe("not an address", wait).await, Unknown);
    }
}
