//! The pure core: which connections are open, in which phase, and whom to shed. No I/O and
//! no clock of its own (every call is given `now`); the listener carries out its answers.
//!
//! A connection moves through four phases:
//!
//! | phase     | what the peer has done                              | shed when                          |
//! |-----------|-----------------------------------------------------|------------------------------------|
//! | `Fresh`   | connected; not one byte yet                         | its slot is needed (a cap is hit)  |
//! | `Reading` | sent part of a request, not all of it               | `header_timeout` after it began, or its slot is needed |
//! | `Busy`    | a complete request is being served (or, on HTTP/2, the handshake is done) | never     |
//! | `Idle`    | between requests                                    | never (HTTP: its slot is needed and no `Fresh` or `Reading` one is left) |
//!
//! `Fresh` and `Reading` connections are *unproven*. A new connection past a cap takes the
//! slot of the unproven connection that entered its phase first (of the same address, for
//! the per-address cap), and is refused only when there is none. So sockets held open
//! without a request cannot lock real clients out, while a client that keeps a connection
//! between requests (happybase's pool, a long scan) is never dropped for being idle.
//!
//! A worked example, `connections_max` = 3, `evict_idle` off:
//!
//! | event                    | open afterwards (phase, oldest first) | shed  |
//! |--------------------------|---------------------------------------|-------|
//! | A, B, C connect          | A Fresh, B Fresh, C Fresh             |       |
//! | A sends a whole request  | B Fresh, C Fresh, A Busy              |       |
//! | A is answered            | B Fresh, C Fresh, A Idle              |       |
//! | C sends one byte         | B Fresh, C Reading, A Idle            |       |
//! | D connects               | C Reading, A Idle, D Fresh            | B     |
//! | `header_timeout` passes  | A Idle, D Fresh                       | C     |

use crate::Limits;
use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::time::Instant;

/// A connection's number in its book.
pub type ConnId = u64;

/// Where a connection stands (see the module's table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Fresh,
    Reading,
    Busy,
    Idle,
}

/// Why a connection was shed or refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// The listener was at `connections_max`.
    Full,
    /// The address was at `per_address_max`.
    AddressFull,
    /// A request began and did not complete within `header_timeout`.
    HeaderTimeout,
    /// The process ran out of file descriptors.
    OutOfDescriptors,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Full => "the listener is at connections_max",
            Self::AddressFull => "the client address is at connections_per_address_max",
            Self::HeaderTimeout => "no complete request within header_timeout_ms",
            Self::OutOfDescriptors => "the process is out of file descriptors",
        }
    }
}

struct Entry<T> {
    ip: IpAddr,
    phase: Phase,
    /// When it entered its phase, as an order (the key in its phase's queue).
    stamp: u64,
    /// When it entered its phase.
    since: Instant,
    /// Requests being served (HTTP/1 pipelining can overlap two briefly).
    busy: usize,
    payload: T,
}

/// The open connections of one listener, each carrying a `T` (the listener's handle).
pub struct Book<T> {
    limits: Limits,
    entries: HashMap<ConnId, Entry<T>>,
    per_ip: HashMap<IpAddr, usize>,
    /// `Fresh` and `Reading` connections by stamp: the shedding order.
    unproven: BTreeMap<u64, ConnId>,
    /// `Reading` connections by stamp, hence by `since`: the expiry order.
    reading: BTreeMap<u64, ConnId>,
    /// `Idle` connections by stamp.
    idle: BTreeMap<u64, ConnId>,
    next_id: ConnId,
    next_stamp: u64,
}

impl<T> Book<T> {
    pub fn new(limits: Limits) -> Self {
        Self {
            limits,
            entries: HashMap::new(),
            per_ip: HashMap::new(),
            unproven: BTreeMap::new(),
            reading: BTreeMap::new(),
            idle: BTreeMap::new(),
            next_id: 1,
            next_stamp: 1,
        }
    }

    /// Connections open.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Connections open from `ip`.
    pub fn from_ip(&self, ip: IpAddr) -> usize {
        self.per_ip.get(&ip).copied().unwrap_or(0)
    }

    pub fn phase(&self, id: ConnId) -> Option<Phase> {
        self.entries.get(&id).map(|e| e.phase)
    }

