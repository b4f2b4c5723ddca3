//! Server-side scanners: open ones by id, with leases that expire idle ones.
//!
//! A scanner id is 16 bytes from the operating system's random source, so one client
//! cannot guess (and read or close) another's scanner. A scanner unused for the lease is
//! expired: the next call naming it gets `UnknownScannerException`, and a reaper task
//! drops it. A scanner in use (its lock held by a running call) is never reaped.

use basalt_api::{ApiError, ErrorKind, Result, ResultScanner};
use basalt_proto::status::{OUT_OF_ORDER_SCANNER_NEXT, SERVER_BUSY, UNKNOWN_SCANNER};
use basalt_types::RowResult;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub const SCANNER_ID_BYTES: usize = 16;
pub type ScannerId = [u8; SCANNER_ID_BYTES];

/// Which ScannerNext call comes next, and the last answer (for a retry of it).
#[derive(Default)]
struct Progress {
    next_seq: u64,
    /// Shared with the response it was sent in: a retry repeats it without a copy.
    last: Option<(Arc<Vec<RowResult>>, bool)>,
}

/// One open scanner.
pub struct Entry {
    scanner: Mutex<Box<dyn ResultScanner>>,
    progress: Mutex<Progress>,
    last_used: Mutex<Instant>,
    /// Rows per response when a call does not say.
    pub caching: u32,
    pub result_max_bytes: u64,
    /// What the slow log says of the scan that opened it.
    pub origin: crate::table_service::described::Described,
    /// The principal that opened it: nobody else may read or close it.
    owner: String,
}

impl Entry {
    /// The scanner of the scan `origin` describes.
    pub fn with_origin(mut self, origin: crate::table_service::described::Described) -> Self {
        self.origin = origin;
        self
    }

    pub fn new(scanner: Box<dyn ResultScanner>, caching: u32, result_max_bytes: u64) -> Self {
        Self {
            scanner: Mutex::new(scanner),
            progress: Mutex::new(Progress::default()),
            last_used: Mutex::new(Instant::now()),
            caching,
            result_max_bytes,
            origin: Default::default(),
            owner: String::new(),
        }
    }

    /// The scanner, owned by the principal named `owner`.
    pub fn owned_by(mut self, owner: &str) -> Self {
        self.owner = owner.to_string();
        self
    }

    /// Up to `caching` rows, stopping early past `result_max_bytes` (at least one row), and
    /// whether more may follow.
    pub fn next_rows(&self, caching: u32) -> Result<(Vec<RowResult>, bool)> {
        // One answer: the database checks and counts it once, not row by row.
        let (rows, more) = self
            .scanner
            .lock()
            .next_answer(caching as usize, self.result_max_bytes)?;
        *self.last_used.lock() = Instant::now();
        Ok((rows, more))
    }

    /// The rows of ScannerNext call number `call_seq`: the next page when it is the next
    /// call, the same page again when it repeats the last call (a client retry after a
    /// lost response), an error otherwise.
    pub fn next_call(&self, call_seq: u64, caching: u32) -> Result<(Arc<Vec<RowResult>>, bool)> {
        let mut progress = self.progress.lock();
        if call_seq == progress.next_seq {
            let (rows, more) = self.next_rows(caching)?;
            let rows = Arc::new(rows);
            progress.next_seq += 1;
            progress.last = Some((rows.clone(), more));
            return Ok((rows, more));
        }
        if call_seq.checked_add(1) == Some(progress.next_seq) {
            if let Some(last) = &progress.last {
                return Ok(last.clone());
            }
        }
        Err(ApiError::new(
            ErrorKind::InvalidRequest,
            OUT_OF_ORDER_SCANNER_NEXT,
            format!(
                "expected ScannerNext call {}, got call {call_seq}",
                progress.next_seq
            ),
        ))
    }

    fn expired(&self, now: Instant, lease: Duration) -> bool {
        now.saturating_duration_since(*self.last_used.lock()) > lease
    }

