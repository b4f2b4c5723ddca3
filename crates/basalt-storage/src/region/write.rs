//! Writes: every mutation becomes cells written under the row lock with one sequence id.

use super::{rules, Region};
use crate::region::budget::Admission;
use crate::wal::WalEdit;
use crate::{Error, Result};
use basalt_types::limits::{check_cell_size, check_row};
use basalt_types::{
    Action, ActionResult, Append, Cell, CellType, CheckAndMutate, Condition, Delete, DeleteSpec,
    Durability, Get, Increment, Mutation, Nonce, Put, RowMutations, RowResult, Scan,
    LATEST_TIMESTAMP,
};
use bytes::Bytes;
use std::sync::atomic::Ordering;
use std::time::Duration;

impl Region {
    pub fn put(&self, put: &Put) -> Result<()> {
        self.put_once(put, None)
    }

    fn put_once(&self, put: &Put, nonce: Option<Nonce>) -> Result<()> {
        self.write_row(&put.row, put.durability, nonce, |region, now| {
            region.put_cells(put, now).map(|c| (c, None))
        })
        .map(|_| ())
    }

    pub fn delete(&self, delete: &Delete) -> Result<()> {
        self.delete_once(delete, None)
    }

    fn delete_once(&self, delete: &Delete, nonce: Option<Nonce>) -> Result<()> {
        self.write_row(&delete.row, delete.durability, nonce, |region, now| {
            region.delete_cells(delete, now).map(|c| (c, None))
        })
        .map(|_| ())
    }

    /// Adds to counters; returns their new values (empty when `return_results` is off).
    pub fn increment(&self, increment: &Increment) -> Result<RowResult> {
        self.increment_once(increment, None)
    }

    fn increment_once(&self, increment: &Increment, nonce: Option<Nonce>) -> Result<RowResult> {
        let result = self.write_row(
            &increment.row,
            increment.durability,
            nonce,
            |region, now| {
                let (written, answer) = region.increment_cells(increment, now)?;
                Ok((written, Some(RowResult::new(answer))))
            },
        )?;
        Ok(if increment.return_results {
            result.unwrap_or_default()
        } else {
            RowResult::default()
        })
    }

    /// Appends to values; returns the new values (empty when `return_results` is off).
    pub fn append(&self, append: &Append) -> Result<RowResult> {
        self.append_once(append, None)
    }

    fn append_once(&self, append: &Append, nonce: Option<Nonce>) -> Result<RowResult> {
        let result = self.write_row(&append.row, append.durability, nonce, |region, now| {
            let cells = region.append_cells(append, now)?;
            Ok((cells.clone(), Some(RowResult::new(cells))))
        })?;
        Ok(if append.return_results {
            result.unwrap_or_default()
        } else {
            RowResult::default()
        })
    }

    /// Applies the mutations of one row atomically, in order; returns what increments and
    /// appends among them computed.
    pub fn mutate_row(&self, mutations: &RowMutations) -> Result<RowResult> {
        self.mutate_row_once(mutations, None)
    }

    fn mutate_row_once(&self, mutations: &RowMutations, nonce: Option<Nonce>) -> Result<RowResult> {
        let durability = self.strongest(mutations.mutations.iter().map(Mutation::durability));
        let result = self.write_row(&mutations.row, durability, nonce, |region, now| {
            region.row_mutation_cells(mutations, now)
        })?;
        Ok(result.unwrap_or_default())
    }

    /// Applies `cam.mutations` if the condition holds, atomically with the check.
    pub fn check_and_mutate(&self, cam: &CheckAndMutate) -> Result<(bool, Option<RowResult>)> {
        self.check_and_mutate_once(cam, None)
    }