    /// Admits a connection from `ip` as `Fresh`, shedding what the caps require: its id
    /// and the shed connections' payloads; or why it is refused (nothing is shed then).
    pub fn admit(
        &mut self,
        ip: IpAddr,
        now: Instant,
        payload: T,
    ) -> Result<(ConnId, Vec<(T, Reason)>), Reason> {
        let mut victims: Vec<(ConnId, Reason)> = Vec::new();
        if self.from_ip(ip) >= self.limits.per_address_max.max(1) {
            match self.victim(Some(ip), None) {
                Some(id) => victims.push((id, Reason::AddressFull)),
                None => return Err(Reason::AddressFull),
            }
        }
        if self.entries.len() - victims.len() >= self.limits.connections_max.max(1) {
            match self.victim(None, victims.first().map(|v| v.0)) {
                Some(id) => victims.push((id, Reason::Full)),
                None => return Err(Reason::Full),
            }
        }
        let shed = victims
            .into_iter()
            .filter_map(|(id, reason)| self.remove(id).map(|payload| (payload, reason)))
            .collect();
        let id = self.next_id;
        self.next_id += 1;
        let stamp = self.stamp();
        self.entries.insert(
            id,
            Entry {
                ip,
                phase: Phase::Fresh,
                stamp,
                since: now,
                busy: 0,
                payload,
            },
        );
        self.unproven.insert(stamp, id);
        *self.per_ip.entry(ip).or_insert(0) += 1;
        Ok((id, shed))
    }

    /// Bytes arrived on `id`: a `Fresh` or `Idle` connection starts `Reading` (its header
    /// clock starts); any other phase stays. The phase afterwards.
    pub fn bytes_arrived(&mut self, id: ConnId, now: Instant) -> Option<Phase> {
        let phase = self.phase(id)?;
        if matches!(phase, Phase::Fresh | Phase::Idle) {
            self.enter(id, Phase::Reading, now);
            return Some(Phase::Reading);
        }
        Some(phase)
    }

    /// A TLS handshake on `id` completed: the handshake is no request, so a connection
    /// `Reading` only because of it is `Fresh` again (its header clock stops until its
    /// first request begins; its slot still goes to a newcomer if needed).
    pub fn handshake_done(&mut self, id: ConnId, now: Instant) -> Option<Phase> {
        let phase = self.phase(id)?;
        if phase == Phase::Reading {
            self.enter(id, Phase::Fresh, now);
            return Some(Phase::Fresh);
        }
        Some(phase)
    }

    /// A complete request arrived on `id`: it is `Busy` until [`Book::end`].
    pub fn begin(&mut self, id: ConnId, now: Instant) {
        let Some(entry) = self.entries.get_mut(&id) else {
            return;
        };
        entry.busy += 1;
        if entry.phase != Phase::Busy {
            self.enter(id, Phase::Busy, now);
        }
    }

    /// A request on `id` was answered; with none left it is `Idle`.
    pub fn end(&mut self, id: ConnId, now: Instant) {
        let Some(entry) = self.entries.get_mut(&id) else {
            return;
        };
        entry.busy = entry.busy.saturating_sub(1);
        if entry.busy == 0 && entry.phase == Phase::Busy {
            self.enter(id, Phase::Idle, now);
        }
    }

    /// Forgets `id` (closed, or shed); its payload.
    pub fn remove(&mut self, id: ConnId) -> Option<T> {
        self.unlink(id);
        let entry = self.entries.remove(&id)?;
        if let Some(n) = self.per_ip.get_mut(&entry.ip) {
            *n -= 1;
            if *n == 0 {
                self.per_ip.remove(&entry.ip);
            }
        }
        Some(entry.payload)
    }

    /// Removes the connections `Reading` since `header_timeout` or longer; their payloads.
    pub fn expire(&mut self, now: Instant) -> Vec<T> {
        let mut expired = Vec::new();
        while let Some((_, &id)) = self.reading.first_key_value() {
            let Some(entry) = self.entries.get(&id) else {
                break;
            };
            if now.saturating_duration_since(entry.since) < self.limits.header_timeout {
                break;
            }
            expired.extend(self.remove(id));
        }
        expired
    }

    /// Removes the oldest unproven connection, to free a file descriptor.
    pub fn shed_oldest(&mut self) -> Option<T> {
        let id = self.victim(None, None)?;
        self.remove(id)
    }

