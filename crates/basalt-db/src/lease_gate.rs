//! The lease gate: a region server answers only while its coordinator lease is live.
//!
//! A region server owns its regions for as long as its lease lives. Once the lease
//! expires at the coordinator, the master reads the server's log and reopens its regions
//! elsewhere; a server that was paused (a stalled machine, SIGSTOP, a long suspend) can
//! wake after that and find requests waiting in its sockets. Were it to apply and
//! acknowledge them, the writes would land in a log nobody reads any more (lost although
//! acknowledged) and the reads would miss writes acknowledged by the new owner (stale).
//!
//! So every answer passes the gate after its work is done and before it is sent: a write
//! after its log sync, a read after it was read, a scanned row before it is returned. The
//! gate asks the lease keeper's local deadline — a bound the coordinator's expiry cannot
//! precede — on the boot clock, at the moment of asking; it does not wait for the keeper's
//! task to notice. Past the deadline the answer is `NotServingRegionException` (the
//! client asks the master where the region is and retries). A write refused this way may
//! or may not be in the log: like a timeout, its outcome is unknown to the client, and a
//! retried increment or append is then recognised by its nonce.
//!
//! A database with no gate set (embedded, tools) always passes.
//!
//! An operation the client named with a nonce ([`basalt_api::Table::apply_once`]) that was
//! applied but refused at the gate keeps its result here ([`Withheld`]): the client retries
//! with the same nonce, and once the lease is renewed the retry gets that result instead of
//! applying the increment (or check-and-put) a second time. If the lease is gone instead,
//! the process stops and the retry reaches the region's next server, which knows the nonce
//! from the log it replayed.

use basalt_api::Result;
use basalt_types::{ActionResult, Nonce};
use parking_lot::Mutex;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, OnceLock};

/// How many withheld results are kept (the oldest go first).
const WITHHELD_MAX: usize = 10_000;

/// Results of operations applied while the lease had lapsed, by nonce.
#[derive(Debug, Default)]
pub(crate) struct Withheld {
    inner: Mutex<(HashMap<Nonce, ActionResult>, VecDeque<Nonce>)>,
}

impl Withheld {
    pub(crate) fn keep(&self, nonce: Nonce, result: ActionResult) {
        let mut inner = self.inner.lock();
        let (results, order) = &mut *inner;
        if results.insert(nonce, result).is_none() {
            order.push_back(nonce);
        }
        while order.len() > WITHHELD_MAX {
            if let Some(old) = order.pop_front() {
                results.remove(&old);
            }
        }
    }

    pub(crate) fn take(&self, nonce: Nonce) -> Option<ActionResult> {
        let mut inner = self.inner.lock();
        let (results, order) = &mut *inner;
        let result = results.remove(&nonce)?;
        order.retain(|n| *n != nonce);
        Some(result)
    }
}

/// Whether the server may answer now (the lease keeper's deadline has not passed).
pub type MayServe = Arc<dyn Fn() -> bool + Send + Sync>;

/// The gate a database's answers pass; open until [`Gate::set`] is called.
#[derive(Default)]
pub(crate) struct Gate {
    may_serve: OnceLock<MayServe>,
}

impl Gate {
    /// Installs the check (once: a second call is ignored, as a server has one lease).
    pub(crate) fn set(&self, may_serve: MayServe) {
        let _ = self.may_serve.set(may_serve);
    }

    /// Ok when the server may answer; NotServingRegion naming the lapsed lease otherwise.
    pub(crate) fn pass(&self, server: &str) -> Result<()> {
        match self.may_serve.get() {
            Some(may_serve) if !may_serve() => Err(crate::host::not_serving(&format!(
                "region server {server} is past its coordinator lease's deadline: it \
                 answers nothing until the lease is renewed (its regions may be reopening \
                 elsewhere)"
            ))),
            _ => Ok(()),
        }
    }
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate")
            .field("set", &self.may_serve.get().is_some())
            .finish()
    }
}

impl crate::Database {
    /// Gates every answer of this database on `may_serve` (see the module's story). A
    /// region server sets it once, from its lease keeper, before it serves.
    pub fn set_lease_gate(&self, may_serve: MayServe) {
        self.gate.set(may_serve);
    }

    /// Whether an answer may be sent now.
    pub(crate) fn admit(&self) -> Result<()> {
        self.gate.pass(&self.server_name)
    }
}