    fn check_and_mutate_once(
        &self,
        cam: &CheckAndMutate,
        nonce: Option<Nonce>,
    ) -> Result<(bool, Option<RowResult>)> {
        let durability = self.strongest(cam.mutations.mutations.iter().map(Mutation::durability));
        let mut succeeded = false;
        let result = self.write_row(&cam.row, durability, nonce, |region, now| {
            if !region.condition_holds(cam)? {
                return Ok((Vec::new(), None));
            }
            succeeded = true;
            region.row_mutation_cells(&cam.mutations, now)
        })?;
        Ok((succeeded, result))
    }

    /// Applies `action` (a mutation: what a retry could apply twice) under the client's
    /// `nonce`, which its log record keeps. A nonce this region knows — the operation was
    /// applied here, or on a server that held the region before, whose log or flushed
    /// nonces this open read back — is not applied again: a put or a delete answers
    /// "done" (it was), an increment, append, row mutations or check-and-mutate is
    /// refused with [`Error::OperationConflict`], whose first answer is gone. A get runs
    /// as in [`Region::batch`].
    ///
    /// A put applied twice would be wrong, not harmless: the second copy takes a newer
    /// timestamp and hides whatever other clients wrote between the two (a stale value
    /// coming back, found by the chaos test's history checker).
    pub fn apply_once(&self, action: &Action, nonce: Nonce) -> Result<ActionResult> {
        let repeated = |e: &Error| matches!(e, Error::OperationConflict(_));
        let nonce = Some(nonce);
        let applied = match action {
            Action::Put(put) => self.put_once(put, nonce).map(|()| ActionResult::Done),
            Action::Delete(delete) => self.delete_once(delete, nonce).map(|()| ActionResult::Done),
            _ => return self.apply_other_once(action, nonce),
        };
        match applied {
            Err(e) if repeated(&e) => {
                tracing::debug!(region = %self.info.name, error = %e, "a resent write was applied before: answered done");
                Ok(ActionResult::Done)
            }
            other => other,
        }
    }

    fn apply_other_once(&self, action: &Action, nonce: Option<Nonce>) -> Result<ActionResult> {
        match action {
            Action::Increment(inc) => self.increment_once(inc, nonce).map(ActionResult::Row),
            Action::Append(append) => self.append_once(append, nonce).map(ActionResult::Row),
            Action::RowMutations(rm) => self.mutate_row_once(rm, nonce).map(ActionResult::Row),
            Action::CheckAndMutate(cam) => self
                .check_and_mutate_once(cam, nonce)
                .map(|(succeeded, result)| ActionResult::CheckAndMutate { succeeded, result }),
            other => self
                .batch(std::slice::from_ref(other))
                .pop()
                .unwrap_or_else(|| Err(Error::invalid("no result for the action"))),
        }
    }

    /// Runs each action on its own; one action's failure does not stop the others.
    pub fn batch(&self, actions: &[Action]) -> Vec<Result<ActionResult>> {
        actions
            .iter()
            .map(|action| match action {
                Action::Get(get) => self.get(get).map(ActionResult::Row),
                Action::Put(put) => self.put(put).map(|_| ActionResult::Done),
                Action::Delete(delete) => self.delete(delete).map(|_| ActionResult::Done),
                Action::Increment(inc) => self.increment(inc).map(ActionResult::Row),
                Action::Append(append) => self.append(append).map(ActionResult::Row),
                Action::RowMutations(rm) => self.mutate_row(rm).map(|_| ActionResult::Done),
                Action::CheckAndMutate(cam) => self
                    .check_and_mutate(cam)
                    .map(|(succeeded, result)| ActionResult::CheckAndMutate { succeeded, result }),
            })
            .collect()
    }

    /// The write path for one row; see [`Region::write_rows`].
    fn write_row<F>(
        &self,
        row: &Bytes,
        durability: Durability,
        nonce: Option<Nonce>,
        build: F,
    ) -> Result<Option<RowResult>>
    where
        F: FnOnce(&Self, i64) -> Result<(Vec<Cell>, Option<RowResult>)>,
    {
        self.write_rows_once(std::slice::from_ref(row), durability, nonce, build)
    }