    /// The connection to shed for room: the oldest unproven one (of `ip`, if given), else
    /// with `evict_idle` the oldest idle one; never `except`.
    fn victim(&self, ip: Option<IpAddr>, except: Option<ConnId>) -> Option<ConnId> {
        let fits = |id: &&ConnId| {
            Some(**id) != except
                && ip.is_none_or(|ip| self.entries.get(*id).is_some_and(|e| e.ip == ip))
        };
        let unproven = self.unproven.values().find(fits);
        let idle = || {
            self.limits
                .evict_idle
                .then(|| self.idle.values().find(fits))
                .flatten()
        };
        unproven.or_else(idle).copied()
    }

    fn stamp(&mut self) -> u64 {
        let stamp = self.next_stamp;
        self.next_stamp += 1;
        stamp
    }

    /// Moves `id` into `phase` (a fresh stamp: the back of that phase's queue).
    fn enter(&mut self, id: ConnId, phase: Phase, now: Instant) {
        self.unlink(id);
        let stamp = self.stamp();
        let Some(entry) = self.entries.get_mut(&id) else {
            return;
        };
        entry.phase = phase;
        entry.stamp = stamp;
        entry.since = now;
        match phase {
            Phase::Fresh => {
                self.unproven.insert(stamp, id);
            }
            Phase::Reading => {
                self.unproven.insert(stamp, id);
                self.reading.insert(stamp, id);
            }
            Phase::Idle => {
                self.idle.insert(stamp, id);
            }
            Phase::Busy => {}
        }
    }

    /// Takes `id` out of its phase's queues.
    fn unlink(&mut self, id: ConnId) {
        let Some(entry) = self.entries.get(&id) else {
            return;
        };
        let stamp = entry.stamp;
        self.unproven.remove(&stamp);
        self.reading.remove(&stamp);
        self.idle.remove(&stamp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;
    use std::time::Duration;

    const A: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
    const B: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2));
    const TIMEOUT: Duration = Duration::from_secs(10);

