//! The embedded `Table`: every operation routed to the region holding its row, retried
//! when that region is splitting or has moved, and counted in the database's metrics.

use crate::database::Database;
use crate::error::from_storage;
use crate::metrics::Op;
use crate::scanner::TableScanner;
use basalt_api::{CheckAndMutateResult, ErrorKind, OpenedScan, Result, ResultScanner, Table};
use basalt_storage::Region;
use basalt_types::{
    Action, ActionResult, Append, CheckAndMutate, Delete, Get, Increment, Nonce, Put, RowMutations,
    RowResult, Scan, TableName,
};
use bytes::Bytes;
use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Writes per region batch of `put_many`/`delete_many` (one log record, one sync each).
const BATCH_MAX: usize = 1000;

/// How many times an operation is re-routed before giving up (about 5 s in all).
const ROUTING_ATTEMPTS: u32 = 100;

/// The pause before re-routing attempt `attempt`.
pub(crate) fn backoff(attempt: u32) -> Duration {
    Duration::from_millis(u64::from(attempt.min(50)))
}

#[derive(Debug)]
pub struct DbTable {
    db: Arc<Database>,
    name: TableName,
}

impl DbTable {
    pub(crate) fn new(db: Arc<Database>, name: TableName) -> Self {
        Self { db, name }
    }

    /// Refuses client writes to system tables (`hbase:meta` changes only through DDL).
    fn writable(&self) -> Result<()> {
        if self.name.is_system() {
            return Err(basalt_api::ApiError::new(
                ErrorKind::InvalidRequest,
                crate::error::DO_NOT_RETRY,
                format!("{} is written by the catalog only", self.name),
            ));
        }
        Ok(())
    }

    /// Runs `body`, recording its latency and outcome as one request of kind `op`.
    fn measured<T>(&self, op: Op, body: impl FnOnce() -> Result<T>) -> Result<T> {
        let started = Instant::now();
        let result = body();
        self.db.metrics().record(op, started, &result);
        result
    }

    /// Runs `op` on the region holding `row`, re-routing while regions move; the answer
    /// passes the lease gate (after the log sync).
    fn on_row<T>(
        &self,
        row: &[u8],
        op: impl Fn(&Region) -> basalt_storage::Result<T>,
    ) -> Result<T> {
        let value = self.on_row_ungated(row, op)?;
        self.db.admit().map(|()| value)
    }

    /// As [`DbTable::on_row`] for a write: refused past the lease's deadline as a call
    /// whose outcome is unknown, since it is logged by then.
    fn on_row_write<T>(
        &self,
        row: &[u8],
        op: impl Fn(&Region) -> basalt_storage::Result<T>,
    ) -> Result<T> {
        let value = self.on_row_ungated(row, op)?;
        self.db.admit_written().map(|()| value)
    }

    /// [`DbTable::on_row`] without the lease gate: the caller passes it.
    fn on_row_ungated<T>(
        &self,
        row: &[u8],
        op: impl Fn(&Region) -> basalt_storage::Result<T>,
    ) -> Result<T> {
        let mut attempt = 0;
        loop {
            let region = self.db.catalog.read().locate(&self.name, row)?;
            match op(&region).map_err(from_storage) {
                Err(e) if e.kind == ErrorKind::RetryElsewhere && attempt < ROUTING_ATTEMPTS => {
                    attempt += 1;
                    std::thread::sleep(backoff(attempt));
                }
                other => return other,
            }
        }
    }
}

impl DbTable {
    /// Writes `items` in order, in region batches: consecutive items on distinct rows of
    /// one region (at most [`BATCH_MAX`]) go as one log record with one sync. A batch that
    /// fails (its region split meanwhile, or an item is bad) is written item by item, so
    /// each item gets its own result; with `stop_at_failure` the first failure ends it.
    /// Each item counts as one `op` request when `op` is given.
    fn write_grouped<T>(
        &self,
        items: &[T],
        op: Option<Op>,
        row_of: impl Fn(&T) -> &Bytes,
        one: impl Fn(&Region, &T) -> basalt_storage::Result<()>,
        batch: impl Fn(&Region, &[T]) -> basalt_storage::Result<()>,
        stop_at_failure: bool,
    ) -> Vec<Result<()>> {
        let mut results = Vec::with_capacity(items.len());
        let mut start = 0;
        while start < items.len() {
            let started = Instant::now();
            let region = match self
                .db
                .catalog
                .read()
                .locate(&self.name, row_of(&items[start]))
            {
                Ok(region) => region,
                Err(e) => {
                    results.push(Err(e));
                    if stop_at_failure {
                        return results;
                    }
                    start += 1;
                    continue;
                }
            };
            let mut rows = HashSet::from([row_of(&items[start])]);
            let mut end = start + 1;
            while end < items.len() && end - start < BATCH_MAX {
                let row = row_of(&items[end]);
                if !region.info().contains_row(row) || !rows.insert(row) {
                    break;
                }
                end += 1;
            }
            let group = &items[start..end];
            if batch(&region, group).is_ok() {
                // Written and synced; acknowledged only while the lease is live.
                let admitted = self.db.admit_written();
                for _ in group {
                    self.record(op, started, &admitted);
                    results.push(admitted.clone());
                }
                if admitted.is_err() && stop_at_failure {
                    return results;
                }
            } else {
                // Nothing of the batch was applied. Item by item, each routed afresh, the
                // items before a bad one land and the bad one reports its own error.
                for item in group {
                    let started = Instant::now();
                    let result = self.on_row_write(row_of(item), |r| one(r, item));
                    self.record(op, started, &result);
                    let failed = result.is_err();
                    results.push(result);
                    if failed && stop_at_failure {
                        return results;
                    }
                }
            }
            start = end;
        }
        results
    }

