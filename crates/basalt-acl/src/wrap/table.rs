//! A table whose calls are checked: writes need `W` on every column they touch, reads
//! are filtered to what the principal may read, check-and-mutate needs `R` and `W`.

use super::Guard;
use crate::check::Object;
use crate::matrix::Op;
use crate::read::ReadAccess;
use basalt_api::{CheckAndMutateResult, Result, ResultScanner, Table};
use basalt_types::{
    Action, ActionResult, Append, CheckAndMutate, Condition, Delete, DeleteSpec, Get, Increment,
    Mutation, Nonce, Put, RowMutations, RowResult, Scan, TableName,
};
use bytes::Bytes;
use std::collections::BTreeSet;
use std::sync::Arc;

pub(crate) struct AuthorizedTable {
    inner: Arc<dyn Table>,
    guard: Guard,
}

type Columns = BTreeSet<(Bytes, Option<Bytes>)>;

fn put_columns(p: &Put, out: &mut Columns) {
    for c in &p.cells {
        out.insert((c.family_bytes(), Some(c.qualifier_bytes())));
    }
}

fn delete_columns(d: &Delete, out: &mut Columns) {
    for s in &d.specs {
        out.insert(match s {
            DeleteSpec::Family { family, .. } | DeleteSpec::FamilyVersion { family, .. } => {
                (family.clone(), None)
            }
            DeleteSpec::Columns {
                family, qualifier, ..
            }
            | DeleteSpec::Version {
                family, qualifier, ..
            } => (family.clone(), Some(qualifier.clone())),
        });
    }
}

fn mutation_columns(m: &Mutation, out: &mut Columns) {
    match m {
        Mutation::Put(p) => put_columns(p, out),
        Mutation::Delete(d) => delete_columns(d, out),
        Mutation::Increment(i) => {
            for (f, q, _) in &i.columns {
                out.insert((f.clone(), Some(q.clone())));
            }
        }
        Mutation::Append(a) => {
            for (f, q, _) in &a.columns {
                out.insert((f.clone(), Some(q.clone())));
            }
        }
    }
}

impl AuthorizedTable {
    pub(crate) fn new(inner: Arc<dyn Table>, guard: Guard) -> Self {
        AuthorizedTable { inner, guard }
    }

    /// Every column must be allowed; no column (a whole-row delete) needs the table.
    fn check_columns(&self, op: Op, columns: &Columns) -> Result<()> {
        let table = self.inner.name().clone();
        if columns.is_empty() {
            return self.guard.check(op, &Object::Table(table));
        }
        for (family, qualifier) in columns {
            let object = Object::Column {
                table: table.clone(),
                family: family.clone(),
                qualifier: qualifier.clone(),
            };
            self.guard.check(op, &object)?;
        }
        Ok(())
    }

    fn check_mutation(&self, m: &Mutation) -> Result<()> {
        let mut cols = Columns::new();
        mutation_columns(m, &mut cols);
        let op = match m {
            Mutation::Put(_) => Op::Put,
            Mutation::Delete(_) => Op::Delete,
            Mutation::Increment(_) => Op::Increment,
            Mutation::Append(_) => Op::Append,
        };
        self.check_columns(op, &cols)
    }

    fn check_and_mutate_columns(&self, c: &CheckAndMutate) -> Result<()> {
        let mut cols = Columns::new();
        if let Condition::Column {
            family, qualifier, ..
        } = &c.condition
        {
            cols.insert((family.clone(), Some(qualifier.clone())));
        }
        for m in &c.mutations.mutations {
            mutation_columns(m, &mut cols);
        }
        self.check_columns(Op::CheckAndMutate, &cols)
    }

    fn row_mutations(&self, r: &RowMutations) -> Result<()> {
        let mut cols = Columns::new();
        for m in &r.mutations {
            mutation_columns(m, &mut cols);
        }
        self.check_columns(Op::MutateRow, &cols)
    }

    /// Checks one batch action; for a get, what the principal may read of it.
    fn check_action(&self, action: &Action) -> Result<Option<ReadAccess>> {
        match action {
            Action::Get(_) => self.guard.read(Op::Get, self.inner.name()).map(Some),
            Action::Put(p) => self.check_mutation(&Mutation::Put(p.clone())).map(|_| None),
            Action::Delete(d) => self
                .check_mutation(&Mutation::Delete(d.clone()))
                .map(|_| None),
            Action::Increment(i) => self
                .check_mutation(&Mutation::Increment(i.clone()))
                .map(|_| None),
            Action::Append(a) => self
                .check_mutation(&Mutation::Append(a.clone()))
                .map(|_| None),
            Action::RowMutations(r) => self.row_mutations(r).map(|_| None),
            Action::CheckAndMutate(c) => self.check_and_mutate_columns(c).map(|_| None),
        }
    }
}

fn filtered(access: &Option<ReadAccess>, result: ActionResult) -> ActionResult {
    match (access, result) {
        (Some(a), ActionResult::Row(row)) => ActionResult::Row(a.apply(row)),
        (_, other) => other,
    }
}

impl Table for AuthorizedTable {
    fn name(&self) -> &TableName {
        self.inner.name()
    }

