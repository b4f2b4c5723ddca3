//! Open scanners: random ids, bound to the connection that opened them, expiring when idle.
//!
//! Thrift's `ScannerID` is an i32. Ids are drawn at random (never sequential), so that one
//! client cannot guess another's; a scanner also answers only the connection that opened
//! it. Every call sweeps the scanners idle for longer than the lease, and the number open
//! at once is bounded. Using another connection's scanner is answered as an unknown one
//! and audited.

use crate::service::Failure;
use basalt_api::ResultScanner;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// HBase's message for an unknown, closed or expired scanner.
pub const INVALID_SCANNER: &str = "scanner ID is invalid";

/// One open scanner.
pub struct OpenScanner {
    pub rows: Box<dyn ResultScanner>,
    /// Answer `sortedColumns` instead of the `columns` map.
    pub sort_columns: bool,
}

struct Entry {
    session: u64,
    last_used: Instant,
    scanner: Arc<Mutex<OpenScanner>>,
}

/// The open scanners of a gateway.
pub struct Scanners {
    open: Mutex<HashMap<i32, Entry>>,
    lease: Duration,
    max_open: usize,
}

impl Scanners {
    pub fn new(lease: Duration, max_open: usize) -> Self {
        Self {
            open: Mutex::new(HashMap::new()),
            lease,
            max_open,
        }
    }

    /// Registers a scanner for `session`; its id.
    pub fn open(&self, session: u64, scanner: OpenScanner) -> Result<i32, Failure> {
        let mut open = self.open.lock();
        self.sweep(&mut open);
        if open.len() >= self.max_open {
            return Err(Failure::Io {
                message: format!("too many open scanners (limit {})", self.max_open),
                can_retry: true,
            });
        }
        let id = loop {
            let id = random_id()?;
            if !open.contains_key(&id) {
                break id;
            }
        };
        open.insert(
            id,
            Entry {
                session,
                last_used: Instant::now(),
                scanner: Arc::new(Mutex::new(scanner)),
            },
        );
        Ok(id)
    }

    /// The scanner `id` of `session`, its lease renewed.
    pub fn get(&self, session: u64, id: i32) -> Result<Arc<Mutex<OpenScanner>>, Failure> {
        let mut open = self.open.lock();
        self.sweep(&mut open);
        match open.get_mut(&id) {
            Some(entry) if entry.session == session => {
                entry.last_used = Instant::now();
                Ok(entry.scanner.clone())
            }
            Some(_) => Err(foreign(id)),
            None => Err(Failure::illegal(INVALID_SCANNER)),
        }
    }

    /// Closes scanner `id` of `session`.
    pub fn close(&self, session: u64, id: i32) -> Result<(), Failure> {
        let mut open = self.open.lock();
        self.sweep(&mut open);
        match open.get(&id) {
            Some(entry) if entry.session == session => {
                open.remove(&id);
                Ok(())
            }
            Some(_) => Err(foreign(id)),
            None => Err(Failure::illegal(INVALID_SCANNER)),
        }
    }

    /// Closes every scanner of `session`.
    pub fn close_session(&self, session: u64) {
        self.open.lock().retain(|_, entry| entry.session != session);
    }

    /// How many scanners are open (after closing the expired ones).
    pub fn len(&self) -> usize {
        let mut open = self.open.lock();
        self.sweep(&mut open);
        open.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn sweep(&self, open: &mut HashMap<i32, Entry>) {
        let now = Instant::now();
        open.retain(|_, entry| now.duration_since(entry.last_used) < self.lease);
    }
}

/// Another connection's scanner: answered as an unknown one (its existence is not
/// revealed), and audited as a denial of the user calling.
fn foreign(id: i32) -> Failure {
    let user = basalt_acl::context::current().map(|p| p.name().to_string());
    basalt_auth::audit::denied(
        user.as_deref().unwrap_or("(unauthenticated)"),
        None,
        "thrift.scanner",
        &format!("scanner {id}"),
        "the scanner belongs to another connection",
    );
    Failure::illegal(INVALID_SCANNER)
}

/// A random positive id.
fn random_id() -> Result<i32, Failure> {
    let mut bytes = [0u8; 4];
    getrandom::fill(&mut bytes)
        .map_err(|e| Failure::io(format!("no randomness for a scanner id: {e}")))?;
    let id = i32::from_be_bytes(bytes) & i32::MAX;
    Ok(id.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty() -> OpenScanner {
        OpenScanner {
            rows: Box::new(basalt_api::Rows(std::iter::empty())),
            sort_columns: false,
        }
    }

    #[test]
    fn ids_are_random_and_bound_to_their_session() {
        let scanners = Scanners::new(Duration::from_secs(60), 10);
        let a = scanners.open(1, empty()).expect("open");
        let b = scanners.open(1, empty()).expect("open");
        assert_ne!(a, b);
        assert_ne!(b.wrapping_sub(a), 1, "ids are not sequential");
        assert!(scanners.get(2, a).is_err(), "another session cannot use it");
        assert!(scanners.close(2, a).is_err());
        assert!(scanners.get(1, a).is_ok());
        scanners.close(1, a).expect("close");
        assert_eq!(
            scanners.get(1, a).err(),
            Some(Failure::illegal(INVALID_SCANNER))
        );
        scanners.close_session(1);
        assert!(scanners.is_empty());
    }

    #[test]
    fn the_count_is_bounded_and_idle_scanners_expire() {
        let scanners = Scanners::new(Duration::from_secs(60), 2);
        scanners.open(1, empty()).expect("open");
        scanners.open(1, empty()).expect("open");
        assert!(matches!(scanners.open(1, empty()), Err(Failure::Io { .. })));
        let short = Scanners::new(Duration::ZERO, 2);
        let id = short.open(1, empty()).expect("open");
        assert!(short.get(1, id).is_err(), "a zero lease expires at once");
    }
}
