//! Who served which region when, for chaos tests: a probe sends a read for one row of
//! each region straight to every live region server (a client connected to that server
//! alone, not the routing client) every few hundred milliseconds, and keeps each answer as
//! a `basalt_chaos::ServedRead` for `check_single_owner`.
//!
//! A read to a server is addressed to the region it locates on that server, so it is
//! answered only while that server holds the region open and its lease is live. Calls are
//! not retried and time out after 500 ms, well under the margin between a server's local
//! lease deadline and its lease's expiry in the coordinator: an answer's window is short,
//! and a call waiting on a paused server fails instead of answering late.
//!
//! Cheap by design: one get per region and server per round, each server's in its own
//! short-lived thread (a paused one holds up no other).

use basalt_api::{Connection, Table};
use basalt_chaos::ServedRead;
use basalt_client::{ClientConfig, RemoteConnection};
use basalt_types::{Get, TableName};
use bytes::Bytes;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How often every live server is asked for every region.
const ROUND: Duration = Duration::from_millis(300);
/// A probe call's and connection's timeout.
const CALL_TIMEOUT: Duration = Duration::from_millis(500);

/// The live region servers, `(name, host:port)`, as the harness last saw them.
pub type Live = Mutex<Vec<(String, String)>>;

/// What the probe saw.
#[derive(Default)]
pub struct Probed {
    pub served: Vec<ServedRead>,
    /// Reads refused or unanswered (a server not holding the region, stopped or paused).
    pub refused: usize,
}

/// One server's probe client, connected on first use.
struct Target {
    addr: String,
    table: Option<(RemoteConnection, Arc<dyn Table>)>,
}

impl Target {
    /// One read per `(region, row)` in `rows`; the answered ones, and how many were not.
    fn round(
        &mut self,
        server: &str,
        name: &TableName,
        rows: &[(&str, &str)],
        start: Instant,
    ) -> (Vec<ServedRead>, usize) {
        if self.table.is_none() {
            let config = ClientConfig {
                retries_max: 0,
                call_timeout: CALL_TIMEOUT,
                connect_timeout: CALL_TIMEOUT,
                ..ClientConfig::default()
            };
            let connected = RemoteConnection::connect_with(&self.addr, config)
                .and_then(|conn| conn.table(name).map(|table| (conn, table)));
            match connected {
                Ok(pair) => self.table = Some(pair),
                Err(_) => return (Vec::new(), rows.len()),
            }
        }
        let Some((_, table)) = &self.table else {
            return (Vec::new(), rows.len());
        };
        let now = || start.elapsed().as_nanos() as u64;
        let mut served = Vec::new();
        let mut refused = 0;
        for (region, row) in rows {
            let invoked = now();
            let answered = table.get(&Get::new(Bytes::copy_from_slice(row.as_bytes())));
            let completed = now();
            match answered {
                Ok(_) => served.push(ServedRead::new(region, server, invoked, completed)),
                Err(_) => refused += 1,
            }
        }
        (served, refused)
    }
}

/// Probes every server in `live` for each `(region label, row)` of `rows` in table `name`
/// until `stop`; times are nanoseconds since `start`.
pub fn probe(
    name: &TableName,
    rows: &[(&str, &str)],
    live: &Live,
    start: Instant,
    stop: &AtomicBool,
) -> Probed {
    let mut targets: HashMap<String, Target> = HashMap::new();
    let mut out = Probed::default();
    while !stop.load(Ordering::Relaxed) {
        let began = Instant::now();
        let now_live = live.lock().expect("live servers").clone();
        targets.retain(|server, _| now_live.iter().any(|(s, _)| s == server));
        for (server, addr) in now_live {
            targets
                .entry(server)
                .or_insert_with(|| Target { addr, table: None });
        }
        let rounds: Vec<(Vec<ServedRead>, usize)> = std::thread::scope(|scope| {
            let probes: Vec<_> = targets
                .iter_mut()
                .map(|(server, target)| {
                    scope.spawn(move || target.round(server, name, rows, start))
                })
                .collect();
            probes
                .into_iter()
                .map(|p| p.join().expect("a probe"))
                .collect()
        });
        for (served, refused) in rounds {
            out.served.extend(served);
            out.refused += refused;
        }
        if let Some(rest) = ROUND.checked_sub(began.elapsed()) {
            std::thread::sleep(rest);
        }
    }
    out
}
