//! `clone_snapshot 's', 'newTable'`
//!
//! Creates a new table holding the snapshot's rows and schema; it shares the snapshot's
//! files until its compactions rewrite them. Prints nothing.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "clone_snapshot",
    group: Group::Snapshots,
    help: HELP,
    run,
};

const HELP: &str = "Create a new table from a snapshot: same rows and schema, no data copied.
The new table and the snapshot's table are independent afterwards.
Examples:

  hbase> clone_snapshot 'snapshotName', 'tableName'
  hbase> clone_snapshot 'snapshotName', 'namespace:tableName'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 2, 3)?;
    let name = args::text(&a[0], "snapshot name")?;
    let table = args::table_name(&a[1])?;
    ctx.admin().clone_snapshot(&name, &table)?;
    Ok(Outcome::new())
}