    fn record<T, E>(&self, op: Option<Op>, started: Instant, result: &std::result::Result<T, E>) {
        if let Some(op) = op {
            self.db.metrics().record(op, started, result);
        }
    }
}

/// The first error of `results`, if any.
fn first_error(results: Vec<Result<()>>) -> Result<()> {
    results.into_iter().find(Result::is_err).unwrap_or(Ok(()))
}

impl Table for DbTable {
    fn name(&self) -> &TableName {
        &self.name
    }

    fn get(&self, get: &Get) -> Result<RowResult> {
        self.measured(Op::Get, || self.on_row(&get.row, |r| r.get(get)))
    }

    fn get_many(&self, gets: &[Get]) -> Result<Vec<RowResult>> {
        gets.iter().map(|g| self.get(g)).collect()
    }

    fn exists(&self, get: &Get) -> Result<bool> {
        let mut get = get.clone();
        get.check_existence_only = true;
        Ok(self.get(&get)?.exists == Some(true))
    }

    fn put(&self, put: &Put) -> Result<()> {
        self.measured(Op::Put, || {
            self.writable()?;
            self.on_row_write(&put.row, |r| r.put(put))
        })
    }

    fn put_many(&self, puts: &[Put]) -> Result<()> {
        self.writable()?;
        first_error(self.write_grouped(
            puts,
            Some(Op::Put),
            |p| &p.row,
            Region::put,
            Region::put_batch,
            true,
        ))
    }

    fn delete(&self, delete: &Delete) -> Result<()> {
        self.measured(Op::Delete, || {
            self.writable()?;
            self.on_row_write(&delete.row, |r| r.delete(delete))
        })
    }

    fn delete_many(&self, deletes: &[Delete]) -> Result<()> {
        self.writable()?;
        first_error(self.write_grouped(
            deletes,
            Some(Op::Delete),
            |d| &d.row,
            Region::delete,
            Region::delete_batch,
            true,
        ))
    }

    fn increment(&self, increment: &Increment) -> Result<RowResult> {
        self.measured(Op::Increment, || {
            self.writable()?;
            self.on_row_write(&increment.row, |r| r.increment(increment))
        })
    }

    fn append(&self, append: &Append) -> Result<RowResult> {
        self.measured(Op::Append, || {
            self.writable()?;
            self.on_row_write(&append.row, |r| r.append(append))
        })
    }

    fn check_and_mutate(&self, check: &CheckAndMutate) -> Result<CheckAndMutateResult> {
        self.measured(Op::CheckAndMutate, || {
            self.writable()?;
            let (succeeded, result) =
                self.on_row_write(&check.row, |r| r.check_and_mutate(check))?;
            Ok(CheckAndMutateResult { succeeded, result })
        })
    }

    fn mutate_row(&self, mutations: &RowMutations) -> Result<RowResult> {
        self.measured(Op::MutateRow, || {
            self.writable()?;
            self.on_row_write(&mutations.row, |r| r.mutate_row(mutations))
        })
    }

    fn batch(&self, actions: &[Action]) -> Vec<Result<ActionResult>> {
        let started = Instant::now();
        let results = self.batch_unmeasured(actions);
        let outcome = match results.iter().find(|r| r.is_err()) {
            Some(_) => Err(()),
            None => Ok(()),
        };
        self.db.metrics().record(Op::Batch, started, &outcome);
        results
    }

    fn apply_once(&self, action: &Action, nonce: Nonce) -> Result<ActionResult> {
        if !matches!(action, Action::Get(_)) {
            self.writable()?;
        }
        let op = match action {
            Action::Increment(_) => Op::Increment,
            Action::Append(_) => Op::Append,
            Action::RowMutations(_) => Op::MutateRow,
            Action::CheckAndMutate(_) => Op::CheckAndMutate,
            Action::Put(_) => Op::Put,
            Action::Delete(_) => Op::Delete,
            _ => Op::Batch,
        };
        self.measured(op, || {
            // Applied, but refused by the lease gate: the result waits for the client's
            // retry (same nonce) instead of the operation running twice.
            let admit = || match action {
                Action::Get(_) => self.db.admit(),
                _ => self.db.admit_written(),
            };
            if let Some(result) = self.db.withheld.take(nonce) {
                return match admit() {
                    Ok(()) => Ok(result),
                    Err(e) => {
                        self.db.withheld.keep(nonce, result);
                        Err(e)
                    }
                };
            }
            let result = self.on_row_ungated(action.row(), |r| r.apply_once(action, nonce))?;
            admit().inspect_err(|_| self.db.withheld.keep(nonce, result.clone()))?;
            Ok(result)
        })
    }