    /// [`Region::write_rows_once`] without a nonce.
    pub(super) fn write_rows<F>(
        &self,
        rows: &[Bytes],
        durability: Durability,
        build: F,
    ) -> Result<Option<RowResult>>
    where
        F: FnOnce(&Self, i64) -> Result<(Vec<Cell>, Option<RowResult>)>,
    {
        self.write_rows_once(rows, durability, None, build)
    }

    /// The write path. `build` runs under the rows' locks and returns the cells to write
    /// (timestamps resolved) and what to return; an empty cell list writes nothing. All
    /// cells share one sequence id and one log record (which keeps `nonce`): they become
    /// visible together.
    fn write_rows_once<F>(
        &self,
        rows: &[Bytes],
        durability: Durability,
        nonce: Option<Nonce>,
        build: F,
    ) -> Result<Option<RowResult>>
    where
        F: FnOnce(&Self, i64) -> Result<(Vec<Cell>, Option<RowResult>)>,
    {
        self.check_accepts_cells()?;
        for row in rows {
            check_row(row)?;
            if !self.info.contains_row(row) {
                return Err(Error::WrongRegion(format!(
                    "row '{}' is outside region {}",
                    String::from_utf8_lossy(row),
                    self.info.name
                )));
            }
        }
        self.check_writes_allowed()?;
        self.admit()?;
        let _row_locks = self.row_locks.lock_rows(rows.iter().map(|r| r.as_ref()));
        let _updates = self.updates.read();
        // Again under `updates`: a split's flush must hold every write that got past here.
        self.check_writes_allowed()?;
        // Under the row lock, where an edit's nonce is recorded: two copies of one
        // operation sent at once (a client's resend while the first still runs) cannot
        // both pass.
        if let Some(nonce) = nonce.filter(|n| self.nonces.contains(n)) {
            return Err(Error::OperationConflict(format!(
                "the operation with nonce {nonce} on row '{}' of region {} was already applied",
                rows.first()
                    .map(|r| String::from_utf8_lossy(r))
                    .unwrap_or_default(),
                self.info.name
            )));
        }
        let now = self.ctx.clock.now_ms();
        let (cells, result) = build(self, now)?;
        if cells.is_empty() {
            return Ok(result);
        }
        let seq_id = self.mvcc.begin();
        let cells: Vec<Cell> = cells.into_iter().map(|c| c.with_seq(seq_id)).collect();
        let durability = durability.or(self.table.durability).or(Durability::SyncWal);
        let edit = WalEdit {
            region: self.info.name.clone(),
            seq_id,
            cells,
            nonce,
        };
        if let Err(e) = self.ctx.wal.append(&edit, durability) {
            self.mvcc.complete(seq_id);
            // A full disk refuses this write only: the log goes on once space returns.
            if !e.is_no_space() {
                self.poison(format!("write-ahead log append failed: {e}"));
            }
            return Err(e);
        }
        if durability == Durability::SkipWal {
            self.skip_wal_seq_max.fetch_max(seq_id, Ordering::AcqRel);
        }
        let mut added = 0;
        for cell in edit.cells {
            added += self.store(cell.family())?.add(cell);
        }
        self.memstore_bytes.fetch_add(added, Ordering::AcqRel);
        self.ctx.budget.add(added);
        if let Some(nonce) = nonce {
            // Under `updates`: a flush whose snapshot holds this edit sees its nonce too.
            self.nonces.record(nonce, seq_id, now);
        }
        self.mvcc.complete_and_wait(seq_id);
        // One write request per row, as HBase counts a batch's mutations.
        let writes_before = self
            .write_requests
            .fetch_add(rows.len() as u64, Ordering::Relaxed);
        self.load.maybe_sample_writes(writes_before, rows);
        if self.memstore_size_bytes()
            >= self
                .table
                .memstore_flush_size_bytes
                .min(self.ctx.config.memstore_flush_size_bytes)
        {
            self.ctx.jobs.request_flush(&self.info.name);
        }
        Ok(result)
    }