    fn get(&self, get: &Get) -> Result<RowResult> {
        let access = self.guard.read(Op::Get, self.name())?;
        Ok(access.apply(self.inner.get(get)?))
    }

    fn get_many(&self, gets: &[Get]) -> Result<Vec<RowResult>> {
        let access = self.guard.read(Op::Get, self.name())?;
        let rows = self.inner.get_many(gets)?;
        Ok(rows.into_iter().map(|r| access.apply(r)).collect())
    }

    fn exists(&self, get: &Get) -> Result<bool> {
        match self.guard.read(Op::Exists, self.name())? {
            ReadAccess::All => self.inner.exists(get),
            access => Ok(!access.apply(self.inner.get(get)?).cells.is_empty()),
        }
    }

    fn put(&self, put: &Put) -> Result<()> {
        let mut cols = Columns::new();
        put_columns(put, &mut cols);
        self.check_columns(Op::Put, &cols)?;
        self.inner.put(put)
    }

    fn put_many(&self, puts: &[Put]) -> Result<()> {
        let mut cols = Columns::new();
        for p in puts {
            put_columns(p, &mut cols);
        }
        self.check_columns(Op::Put, &cols)?;
        self.inner.put_many(puts)
    }

    fn delete(&self, delete: &Delete) -> Result<()> {
        self.check_mutation(&Mutation::Delete(delete.clone()))?;
        self.inner.delete(delete)
    }

    fn delete_many(&self, deletes: &[Delete]) -> Result<()> {
        for d in deletes {
            self.check_mutation(&Mutation::Delete(d.clone()))?;
        }
        self.inner.delete_many(deletes)
    }

    fn increment(&self, increment: &Increment) -> Result<RowResult> {
        self.check_mutation(&Mutation::Increment(increment.clone()))?;
        self.inner.increment(increment)
    }

    fn append(&self, append: &Append) -> Result<RowResult> {
        self.check_mutation(&Mutation::Append(append.clone()))?;
        self.inner.append(append)
    }

    fn check_and_mutate(&self, check: &CheckAndMutate) -> Result<CheckAndMutateResult> {
        self.check_and_mutate_columns(check)?;
        self.inner.check_and_mutate(check)
    }

    fn mutate_row(&self, mutations: &RowMutations) -> Result<RowResult> {
        self.row_mutations(mutations)?;
        self.inner.mutate_row(mutations)
    }

    /// Refused actions get their denial; the others run together, in order.
    fn batch(&self, actions: &[Action]) -> Vec<Result<ActionResult>> {
        let checks: Vec<Result<Option<ReadAccess>>> =
            actions.iter().map(|a| self.check_action(a)).collect();
        let allowed: Vec<Action> = actions
            .iter()
            .zip(&checks)
            .filter(|(_, c)| c.is_ok())
            .map(|(a, _)| a.clone())
            .collect();
        let mut ran = self.inner.batch(&allowed).into_iter();
        checks
            .into_iter()
            .map(|c| {
                let access = c?;
                let r = ran.next().unwrap_or_else(|| {
                    Err(basalt_api::ApiError::invalid("no result for the action"))
                });
                r.map(|r| filtered(&access, r))
            })
            .collect()
    }

    fn apply_once(&self, action: &Action, nonce: Nonce) -> Result<ActionResult> {
        let access = self.check_action(action)?;
        Ok(filtered(&access, self.inner.apply_once(action, nonce)?))
    }

    fn scan(&self, scan: &Scan) -> Result<Box<dyn ResultScanner>> {
        let access = self.guard.read(Op::Scan, self.name())?;
        Ok(filter_scanner(access, self.inner.scan(scan)?))
    }

    fn scan_region(&self, scan: &Scan, region: &str) -> Result<Box<dyn ResultScanner>> {
        let access = self.guard.read(Op::Scan, self.name())?;
        Ok(filter_scanner(
            access,
            self.inner.scan_region(scan, region)?,
        ))
    }
}

/// Rows filtered to what may be read; rows left empty are not returned.
fn filter_scanner(access: ReadAccess, inner: Box<dyn ResultScanner>) -> Box<dyn ResultScanner> {
    match access {
        ReadAccess::All => inner,
        access => Box::new(Readable { access, inner }),
    }
}

/// A scanner's rows cut to what the caller may read. Answers pass through whole (the inner
/// scanner checks and counts each once) and are cut after.
struct Readable {
    access: ReadAccess,
    inner: Box<dyn ResultScanner>,
}

impl Iterator for Readable {
    type Item = Result<RowResult>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match self.inner.next()? {
                Ok(row) => {
                    let row = self.access.apply(row);
                    if !row.cells.is_empty() {
                        return Some(Ok(row));
                    }
                }
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

impl ResultScanner for Readable {
    /// An answer with every row cut away is not given: the next one is taken instead.
    fn next_answer(&mut self, rows_max: usize, bytes_max: u64) -> Result<(Vec<RowResult>, bool)> {
        loop {
            let (rows, more) = self.inner.next_answer(rows_max, bytes_max)?;
            let rows: Vec<RowResult> = rows
                .into_iter()
                .map(|row| self.access.apply(row))
                .filter(|row| !row.cells.is_empty())
                .collect();
            if !rows.is_empty() || !more {
                return Ok((rows, more));
            }
        }
    }
}
