//! The shell around the [`Book`]: each open connection's [`Slot`] (its phase as the
//! connection sees it, whether it was shed, the waker to end it with), and the carrying
//! out of the book's answers — waking the shed, counting, and warning an operator while a
//! listener sheds or refuses (at most every [`WARN_EVERY`]).

use crate::book::{Book, ConnId, Phase, Reason};
use crate::Limits;
use parking_lot::Mutex;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::Waker;
use std::time::{Duration, Instant};

/// How often a listener under pressure says so.
pub const WARN_EVERY: Duration = Duration::from_secs(10);

/// One open connection as its I/O side sees it.
pub struct Slot {
    id: AtomicU64,
    pub peer: SocketAddr,
    /// The book's phase, mirrored (written under the book's lock) so reads need no lock.
    phase: AtomicU8,
    /// Set once, when the connection is shed.
    shed: OnceLock<Reason>,
    /// The task reading the connection, to wake when it is shed.
    waker: Mutex<Option<Waker>>,
}

impl Slot {
    fn new(peer: SocketAddr) -> Self {
        Self {
            id: AtomicU64::new(0),
            peer,
            phase: AtomicU8::new(encode(Phase::Fresh)),
            shed: OnceLock::new(),
            waker: Mutex::new(None),
        }
    }

    fn id(&self) -> ConnId {
        self.id.load(Ordering::Acquire)
    }

    pub fn phase(&self) -> Phase {
        match self.phase.load(Ordering::Acquire) {
            0 => Phase::Fresh,
            1 => Phase::Reading,
            2 => Phase::Busy,
            _ => Phase::Idle,
        }
    }

    /// Why the connection was shed, if it was.
    pub fn shed_reason(&self) -> Option<Reason> {
        self.shed.get().copied()
    }

    /// Remembers the waker of a task about to wait on this connection. The caller checks
    /// [`Slot::shed_reason`] after this, so a shed between the two is not missed.
    pub fn park(&self, waker: &Waker) {
        let mut parked = self.waker.lock();
        match parked.as_ref() {
            Some(w) if w.will_wake(waker) => {}
            _ => *parked = Some(waker.clone()),
        }
    }

    fn end(&self, reason: Reason) {
        let _ = self.shed.set(reason);
        if let Some(waker) = self.waker.lock().take() {
            waker.wake();
        }
    }
}

fn encode(phase: Phase) -> u8 {
    match phase {
        Phase::Fresh => 0,
        Phase::Reading => 1,
        Phase::Busy => 2,
        Phase::Idle => 3,
    }
}

#[derive(Default)]
struct Pressure {
    shed: u64,
    refused: u64,
    warned: Option<Instant>,
    shed_at_warning: u64,
    refused_at_warning: u64,
}

/// A listener's open connections.
pub struct Registry {
    pub name: &'static str,
    pub limits: Limits,
    book: Mutex<Book<Arc<Slot>>>,
    pressure: Mutex<Pressure>,
}

impl Registry {
    pub fn new(name: &'static str, limits: Limits) -> Self {
        Self {
            name,
            limits,
            book: Mutex::new(Book::new(limits)),
            pressure: Mutex::new(Pressure::default()),
        }
    }

    pub fn open(&self) -> usize {
        self.book.lock().len()
    }

    /// (shed, refused) since the start.
    pub fn pressure(&self) -> (u64, u64) {
        let p = self.pressure.lock();
        (p.shed, p.refused)
    }

    /// Admits a connection from `peer`, shedding what the caps require; or why not.
    pub fn admit(&self, peer: SocketAddr) -> Result<Arc<Slot>, Reason> {
        let slot = Arc::new(Slot::new(peer));
        let admitted = {
            let mut book = self.book.lock();
            book.admit(peer.ip(), Instant::now(), slot.clone())
                .map(|(id, shed)| {
                    slot.id.store(id, Ordering::Release);
                    shed
                })
        };
        match admitted {
            Ok(shed) => {
                for (victim, reason) in shed {
                    self.shed(&victim, reason);
                }
                Ok(slot)
            }
            Err(reason) => {
                tracing::debug!(listener = self.name, %peer, "refused a connection: {}", reason.as_str());
                self.note(|p| p.refused += 1);
                Err(reason)
            }
        }
    }

    /// Bytes arrived on a connection that was `Fresh` or `Idle`.
    pub fn bytes_arrived(&self, slot: &Slot) {
        let mut book = self.book.lock();
        if let Some(phase) = book.bytes_arrived(slot.id(), Instant::now()) {
            slot.phase.store(encode(phase), Ordering::Release);
        }
    }

    /// A TLS handshake completed (see [`crate::book::Book::handshake_done`]).
    pub fn handshake_done(&self, slot: &Slot) {
        let mut book = self.book.lock();
        if let Some(phase) = book.handshake_done(slot.id(), Instant::now()) {
            slot.phase.store(encode(phase), Ordering::Release);
        }
    }

    pub fn begin(&self, slot: &Slot) {
        let mut book = self.book.lock();
        let id = slot.id();
        book.begin(id, Instant::now());
        if let Some(phase) = book.phase(id) {
            slot.phase.store(encode(phase), Ordering::Release);
        }
    }

    pub fn end(&self, slot: &Slot) {
        let mut book = self.book.lock();
        let id = slot.id();
        book.end(id, Instant::now());
        if let Some(phase) = book.phase(id) {
            slot.phase.store(encode(phase), Ordering::Release);
        }
    }

    /// The connection closed.
    pub fn remove(&self, slot: &Slot) {
        self.book.lock().remove(slot.id());
    }

    /// Sheds the connections whose request is past the header timeout.
    pub fn expire(&self) {
        let expired = self.book.lock().expire(Instant::now());
        for slot in expired {
            self.shed(&slot, Reason::HeaderTimeout);
        }
    }

    /// Sheds the oldest unproven connection (the process is out of file descriptors).
    pub fn shed_oldest(&self) -> bool {
        let victim = self.book.lock().shed_oldest();
        victim
            .map(|slot| self.shed(&slot, Reason::OutOfDescriptors))
            .is_some()
    }

    fn shed(&self, slot: &Slot, reason: Reason) {
        tracing::debug!(listener = self.name, peer = %slot.peer, "shedding a connection: {}", reason.as_str());
        slot.end(reason);
        self.note(|p| p.shed += 1);
    }

    /// Counts, and warns at most every [`WARN_EVERY`] while it goes on.
    fn note(&self, count: impl FnOnce(&mut Pressure)) {
        let mut p = self.pressure.lock();
        count(&mut p);
        let now = Instant::now();
        if p.warned
            .is_some_and(|at| now.duration_since(at) < WARN_EVERY)
        {
            return;
        }
        tracing::warn!(
            listener = self.name,
            shed = p.shed - p.shed_at_warning,
            refused = p.refused - p.refused_at_warning,
            connections_max = self.limits.connections_max,
            connections_per_address_max = self.limits.per_address_max,
            "connections shed or refused (caps reached, or requests not completed within the header timeout)"
        );
        p.warned = Some(now);
        p.shed_at_warning = p.shed;
        p.refused_at_warning = p.refused;
    }
}
