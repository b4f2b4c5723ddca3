//! `delete_all_snapshot 'regex'`
//!
//! Lists the matching snapshots, asks `Delete the above N snapshots (y/n)?` and prints
//! `N snapshots successfully deleted.` (and those that could not be, in a second table).

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "delete_all_snapshot",
    group: Group::Snapshots,
    help: HELP,
    run,
};

const HELP: &str = "Delete every snapshot whose name a regular expression matches, after
asking. Example:

  hbase> delete_all_snapshot 's.*'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 1)?;
    let regex = args::text(&a[0], "regex")?;
    let list = ctx.admin().list_snapshots(Some(&regex))?;
    super::snapshots::delete_confirmed(ctx, list, format!("No snapshots matched the regex {regex}"))
}