    fn scan(&self, scan: &Scan) -> Result<Box<dyn ResultScanner>> {
        let scanner = self.measured(Op::Scan, || {
            TableScanner::open(self.db.clone(), self.name.clone(), scan.clone())
        })?;
        Ok(Box::new(MeteredScanner {
            db: self.db.clone(),
            inner: scanner,
        }))
    }

    fn scan_region(&self, scan: &Scan, region: &str) -> Result<Box<dyn ResultScanner>> {
        let scanner = self.measured(Op::Scan, || {
            TableScanner::open_region(self.db.clone(), self.name.clone(), scan.clone(), region)
        })?;
        Ok(Box::new(MeteredScanner {
            db: self.db.clone(),
            inner: scanner,
        }))
    }

    fn open_scan(&self, scan: &Scan, region: Option<&str>) -> Result<OpenedScan> {
        let (scanner, read_point) = self.measured(Op::Scan, || {
            let (db, name, scan) = (self.db.clone(), self.name.clone(), scan.clone());
            let mut scanner = match region {
                Some(region) => TableScanner::open_region(db, name, scan, region)?,
                None => TableScanner::open(db, name, scan)?,
            };
            let read_point = scanner.start()?;
            Ok((scanner, read_point))
        })?;
        Ok(OpenedScan {
            rows: Box::new(MeteredScanner {
                db: self.db.clone(),
                inner: scanner,
            }),
            read_point,
        })
    }
}

impl DbTable {
    fn batch_unmeasured(&self, actions: &[Action]) -> Vec<Result<ActionResult>> {
        if let Err(e) = self.writable().or_else(|e| {
            actions
                .iter()
                .all(|a| matches!(a, Action::Get(_)))
                .then_some(())
                .ok_or(e)
        }) {
            return actions.iter().map(|_| Err(e.clone())).collect();
        }
        let mut results = Vec::with_capacity(actions.len());
        let mut rest = actions;
        while let Some(action) = rest.first() {
            // Runs of puts (or deletes) go to the regions in batches, one sync each.
            let puts: Vec<Put> = rest
                .iter()
                .map_while(|a| match a {
                    Action::Put(p) => Some(p.clone()),
                    _ => None,
                })
                .collect();
            let deletes: Vec<Delete> = rest
                .iter()
                .map_while(|a| match a {
                    Action::Delete(d) => Some(d.clone()),
                    _ => None,
                })
                .collect();
            let written = if puts.len() > 1 {
                self.write_grouped(
                    &puts,
                    None,
                    |p| &p.row,
                    Region::put,
                    Region::put_batch,
                    false,
                )
            } else if deletes.len() > 1 {
                let delete = Region::delete;
                self.write_grouped(
                    &deletes,
                    None,
                    |d| &d.row,
                    delete,
                    Region::delete_batch,
                    false,
                )
            } else {
                results.push(self.batch_one(action));
                rest = &rest[1..];
                continue;
            };
            rest = &rest[written.len()..];
            results.extend(written.into_iter().map(|r| r.map(|()| ActionResult::Done)));
        }
        results
    }

    /// One action of a batch, on the region holding its row.
    fn batch_one(&self, action: &Action) -> Result<ActionResult> {
        let one = |r: &Region| {
            r.batch(std::slice::from_ref(action))
                .pop()
                .expect("one result per action")
        };
        match action {
            Action::Get(_) => self.on_row(action.row(), one),
            _ => self.on_row_write(action.row(), one),
        }
    }
}

/// A table scanner whose every call for rows counts as one `ScanNext` request and passes
/// the lease gate once: a row taken alone ([`Iterator::next`]), or an answer of many
/// ([`ResultScanner::next_answer`], a server's response), whose rows are taken with no
/// clock read, gate check or metric update of their own.
struct MeteredScanner {
    db: Arc<Database>,
    inner: TableScanner,
}

impl Iterator for MeteredScanner {
    type Item = Result<RowResult>;

    fn next(&mut self) -> Option<Self::Item> {
        let started = Instant::now();
        let row = match self.inner.next()? {
            Ok(row) => self.db.admit().map(|()| row),
            Err(e) => Err(e),
        };
        self.db.metrics().record(Op::ScanNext, started, &row);
        Some(row)
    }
}

impl ResultScanner for MeteredScanner {
    /// Past the lease's deadline the answer is refused whole, the end of the scan too.
    fn next_answer(&mut self, rows_max: usize, bytes_max: u64) -> Result<(Vec<RowResult>, bool)> {
        let started = Instant::now();
        let answer = basalt_api::take_answer(&mut self.inner, rows_max, bytes_max)
            .and_then(|answer| self.db.admit().map(|()| answer));
        self.db.metrics().record(Op::ScanNext, started, &answer);
        answer
    }
}
