//! Open scanners: random 64-bit ids, leases, a bound, and a short memory of finished ones.
//!
//! HBase's scanner ids are per region server, not per connection (a client may continue a
//! scan on another connection to the same server), so they are drawn at random, never
//! sequential. Every call sweeps the scanners idle past the lease.
//!
//! When a scanner reaches its region's end it is finished: HBase closes it at once, and a
//! later `next` gets `UnknownScannerException`. Basalt remembers finished ids for one lease
//! and answers a `next` on one with no rows and `more_results_in_region = false`: some
//! clients (`hbase-driver`) call again after an empty first answer. Truly unknown or
//! expired ids still get `UnknownScannerException`.

use super::source::RowSource;
use crate::RpcError;
use basalt_api::ApiError;
use basalt_types::RowResult;
use bytes::Bytes;
use parking_lot::Mutex;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Rows in the scan's order.
pub type Rows = Box<dyn Iterator<Item = Result<RowResult, ApiError>> + Send>;

/// One open scanner.
pub struct OpenScanner {
    pub rows: RowSource,
    /// The rest of a row cut at an answer's byte budget: the next answer starts with it.
    pub pending: Option<RowResult>,
    /// Rows the client may still receive (`limit_of_rows`).
    pub rows_left: Option<u64>,
    /// The answer's byte budget.
    pub max_result_bytes: u64,
}

struct Entry {
    last_used: Instant,
    scanner: Arc<Mutex<OpenScanner>>,
}

/// What [`Scanners::lookup`] found.
pub enum Found {
    Open(Arc<Mutex<OpenScanner>>),
    Finished,
}

/// The scanners of a server.
pub struct Scanners {
    open: Mutex<HashMap<u64, Entry>>,
    finished: Mutex<VecDeque<(u64, Instant)>>,
    lease: Duration,
    max_open: usize,
}

/// Finished ids remembered at most.
const FINISHED_MAX: usize = 4096;

impl Scanners {
    pub fn new(lease: Duration, max_open: usize) -> Self {
        Self {
            open: Mutex::new(HashMap::new()),
            finished: Mutex::new(VecDeque::new()),
            lease,
            max_open,
        }
    }

    pub fn lease(&self) -> Duration {
        self.lease
    }

    /// Registers a scanner; its id.
    pub fn open(&self, scanner: OpenScanner) -> Result<u64, RpcError> {
        let mut open = self.open.lock();
        self.sweep(&mut open);
        if open.len() >= self.max_open {
            return Err(RpcError::new(
                "org.apache.hadoop.hbase.RegionTooBusyException",
                format!("too many open scanners (limit {})", self.max_open),
                false,
            ));
        }
        let id = loop {
            let id = random_id()?;
            if id != 0 && !open.contains_key(&id) {
                break id;
            }
        };
        open.insert(
            id,
            Entry {
                last_used: Instant::now(),
                scanner: Arc::new(Mutex::new(scanner)),
            },
        );
        Ok(id)
    }

    pub fn lookup(&self, id: u64) -> Result<Found, RpcError> {
        let mut open = self.open.lock();
        self.sweep(&mut open);
        if let Some(entry) = open.get_mut(&id) {
            entry.last_used = Instant::now();
            return Ok(Found::Open(entry.scanner.clone()));
        }
        drop(open);
        let finished = self.finished.lock();
        match finished.iter().any(|(f, _)| *f == id) {
            true => Ok(Found::Finished),
            false => Err(RpcError::unknown_scanner(id)),
        }
    }

    /// Closes `id` because the client asked (`finished == false`) or because it reached
    /// its region's end (`finished == true`, remembered for one lease).
    pub fn close(&self, id: u64, finished: bool) {
        self.open.lock().remove(&id);
        if finished {
            let mut done = self.finished.lock();
            let now = Instant::now();
            while done
                .front()
                .is_some_and(|(_, at)| now.duration_since(*at) > self.lease)
                || done.len() >= FINISHED_MAX
            {
                done.pop_front();
            }
            done.push_back((id, now));
        }
    }

    pub fn open_count(&self) -> usize {
        let mut open = self.open.lock();
        self.sweep(&mut open);
        open.len()
    }

    fn sweep(&self, open: &mut HashMap<u64, Entry>) {
        let now = Instant::now();
        let before = open.len();
        open.retain(|_, e| now.duration_since(e.last_used) <= self.lease);
        if open.len() < before {
            tracing::debug!(
                expired = before - open.len(),
                "closed scanners past their lease"
            );
        }
    }
}

fn random_id() -> Result<u64, RpcError> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(|e| {
        RpcError::new(
            "java.io.IOException",
            format!("no randomness for a scanner id: {e}"),
            false,
        )
    })?;
    // Positive as a Java long.
    Ok(u64::from_be_bytes(bytes) >> 1)
}

/// A scanner over rows already in memory (`hbase:meta`'s).
pub fn rows_of(rows: Vec<RowResult>) -> Rows {
    Box::new(rows.into_iter().map(Ok))
}

/// Rows of `rows` while they stay inside `[start, end)` (an empty `end` is unbounded).
pub fn within_region(rows: Rows, start: Bytes, end: Bytes) -> Rows {
    Box::new(rows.take_while(move |r| {
        match r {
            Ok(row) => row
                .row()
                .is_none_or(|key| key >= start.as_ref() && (end.is_empty() || key < end.as_ref())),
            Err(_) => true,
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_types::Cell;

    fn row(key: &'static [u8]) -> RowResult {
        RowResult::new(vec![Cell::put(
            Bytes::from_static(key),
            Bytes::from_static(b"f"),
            Bytes::from_static(b"q"),
            1,
            Bytes::new(),
        )])
    }

    #[test]
    fn finished_scanners_answer_empty_and_unknown_ones_fail() {
        let scanners = Scanners::new(Duration::from_secs(60), 10);
        let id = scanners
            .open(OpenScanner {
                rows: RowSource::direct(rows_of(vec![])),
                pending: None,
                rows_left: None,
                max_result_bytes: 1,
            })
            .expect("opens");
        assert!(matches!(scanners.lookup(id), Ok(Found::Open(_))));
        scanners.close(id, true);
        assert!(matches!(scanners.lookup(id), Ok(Found::Finished)));
        let unknown = scanners.lookup(id ^ 1).err().expect("unknown");
        assert_eq!(unknown.class, crate::error::UNKNOWN_SCANNER);
    }

    #[test]
    fn scanners_are_bounded_and_expire() {
        let scanners = Scanners::new(Duration::from_millis(0), 1);
        let open = || OpenScanner {
            rows: RowSource::direct(rows_of(vec![])),
            pending: None,
            rows_left: None,
            max_result_bytes: 1,
        };
        let first = scanners.open(open()).expect("first");
        std::thread::sleep(Duration::from_millis(2));
        // The first expired, so there is room.
        scanners.open(open()).expect("second");
        assert!(scanners.lookup(first).is_err());
        assert!(Scanners::new(Duration::from_secs(60), 1)
            .open(open())
            .is_ok());
    }

    #[test]
    fn rows_stop_at_the_region_end() {
        let rows = rows_of(vec![row(b"a"), row(b"m"), row(b"z")]);
        let kept: Vec<_> = within_region(rows, Bytes::new(), Bytes::from_static(b"n"))
            .map(|r| r.expect("row").row_bytes())
            .collect();
        assert_eq!(kept.len(), 2);
    }
}
