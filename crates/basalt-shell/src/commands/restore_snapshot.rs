//! `restore_snapshot 's'`
//!
//! Rolls the snapshot's table back to it (rows and schema). The table must be disabled
//! first and stays disabled. Prints nothing.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "restore_snapshot",
    group: Group::Snapshots,
    help: HELP,
    run,
};

const HELP: &str = "Restore a snapshot: its table gets back the rows and schema it had when the
snapshot was taken. Disable the table first; enable it afterwards.
Example:

  hbase> disable 'tableName'
  hbase> restore_snapshot 'snapshotName'
  hbase> enable 'tableName'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 2)?;
    let name = args::text(&a[0], "snapshot name")?;
    ctx.admin().restore_snapshot(&name)?;
    Ok(Outcome::new())
}