    fn in_use(&self) -> bool {
        self.scanner.try_lock().is_none()
    }
}

/// The open scanners of a server.
pub struct Registry {
    lease: Duration,
    scanners_max: usize,
    open: Mutex<HashMap<ScannerId, Arc<Entry>>>,
}

fn not_yours(caller: &str) -> ApiError {
    ApiError::new(
        ErrorKind::InvalidRequest,
        basalt_proto::status::ACCESS_DENIED,
        format!(
            "Insufficient permissions for user '{caller}': the scanner was opened by another user"
        ),
    )
}

fn unknown(message: String) -> ApiError {
    ApiError::new(ErrorKind::NotFound, UNKNOWN_SCANNER, message)
}

impl Registry {
    pub fn new(lease: Duration, scanners_max: usize) -> Self {
        Self {
            lease,
            scanners_max,
            open: Mutex::new(HashMap::new()),
        }
    }

    pub fn lease(&self) -> Duration {
        self.lease
    }

    /// Registers `entry` under a fresh random id.
    pub fn insert(&self, entry: Entry) -> Result<ScannerId> {
        let mut id = [0u8; SCANNER_ID_BYTES];
        getrandom::fill(&mut id).map_err(|e| {
            ApiError::new(
                ErrorKind::Unavailable,
                "java.io.IOException",
                format!("no randomness for a scanner id: {e}"),
            )
        })?;
        let mut open = self.open.lock();
        if open.len() >= self.scanners_max {
            return Err(ApiError::new(
                ErrorKind::Busy,
                SERVER_BUSY,
                format!("{} scanners are open; close some first", open.len()),
            ));
        }
        open.insert(id, Arc::new(entry));
        Ok(id)
    }

    /// The scanner named by `id` for the principal named `caller`: a scanner another
    /// principal opened is refused (and its lease not renewed).
    pub fn get_for(&self, id: &[u8], caller: &str) -> Result<Arc<Entry>> {
        let entry = self.peek(id)?;
        if entry.owner != caller {
            return Err(not_yours(caller));
        }
        self.get(id)
    }

    /// Forgets the scanner `id` if `caller` opened it; whether there was one.
    pub fn remove_for(&self, id: &[u8], caller: &str) -> Result<bool> {
        match self.peek(id) {
            Ok(entry) if entry.owner != caller => Err(not_yours(caller)),
            Ok(_) => Ok(self.remove(id)),
            Err(_) => Ok(false),
        }
    }

    fn peek(&self, id: &[u8]) -> Result<Arc<Entry>> {
        let id: ScannerId = id.try_into().map_err(|_| {
            ApiError::invalid(format!(
                "a scanner id is {SCANNER_ID_BYTES} bytes, not {}",
                id.len()
            ))
        })?;
        self.open
            .lock()
            .get(&id)
            .cloned()
            .ok_or_else(|| unknown("Unknown scanner (closed, finished or expired)".into()))
    }

    /// The scanner named by `id`, unless it expired.
    pub fn get(&self, id: &[u8]) -> Result<Arc<Entry>> {
        let id: ScannerId = id.try_into().map_err(|_| {
            ApiError::invalid(format!(
                "a scanner id is {SCANNER_ID_BYTES} bytes, not {}",
                id.len()
            ))
        })?;
        let mut open = self.open.lock();
        let entry = open
            .get(&id)
            .cloned()
            .ok_or_else(|| unknown("Unknown scanner (closed, finished or expired)".into()))?;
        let now = Instant::now();
        if !entry.in_use() && entry.expired(now, self.lease) {
            open.remove(&id);
            return Err(unknown(format!(
                "Scanner expired: unused for more than its {} ms lease",
                self.lease.as_millis()
            )));
        }
        // Renewed now, so the reaper cannot drop it between this lookup and its use.
        *entry.last_used.lock() = now;
        Ok(entry)
    }

