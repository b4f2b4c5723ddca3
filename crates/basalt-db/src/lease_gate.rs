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
//! after its log sync, a read after it was read, a scanner's answer (the rows of one
//! response, taken with no check of their own; or a row taken alone) before it is
//! returned. The
//! gate asks the lease keeper's local deadline — a bound the coordinator's expiry cannot
//! precede — on the boot clock, at the moment of asking; it does not wait for the keeper's
//! task to notice. Past the deadline the answer depends on what was done:
//!
//! | answer of | refused with | the client learns |
//! |---|---|---|
//! | a read, a scanner's answer | `NotServingRegionException` | nothing was done: ask the master, retry |
//! | a write already logged | `CallTimeoutException` ([`ApiError::outcome_unknown`]) | it may or may not have happened: retry |
//!
//! A logged write may or may not survive (the new owner replays the log up to its seal),
//! so `NotServingRegionException` — which a client that gives up reads as "not applied" —
//! would be a lie; HBase's client treats `CallTimeoutException` as a call whose answer was
//! lost and retries it, as Basalt's does. A retried increment or append is then recognised
//! by its nonce.
//!
//! A database with no gate set (embedded, tools) always passes.
//!
//! An operation the client named with a nonce ([`basalt_api::Table::apply_once`]) that was
//! applied but refused at the gate keeps its result here ([`Withheld`]): the client retries
//! with the same nonce, and once the lease is renewed the retry gets that result instead of
//! applying the increment (or check-and-put) a second time. If the lease is gone instead,
//! the process stops and the retry reaches the region's next server, which knows the nonce
//! from the log it replayed.

use basalt_api::{ApiError, Result};
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

    /// Ok when the server may answer `answer`; otherwise the [`refusal`] of it.
    pub(crate) fn pass(&self, server: &str, answer: Answer) -> Result<()> {
        match self.may_serve.get() {
            Some(may_serve) if !may_serve() => Err(refusal(server, answer)),
            _ => Ok(()),
        }
    }
}

/// What an answer stopped at the gate reports on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// A read: nothing was changed.
    Read,
    /// A write already applied and logged: it may survive the lease.
    Written,
}

/// The error an answer gets past the lease's deadline (see the module's table).
pub fn refusal(server: &str, answer: Answer) -> ApiError {
    match answer {
        Answer::Read => crate::host::not_serving(&format!(
            "region server {server} is past its coordinator lease's deadline: it \
             answers nothing until the lease is renewed (its regions may be reopening \
             elsewhere)"
        )),
        Answer::Written => ApiError::outcome_unknown(format!(
            "outcome unknown: region server {server} logged the write but passed its \
             coordinator lease's deadline before it could acknowledge it; the write may \
             or may not have happened (its regions may be reopening elsewhere): retry it"
        )),
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

    /// Whether the answer of a read may be sent now.
    pub(crate) fn admit(&self) -> Result<()> {
        self.gate.pass(&self.server_name, Answer::Read)
    }

    /// Whether the answer of a write already logged may be sent now.
    pub(crate) fn admit_written(&self) -> Result<()> {
        self.gate.pass(&self.server_name, Answer::Written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_api::ErrorKind;
    use std::sync::atomic::{AtomicBool, Ordering};

    #[test]
    fn a_closed_gate_refuses_a_read_as_not_serving_and_a_logged_write_as_outcome_unknown() {
        let open = Arc::new(AtomicBool::new(true));
        let gate = Gate::default();
        let flag = open.clone();
        gate.set(Arc::new(move || flag.load(Ordering::SeqCst)));
        assert!(gate.pass("s,1,2", Answer::Read).is_ok());
        assert!(gate.pass("s,1,2", Answer::Written).is_ok());

        open.store(false, Ordering::SeqCst);
        let read = gate.pass("s,1,2", Answer::Read).expect_err("refused");
        assert_eq!(read.kind, ErrorKind::RetryElsewhere);
        assert_eq!(read.short_name(), "NotServingRegionException");
        assert!(!read.is_outcome_unknown());
        let written = gate.pass("s,1,2", Answer::Written).expect_err("refused");
        assert_eq!(written.kind, ErrorKind::Unavailable, "a client retries it");
        assert_eq!(written.short_name(), "CallTimeoutException");
        assert!(written.is_outcome_unknown());
        assert!(written.message.contains("s,1,2"), "{written}");
        assert!(written.message.contains("may or may not"), "{written}");
    }

    #[test]
    fn no_gate_set_passes_everything() {
        let gate = Gate::default();
        assert!(gate.pass("s,1,2", Answer::Written).is_ok());
        assert!(gate.pass("s,1,2", Answer::Read).is_ok());
    }
}
