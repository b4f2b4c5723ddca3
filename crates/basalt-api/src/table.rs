//! Data operations on one table.

use crate::Result;
use basalt_types::{
    Action, ActionResult, Append, CheckAndMutate, Delete, Get, Increment, Nonce, Put, RowMutations,
    RowResult, Scan, SeqId, TableName,
};

/// The outcome of a check-and-mutate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckAndMutateResult {
    pub succeeded: bool,
    /// What increments or appends among the mutations computed.
    pub result: Option<RowResult>,
}

pub use crate::scanner::ResultScanner;

/// A scan opened in its first region ([`Table::open_scan`]).
pub struct OpenedScan {
    pub rows: Box<dyn ResultScanner>,
    /// The MVCC read point the first region's scanner reads at, for a client to give back
    /// (`Scan::read_point`) when it must reopen the scan in that region elsewhere; `None`
    /// when the connection does not know it.
    pub read_point: Option<SeqId>,
}

/// One table's data operations (HBase's `Table`). Single-row operations are atomic.
pub trait Table: Send + Sync {
    fn name(&self) -> &TableName;
    fn get(&self, get: &Get) -> Result<RowResult>;
    /// Results in the order of `gets`.
    fn get_many(&self, gets: &[Get]) -> Result<Vec<RowResult>>;
    fn exists(&self, get: &Get) -> Result<bool>;
    fn put(&self, put: &Put) -> Result<()>;
    /// Not atomic across rows.
    fn put_many(&self, puts: &[Put]) -> Result<()>;
    fn delete(&self, delete: &Delete) -> Result<()>;
    fn delete_many(&self, deletes: &[Delete]) -> Result<()>;
    fn increment(&self, increment: &Increment) -> Result<RowResult>;
    fn append(&self, append: &Append) -> Result<RowResult>;
    fn check_and_mutate(&self, check: &CheckAndMutate) -> Result<CheckAndMutateResult>;
    fn mutate_row(&self, mutations: &RowMutations) -> Result<RowResult>;
    /// Every action runs; each gets its own result.
    fn batch(&self, actions: &[Action]) -> Vec<Result<ActionResult>>;
    /// Runs one action a client named with `nonce` (a mutation, which a retry could apply
    /// twice). A server hosting the region keeps the nonce in the action's log record; a
    /// nonce its region already knows (the operation was applied, here or before the
    /// region moved or its server died) is not applied again: a put or delete answers
    /// done, the others HBase's `OperationConflictException`.
    /// Connections that keep no log run the action as [`Table::batch`] does.
    fn apply_once(&self, action: &Action, nonce: Nonce) -> Result<ActionResult> {
        let _ = nonce;
        self.batch(std::slice::from_ref(action))
            .pop()
            .unwrap_or_else(|| Err(crate::ApiError::invalid("no result for the action")))
    }
    fn scan(&self, scan: &Scan) -> Result<Box<dyn ResultScanner>>;
    /// Scans only the region named `region` (its encoded name): a region server's scan,
    /// the client walking a table region by region. A connection that does not host
    /// regions by name refuses.
    fn scan_region(&self, scan: &Scan, region: &str) -> Result<Box<dyn ResultScanner>> {
        let _ = scan;
        Err(crate::ApiError::invalid(format!(
            "this connection does not scan region {region} alone"
        )))
    }

    /// [`Table::scan`] (or, given `region`, [`Table::scan_region`]) opened at once in its
    /// first region, telling the read point that region's scanner reads at. Connections
    /// that do not know read points answer `None` and open as `scan` does.
    fn open_scan(&self, scan: &Scan, region: Option<&str>) -> Result<OpenedScan> {
        let rows = match region {
            Some(region) => self.scan_region(scan, region)?,
            None => self.scan(scan)?,
        };
        Ok(OpenedScan {
            rows,
            read_point: None,
        })
    }
}