    /// What the slow log says of a `ScannerNext` on scanner `id`: its scan's table and
    /// region, and the scanner.
    pub fn describe(&self, id: &[u8]) -> crate::table_service::described::Described {
        let mut described = self
            .get(id)
            .map(|entry| entry.origin.clone())
            .unwrap_or_default();
        described.param = format!(
            "next scanner={} of {}",
            basalt_types::escape::to_string_binary(id),
            described.param
        );
        described
    }

    pub fn remove(&self, id: &[u8]) -> bool {
        let Ok(id) = ScannerId::try_from(id) else {
            return false;
        };
        self.open.lock().remove(&id).is_some()
    }

    /// Drops expired scanners; returns how many.
    pub fn reap(&self) -> usize {
        let now = Instant::now();
        let mut open = self.open.lock();
        let before = open.len();
        open.retain(|_, e| e.in_use() || !e.expired(now, self.lease));
        before - open.len()
    }

    pub fn len(&self) -> usize {
        self.open.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_types::Cell;

    fn rows(n: usize) -> Box<dyn ResultScanner> {
        let it = (0..n).map(|i| {
            Ok(RowResult::new(vec![Cell::put(
                format!("r{i}"),
                "f",
                "q",
                1,
                "v",
            )]))
        });
        Box::new(basalt_api::Rows(it.collect::<Vec<_>>().into_iter()))
    }

    #[test]
    fn ids_are_random_and_unknown_ids_fail() {
        let reg = Registry::new(Duration::from_secs(60), 10);
        let a = reg.insert(Entry::new(rows(1), 1, 1 << 20)).expect("room");
        let b = reg.insert(Entry::new(rows(1), 1, 1 << 20)).expect("room");
        assert_ne!(a, b);
        assert!(reg.get(&a).is_ok());
        assert_eq!(
            reg.get(&[0u8; 16]).err().map(|e| e.kind),
            Some(ErrorKind::NotFound)
        );
        assert_eq!(
            reg.get(b"short").err().map(|e| e.kind),
            Some(ErrorKind::InvalidRequest)
        );
    }

    #[test]
    fn caching_and_size_bound_a_response() {
        let e = Entry::new(rows(5), 2, 1 << 20);
        assert_eq!(e.next_rows(2).map(|(r, m)| (r.len(), m)), Ok((2, true)));
        let small = Entry::new(rows(5), 10, 1);
        assert_eq!(
            small.next_rows(10).map(|(r, m)| (r.len(), m)),
            Ok((1, true))
        );
        assert_eq!(e.next_rows(10).map(|(r, m)| (r.len(), m)), Ok((3, false)));
    }

    #[test]
    fn a_repeated_call_gets_the_same_rows_and_a_skipped_one_fails() {
        let e = Entry::new(rows(5), 2, 1 << 20);
        let first = e.next_call(0, 2).expect("call 0");
        assert_eq!(e.next_call(0, 2).expect("retry of call 0"), first);
        let second = e.next_call(1, 2).expect("call 1");
        assert_ne!(second, first);
        let err = e.next_call(3, 2).expect_err("call 2 skipped");
        assert_eq!(err.short_name(), "OutOfOrderScannerNextException");
        assert!(e.next_call(0, 2).is_err(), "too old to repeat");
    }

    #[test]
    fn idle_scanners_expire_and_the_registry_is_bounded() {
        let reg = Registry::new(Duration::ZERO, 1);
        let a = reg.insert(Entry::new(rows(1), 1, 1 << 20)).expect("room");
        assert_eq!(
            reg.insert(Entry::new(rows(1), 1, 1 << 20))
                .err()
                .map(|e| e.kind),
            Some(ErrorKind::Busy)
        );
        let deadline = Instant::now() + Duration::from_secs(5);
        while reg.reap() == 0 && Instant::now() < deadline {
            std::thread::yield_now();
        }
        assert!(reg.get(&a).is_err());
        assert!(reg.is_empty());
    }
}
