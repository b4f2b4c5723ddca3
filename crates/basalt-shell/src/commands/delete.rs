//! `delete 't', 'r', 'f:q' [, timestamp]`
//!
//! Writes a DeleteColumn marker for the column at the timestamp (default: now), masking
//! every version at or below it; `delete 't', 'r', 'f' [, ts]` writes a DeleteFamily
//! marker. This is the HBase 1.x shell's behaviour, which the seed transcripts show
//! (`type=DeleteColumn` after `delete 'test', 'r1', 'e:c1', 11`); the 2.x shell deletes a
//! single version instead. Prints nothing.

use super::deleteall;
use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "delete",
    group: Group::Dml,
    help: HELP,
    run,
};

const HELP: &str = "Put a delete cell value at specified table/row/column and optionally
timestamp coordinates.  Deletes must match the deleted cell's
coordinates exactly.  When scanning, a delete cell suppresses older
versions. To delete a cell from  't1' at row 'r1' under column 'c1'
marked with the time 'ts1', do:

  hbase> delete 'ns1:t1', 'r1', 'c1', ts1
  hbase> delete 't1', 'r1', 'c1', ts1
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 3, 5)?;
    deleteall::delete_row(ctx, a)
}
