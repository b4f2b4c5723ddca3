//! The open stateful scanners: limits per client and in all, leases, and batching of
//! cells into responses.
//!
//! A scanner lives until `DELETE`, or until it goes a lease unused: every lookup of an
//! expired scanner removes it (404), and the server sweeps the rest periodically.
//!
//! A scanner belongs to the user who opened it (with authentication on): another user
//! naming its id is answered as if it did not exist (404, and an audit line), so ids
//! cannot be probed, and the scanner goes on for its owner.

use crate::config::RestConfig;
use crate::error::{RestError, Result};
use basalt_api::ResultScanner;
use basalt_types::{Cell, TableName};
use parking_lot::Mutex;
use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Where a scan stands between requests.
struct Cursor {
    rows: Box<dyn ResultScanner>,
    /// Cells of the current row not yet sent.
    pending: VecDeque<Cell>,
    exhausted: bool,
}

/// One open scanner.
pub struct OpenScanner {
    pub table: TableName,
    client: IpAddr,
    /// The user who opened it (None: authentication off).
    owner: Option<String>,
    /// Most cells one request returns.
    pub batch_cells: u32,
    last_used: Mutex<Instant>,
    cursor: Mutex<Cursor>,
}

impl OpenScanner {
    /// Up to `max` next cells (fewer at the end); runs the scan, so call off async threads.
    pub fn next_cells(&self, max: usize) -> Result<Vec<Cell>> {
        let mut cursor = self.cursor.lock();
        let mut out = Vec::new();
        while out.len() < max {
            if let Some(cell) = cursor.pending.pop_front() {
                out.push(cell);
                continue;
            }
            if cursor.exhausted {
                break;
            }
            match cursor.rows.next() {
                Some(row) => cursor.pending.extend(row?.cells),
                None => cursor.exhausted = true,
            }
        }
        *self.last_used.lock() = Instant::now();
        Ok(out)
    }
}

/// Who names a scanner: the user (None: authentication off) and the address.
pub struct Asker<'a> {
    pub user: Option<&'a str>,
    pub client: IpAddr,
}

impl Asker<'_> {
    /// Whether the scanner `id` is this asker's; a refusal is audited.
    fn owns(&self, scanner: &OpenScanner, id: &str) -> bool {
        let owns = scanner.owner.as_deref() == self.user;
        if !owns {
            basalt_auth::audit::denied(
                self.user.unwrap_or("(none)"),
                Some(self.client),
                "REST scanner",
                &format!("{}/scanner/{id}", scanner.table),
                "the scanner belongs to another user",
            );
        }
        owns
    }
}

/// Every open scanner, by id.
pub struct Scanners {
    open: Mutex<HashMap<String, Arc<OpenScanner>>>,
    lease: Duration,
    per_client_max: usize,
    total_max: usize,
}

fn new_id() -> Result<String> {
    let mut bytes = [0u8; 12];
    getrandom::fill(&mut bytes)
        .map_err(|e| RestError::Unavailable(format!("no randomness for a scanner id: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

impl Scanners {
    pub fn new(config: &RestConfig) -> Self {
        Self {
            open: Mutex::new(HashMap::new()),
            lease: Duration::from_millis(config.scanner_lease_ms),
            per_client_max: config.scanners_per_client_max,
            total_max: config.scanners_max,
        }
    }

    /// Registers a scanner for `client`, owned by `owner`; fails over either limit.
    pub fn open(
        &self,
        table: TableName,
        client: IpAddr,
        owner: Option<String>,
        batch_cells: u32,
        rows: Box<dyn ResultScanner>,
    ) -> Result<String> {
        self.sweep();
        let id = new_id()?;
        let mut open = self.open.lock();
        if open.len() >= self.total_max {
            return Err(RestError::TooManyScanners(format!(
                "{} scanners are open, the most this gateway allows",
                self.total_max
            )));
        }
        let mine = open.values().filter(|s| s.client == client).count();
        if mine >= self.per_client_max {
            return Err(RestError::TooManyScanners(format!(
                "client {client} has {mine} scanners open, the most one client may have; \
                 DELETE some first"
            )));
        }
        let scanner = OpenScanner {
            table,
            client,
            owner,
            batch_cells,
            last_used: Mutex::new(Instant::now()),
            cursor: Mutex::new(Cursor {
                rows,
                pending: VecDeque::new(),
                exhausted: false,
            }),
        };
        open.insert(id.clone(), Arc::new(scanner));
        Ok(id)
    }

    /// The scanner `id` of `table` for `asker`; an expired one is removed and not found,
    /// another user's is not found.
    pub fn get(&self, table: &TableName, id: &str, asker: &Asker) -> Result<Arc<OpenScanner>> {
        let mut open = self.open.lock();
        let scanner = open
            .get(id)
            .filter(|s| &s.table == table && asker.owns(s, id))
            .cloned()
            .ok_or_else(|| RestError::NotFound(format!("no scanner '{id}' on table {table}")))?;
        if scanner.last_used.lock().elapsed() > self.lease {
            open.remove(id);
            return Err(RestError::NotFound(format!(
                "scanner '{id}' expired after its lease of {} ms",
                self.lease.as_millis()
            )));
        }
        Ok(scanner)
    }

    /// Closes scanner `id` of `table`, if `asker`'s.
    pub fn close(&self, table: &TableName, id: &str, asker: &Asker) -> Result<()> {
        let mut open = self.open.lock();
        match open.get(id) {
            Some(s) if &s.table == table && asker.owns(s, id) => {
                open.remove(id);
                Ok(())
            }
            _ => Err(RestError::NotFound(format!(
                "no scanner '{id}' on table {table}"
            ))),
        }
    }

    /// Drops every scanner past its lease; returns how many.
    pub fn sweep(&self) -> usize {
        let mut open = self.open.lock();
        let before = open.len();
        let lease = self.lease;
        open.retain(|_, s| s.last_used.lock().elapsed() <= lease);
        before - open.len()
    }

    pub fn len(&self) -> usize {
        self.open.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How often the server sweeps.
    pub fn sweep_interval(&self) -> Duration {
        (self.lease / 4).clamp(Duration::from_millis(10), Duration::from_secs(30))
    }
}
