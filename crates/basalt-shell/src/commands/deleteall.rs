//! `deleteall 't', 'r' [, 'f' | 'f:q' [, timestamp]]` and
//! `deleteall 't', {ROWPREFIXFILTER => 'p' [, CACHE => n]} [, column [, timestamp]]`
//!
//! Deletes a whole row (a DeleteFamily marker per family), every version of a column
//! (DeleteColumn) or a family (DeleteFamily), at or below the timestamp (default: now).
//! With `ROWPREFIXFILTER` every row with that prefix. Prints nothing.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;
use basalt_types::{Delete, Scan, LATEST_TIMESTAMP};
use bytes::Bytes;

pub static COMMAND: Command = Command {
    name: "deleteall",
    group: Group::Dml,
    help: HELP,
    run,
};

const HELP: &str = "Delete all cells in a given row; pass a table name, row, and optionally
a column and timestamp. Deleteall also support deleting a row range using a
row key prefix. Examples:

  hbase> deleteall 'ns1:t1', 'r1'
  hbase> deleteall 't1', 'r1'
  hbase> deleteall 't1', 'r1', 'c1'
  hbase> deleteall 't1', 'r1', 'c1', ts1
  hbase> deleteall 't1', {ROWPREFIXFILTER => 'prefix'}
  hbase> deleteall 't1', {ROWPREFIXFILTER => 'prefix'}, 'c1'
  hbase> deleteall 't1', {ROWPREFIXFILTER => 'prefix'}, 'c1', ts1

ROWPREFIXFILTER can be used to delete row ranges
  hbase> deleteall 't1', {ROWPREFIXFILTER => 'prefix', CACHE => 100}
CACHE can be used to specify how many deletes batched to be sent to server at one time,
default is 100
";

/// The delete of `row` for `[column [, ts]]` (args after the row).
fn delete_for(row: Bytes, rest: &[Value]) -> Result<Delete, CmdError> {
    let mut timestamp = LATEST_TIMESTAMP;
    if let Some(ts) = rest.get(1) {
        if args::hash(ts).is_none() {
            timestamp = args::int(ts, "timestamp")?;
        }
    }
    let delete = Delete::new(row).at(timestamp);
    Ok(match rest.first() {
        None => delete,
        Some(col) => {
            let spec = args::bytes(col, "column")?;
            if spec.is_empty() {
                return Ok(delete);
            }
            match args::column(&spec) {
                (family, Some(q)) => delete.columns(family, q),
                (family, None) => delete.family(family),
            }
        }
    })
}

/// `delete` / `deleteall` of one row (or a prefix range).
pub fn delete_row(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    let table = ctx.table(&args::table_name(&a[0])?)?;
    if let Some(pairs) = args::hash(&a[1]) {
        let prefix = args::get(pairs, "ROWPREFIXFILTER")
            .ok_or_else(|| CmdError::new("ROWPREFIXFILTER must be given"))?;
        let cache = match args::get(pairs, "CACHE") {
            Some(v) => usize::try_from(args::int(v, "CACHE")?).unwrap_or(1).max(1),
            None => 100,
        };
        let scan = Scan::new()
            .prefix(args::bytes(prefix, "ROWPREFIXFILTER")?)
            .filter(basalt_types::FilterSpec::FirstKeyOnly);
        let mut batch = Vec::new();
        for result in table.scan(&scan)? {
            if let Some(row) = result?.row() {
                batch.push(delete_for(Bytes::copy_from_slice(row), &a[2..])?);
            }
            if batch.len() >= cache {
                table.delete_many(&std::mem::take(&mut batch))?;
            }
        }
        if !batch.is_empty() {
            table.delete_many(&batch)?;
        }
        return Ok(Outcome::new());
    }
    let row = args::bytes(&a[1], "row")?;
    table.delete(&delete_for(row, &a[2..])?)?;
    Ok(Outcome::new())
}

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 2, 5)?;
    delete_row(ctx, a)
}
