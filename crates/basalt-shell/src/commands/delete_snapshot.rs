//! `delete_snapshot 's'`
//!
//! Deletes the snapshot; files still named by its table or a clone stay. Prints nothing.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "delete_snapshot",
    group: Group::Snapshots,
    help: HELP,
    run,
};

const HELP: &str = "Delete a snapshot. Its table and tables cloned from it keep their rows.
Example:

  hbase> delete_snapshot 'snapshotName'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 1)?;
    let name = args::text(&a[0], "snapshot name")?;
    ctx.admin().delete_snapshot(&name)?;
    Ok(Outcome::new())
}