    /// Waits while the engine's memstores are over their global limit.
    fn admit(&self) -> Result<()> {
        let timeout = Duration::from_millis(self.ctx.config.memstore_block_timeout_ms);
        match self
            .ctx
            .budget
            .admit(timeout, || self.ctx.jobs.request_flush_largest())
        {
            Admission::Admitted => Ok(()),
            Admission::AdmittedAfterWaiting(waited) => {
                self.ctx.jobs.note_write_stall(waited);
                Ok(())
            }
            Admission::TimedOut => {
                self.ctx.jobs.note_write_stall(timeout);
                Err(Error::Busy(format!(
                    "Above global memstore limit ({} bytes); writes blocked for {} ms",
                    self.ctx.budget.limit_bytes(),
                    timeout.as_millis()
                )))
            }
        }
    }

    /// The durability a group of writes asks for: the strongest any of them asks, with
    /// `UseDefault` resolved to the table's setting.
    pub(super) fn strongest(&self, levels: impl Iterator<Item = Durability>) -> Durability {
        let resolve = |d: Durability| d.or(self.table.durability).or(Durability::SyncWal);
        levels.map(resolve).max().unwrap_or(Durability::UseDefault)
    }

    /// Refuses a cell of an unknown family or over the cell size limit.
    fn check(&self, cell: &Cell) -> Result<()> {
        self.store(cell.family())?;
        check_cell_size(cell, self.ctx.config.cell_max_bytes)?;
        Ok(())
    }

    fn checked(&self, cell: Cell) -> Result<Cell> {
        self.check(&cell)?;
        Ok(cell)
    }

    /// The cells a Put writes (checked, timestamps and TTL resolved). They are not copied:
    /// the memstore copies each into its arena, so it keeps none of the caller's buffers.
    pub(super) fn put_cells(&self, put: &Put, now: i64) -> Result<Vec<Cell>> {
        for cell in &put.cells {
            if cell.row() != put.row || cell.cell_type() != CellType::Put {
                return Err(Error::invalid("a Put holds only put cells of its own row"));
            }
            self.check(cell)?;
        }
        let mut cells = put.cells.clone();
        for cell in &mut cells {
            cell.set_ttl_ms(cell.ttl_ms().or(put.ttl_ms));
            if cell.timestamp() == LATEST_TIMESTAMP {
                cell.set_timestamp(now);
            }
        }
        Ok(cells)
    }

    pub(super) fn delete_cells(&self, delete: &Delete, now: i64) -> Result<Vec<Cell>> {
        let resolve = |ts: i64| if ts == LATEST_TIMESTAMP { now } else { ts };
        if delete.is_whole_row() {
            return Ok(self
                .stores
                .iter()
                .map(|s| {
                    Cell::marker(
                        delete.row.clone(),
                        s.family().name.clone(),
                        Bytes::new(),
                        resolve(delete.timestamp),
                        CellType::DeleteFamily,
                    )
                })
                .collect());
        }
        let mut cells = Vec::with_capacity(delete.specs.len());
        for spec in &delete.specs {
            let mut marker = spec.marker(&delete.row);
            let timestamp = match spec {
                DeleteSpec::Version {
                    family,
                    qualifier,
                    timestamp,
                } if *timestamp == LATEST_TIMESTAMP => {
                    let latest = self.latest_cell(
                        &delete.row,
                        family,
                        qualifier,
                        &basalt_types::TimeRange::ALL,
                    )?;
                    latest.map_or(now, |c| c.timestamp())
                }
                _ => resolve(marker.timestamp()),
            };
            marker.set_timestamp(timestamp);
            cells.push(self.checked(marker)?);
        }
        Ok(cells)
    }

