//! Reads under family and qualifier grants. HBase does not refuse a get or scan of a
//! table to a user who holds `R` only on some of its families or columns: it runs the
//! read and drops the cells the user may not read (its `AccessControlFilter`). A user
//! with no read grant anywhere in the table is refused.
//!
//! | user holds              | get of row with `f:a`, `f:b`, `g:c` |
//! |-------------------------|-------------------------------------|
//! | `R` on the table        | `f:a`, `f:b`, `g:c`                 |
//! | `R` on family `f`       | `f:a`, `f:b`                        |
//! | `R` on column `g:c`     | `g:c`                               |
//! | `W` on the table        | refused (W does not imply R)        |
//!
//! `hbase:meta` is readable by everyone.

use crate::check::{names, AccessDenied, Checker, Object};
use crate::matrix::{Level, Op};
use basalt_api::{Grants, Permission, Principal, Scope};
use basalt_types::{RowResult, TableName};
use bytes::Bytes;
use std::collections::BTreeSet;

/// What a principal may read of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadAccess {
    All,
    /// Only cells of these families and columns.
    Cells(CellFilter),
}

/// The families and columns a principal may read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CellFilter {
    pub families: BTreeSet<Bytes>,
    pub columns: BTreeSet<(Bytes, Bytes)>,
}

impl CellFilter {
    pub fn allows(&self, family: &[u8], qualifier: &[u8]) -> bool {
        self.families.contains(family)
            || self.columns.contains(&(
                Bytes::copy_from_slice(family),
                Bytes::copy_from_slice(qualifier),
            ))
    }

    /// The row with only the cells allowed.
    pub fn apply(&self, mut row: RowResult) -> RowResult {
        row.cells.retain(|c| self.allows(c.family(), c.qualifier()));
        row
    }
}

impl ReadAccess {
    pub fn apply(&self, row: RowResult) -> RowResult {
        match self {
            ReadAccess::All => row,
            ReadAccess::Cells(f) => f.apply(row),
        }
    }
}

/// Whether `table` is `hbase:meta`, which everyone may read.
pub fn is_meta(table: &TableName) -> bool {
    table.is_system() && table.qualifier() == "meta"
}

impl Checker {
    /// What `p` may read of `table`: everything (R at global, namespace or table), the
    /// cells of its family and qualifier grants, or nothing (denied).
    pub fn read_access(
        &self,
        grants: &Grants,
        p: &Principal,
        op: Op,
        table: &TableName,
    ) -> Result<ReadAccess, AccessDenied> {
        if is_meta(table) {
            return Ok(ReadAccess::All);
        }
        let whole = Object::Table(table.clone());
        let wide = [Level::Global, Level::Namespace, Level::Table];
        if self.is_superuser(p)
            || wide.into_iter().any(|l| {
                whole.scope_at(l).is_some_and(|s| {
                    crate::check::held_at(grants, p, &s).contains(Permission::Read)
                })
            })
        {
            return Ok(ReadAccess::All);
        }
        let mut filter = CellFilter::default();
        for g in grants
            .iter()
            .filter(|g| g.actions.contains(Permission::Read) && names(p, &g.user))
        {
            if let Scope::Table {
                table: t,
                family: Some(f),
                qualifier,
            } = &g.scope
            {
                if *t != *table {
                    continue;
                }
                match qualifier {
                    None => filter.families.insert(f.clone()),
                    Some(q) => filter.columns.insert((f.clone(), q.clone())),
                };
            }
        }
        if filter.families.is_empty() && filter.columns.is_empty() {
            return Err(AccessDenied {
                user: p.name().to_string(),
                op: op.name(),
                context: whole.context(),
                action: Permission::Read.hbase_name(),
            });
        }
        Ok(ReadAccess::Cells(filter))
    }
}