    fn book(
        connections_max: usize,
        per_address_max: usize,
        evict_idle: bool,
    ) -> Book<&'static str> {
        Book::new(Limits {
            connections_max,
            per_address_max,
            header_timeout: TIMEOUT,
            evict_idle,
        })
    }

    fn admitted(
        book: &mut Book<&'static str>,
        ip: IpAddr,
        now: Instant,
        name: &'static str,
    ) -> ConnId {
        let (id, shed) = book.admit(ip, now, name).expect("admitted");
        assert!(shed.is_empty(), "{name} shed {shed:?}");
        id
    }

    #[test]
    fn the_worked_example_of_the_module() {
        let t0 = Instant::now();
        let mut b = book(3, 10, false);
        let a = admitted(&mut b, A, t0, "A");
        admitted(&mut b, A, t0, "B");
        let c = admitted(&mut b, A, t0, "C");
        b.bytes_arrived(a, t0);
        b.begin(a, t0);
        b.end(a, t0);
        assert_eq!(b.phase(a), Some(Phase::Idle));
        b.bytes_arrived(c, t0);
        let (_, shed) = b.admit(A, t0, "D").expect("D takes B's slot");
        assert_eq!(shed, vec![("B", Reason::Full)]);
        assert_eq!(
            b.expire(t0 + TIMEOUT - Duration::from_millis(1)),
            Vec::<&str>::new()
        );
        assert_eq!(b.expire(t0 + TIMEOUT), vec!["C"]);
        assert_eq!(b.len(), 2);
        assert_eq!(b.phase(a), Some(Phase::Idle), "idle is never shed");
    }

    #[test]
    fn a_full_listener_of_proven_connections_refuses_the_new_one() {
        let t0 = Instant::now();
        let mut b = book(2, 2, false);
        for name in ["x", "y"] {
            let id = admitted(&mut b, A, t0, name);
            b.bytes_arrived(id, t0);
            b.begin(id, t0);
        }
        assert_eq!(b.admit(B, t0, "z").err(), Some(Reason::Full));
        assert_eq!(b.len(), 2);
        assert_eq!(
            b.expire(t0 + TIMEOUT * 100),
            Vec::<&str>::new(),
            "busy never expires"
        );
    }

    #[test]
    fn with_evict_idle_the_longest_idle_makes_room() {
        let t0 = Instant::now();
        let mut b = book(2, 2, true);
        for name in ["x", "y"] {
            let id = admitted(&mut b, A, t0, name);
            b.bytes_arrived(id, t0);
            b.begin(id, t0);
            b.end(id, t0);
        }
        let (_, shed) = b.admit(B, t0, "z").expect("room made");
        assert_eq!(shed, vec![("x", Reason::Full)]);
    }

    #[test]
    fn the_per_address_cap_sheds_only_that_address() {
        let t0 = Instant::now();
        let mut b = book(10, 2, false);
        admitted(&mut b, B, t0, "b1");
        admitted(&mut b, A, t0, "a1");
        admitted(&mut b, A, t0, "a2");
        let (_, shed) = b.admit(A, t0, "a3").expect("a1's slot");
        assert_eq!(shed, vec![("a1", Reason::AddressFull)]);
        assert_eq!((b.from_ip(A), b.from_ip(B)), (2, 1));
        // Both caps at once shed one connection, not two.
        let mut b = book(2, 1, false);
        admitted(&mut b, A, t0, "a1");
        admitted(&mut b, B, t0, "b1");
        let (_, shed) = b.admit(A, t0, "a2").expect("a1's slot");
        assert_eq!(shed, vec![("a1", Reason::AddressFull)]);
        assert_eq!(b.len(), 2);
    }

    #[test]
    fn an_address_whose_connections_are_all_proven_is_refused() {
        let t0 = Instant::now();
        let mut b = book(10, 1, false);
        let id = admitted(&mut b, A, t0, "a1");
        b.bytes_arrived(id, t0);
        b.begin(id, t0);
        admitted(&mut b, B, t0, "b1");
        assert_eq!(b.admit(A, t0, "a2").err(), Some(Reason::AddressFull));
        assert_eq!(b.len(), 2, "nothing shed on a refusal");
    }

    #[test]
    fn a_finished_tls_handshake_stops_the_header_clock() {
        let mut book = book(2, 2, false);
        let t0 = Instant::now();
        let id = admitted(&mut book, A, t0, "a");
        assert_eq!(book.bytes_arrived(id, t0), Some(Phase::Reading));
        assert_eq!(
            book.handshake_done(id, t0 + TIMEOUT / 2),
            Some(Phase::Fresh)
        );
        assert!(book.expire(t0 + TIMEOUT * 3).is_empty(), "no request begun");
        assert_eq!(
            book.bytes_arrived(id, t0 + TIMEOUT * 3),
            Some(Phase::Reading)
        );
        assert_eq!(book.expire(t0 + TIMEOUT * 4), vec!["a"]);
    }

    #[test]
    fn reading_restarts_the_header_clock_for_each_request() {
        let t0 = Instant::now();
        let mut b = book(10, 10, false);
        let id = admitted(&mut b, A, t0, "c");
        let t1 = t0 + TIMEOUT * 3;
        assert_eq!(
            b.bytes_arrived(id, t1),
            Some(Phase::Reading),
            "fresh is never timed"
        );
        b.begin(id, t1);
        b.end(id, t1);
        let t2 = t1 + TIMEOUT * 5;
        assert_eq!(b.expire(t2), Vec::<&str>::new(), "idle is never timed");
        b.bytes_arrived(id, t2);
        assert_eq!(b.bytes_arrived(id, t2 + TIMEOUT / 2), Some(Phase::Reading));
        assert_eq!(b.expire(t2 + TIMEOUT / 2), Vec::<&str>::new());
        assert_eq!(
            b.expire(t2 + TIMEOUT),
            vec!["c"],
            "from the request's first byte"
        );
    }

    #[test]
    fn overlapping_requests_stay_busy_until_the_last_ends() {
        let t0 = Instant::now();
        let mut b = book(10, 10, false);
        let id = admitted(&mut b, A, t0, "c");
        b.bytes_arrived(id, t0);
        b.begin(id, t0);
        b.begin(id, t0);
        b.end(id, t0);
        assert_eq!(b.phase(id), Some(Phase::Busy));
        b.end(id, t0);
        assert_eq!(b.phase(id), Some(Phase::Idle));
        assert_eq!(b.shed_oldest(), None, "nothing unproven");
        assert_eq!(b.remove(id), Some("c"));
        assert!(b.is_empty());
        assert_eq!(b.from_ip(A), 0);
    }
}