    /// The cells an increment writes, and the cells it answers: an increment by 0 of an
    /// existing counter writes nothing and answers the current cell (see
    /// [`rules::increment`]).
    fn increment_cells(&self, increment: &Increment, now: i64) -> Result<(Vec<Cell>, Vec<Cell>)> {
        let mut written = Vec::with_capacity(increment.columns.len());
        let mut answer = Vec::with_capacity(increment.columns.len());
        for (family, qualifier, delta) in &increment.columns {
            let current =
                self.latest_cell(&increment.row, family, qualifier, &increment.time_range)?;
            match rules::increment(current.as_ref(), *delta, now)? {
                rules::CounterStep::Keep { .. } => answer.extend(current),
                rules::CounterStep::Write { value, timestamp } => {
                    let cell = Cell::put(
                        increment.row.clone(),
                        family.clone(),
                        qualifier.clone(),
                        timestamp,
                        value.to_be_bytes(),
                    );
                    let cell = self.checked(cell.with_ttl_ms(increment.ttl_ms))?;
                    answer.push(cell.clone());
                    written.push(cell);
                }
            }
        }
        Ok((sorted(written), sorted(answer)))
    }

    fn append_cells(&self, append: &Append, now: i64) -> Result<Vec<Cell>> {
        let mut cells = Vec::with_capacity(append.columns.len());
        for (family, qualifier, suffix) in &append.columns {
            let current = self.latest_cell(&append.row, family, qualifier, &append.time_range)?;
            let (value, timestamp) = rules::append(current.as_ref(), suffix, now);
            let cell = Cell::put(
                append.row.clone(),
                family.clone(),
                qualifier.clone(),
                timestamp,
                value,
            );
            cells.push(self.checked(cell.with_ttl_ms(append.ttl_ms))?);
        }
        Ok(sorted(cells))
    }

    fn row_mutation_cells(
        &self,
        mutations: &RowMutations,
        now: i64,
    ) -> Result<(Vec<Cell>, Option<RowResult>)> {
        let mut cells = Vec::new();
        let mut computed = Vec::new();
        for mutation in &mutations.mutations {
            if *mutation.row() != mutations.row {
                return Err(Error::invalid("a row mutation names another row"));
            }
            match mutation {
                Mutation::Put(put) => cells.extend(self.put_cells(put, now)?),
                Mutation::Delete(delete) => cells.extend(self.delete_cells(delete, now)?),
                Mutation::Increment(inc) => {
                    let (written, answer) = self.increment_cells(inc, now)?;
                    computed.extend(answer);
                    cells.extend(written);
                }
                Mutation::Append(append) => {
                    let new = self.append_cells(append, now)?;
                    computed.extend(new.iter().cloned());
                    cells.extend(new);
                }
            }
        }
        let result = (!computed.is_empty()).then(|| RowResult::new(sorted(computed)));
        Ok((cells, result))
    }

    fn condition_holds(&self, cam: &CheckAndMutate) -> Result<bool> {
        match &cam.condition {
            Condition::Column {
                family,
                qualifier,
                op,
                expected,
            } => {
                let current = self.latest_cell(&cam.row, family, qualifier, &cam.time_range)?;
                Ok(rules::condition_holds(
                    *op,
                    expected.as_deref(),
                    current.as_ref(),
                ))
            }
            Condition::Filter(spec) => {
                let get = Get::new(cam.row.clone())
                    .time_range(cam.time_range)
                    .filter(spec.clone());
                Ok(!self.get(&get)?.is_empty())
            }
        }
    }

    /// The newest visible version of one column within `time_range`.
    fn latest_cell(
        &self,
        row: &Bytes,
        family: &Bytes,
        qualifier: &Bytes,
        time_range: &basalt_types::TimeRange,
    ) -> Result<Option<Cell>> {
        let scan = Scan::from_get(
            &Get::new(row.clone())
                .column(family.clone(), qualifier.clone())
                .time_range(*time_range),
        );
        let mut scanner = self.scanner(&scan)?;
        Ok(scanner.next_row()?.and_then(|r| r.cells.into_iter().next()))
    }
}

fn sorted(mut cells: Vec<Cell>) -> Vec<Cell> {
    cells.sort_by(|a, b| a.cmp_key(b));
    cells
}
