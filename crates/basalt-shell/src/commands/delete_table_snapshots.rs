//! `delete_table_snapshots 'tableRegex'` · `delete_table_snapshots 'tableRegex', 'snapshotRegex'`
//!
//! As `delete_all_snapshot`, for the snapshots of the matching tables.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "delete_table_snapshots",
    group: Group::Snapshots,
    help: HELP,
    run,
};

const HELP: &str = "Delete the snapshots of the tables a regular expression matches, after
asking; a second regular expression selects snapshots by name.
Examples:

  hbase> delete_table_snapshots 'tableName'
  hbase> delete_table_snapshots 'tableName.*', 'snapshotName.*'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 2)?;
    let tables = args::text(&a[0], "table regex")?;
    let snapshots = match a.get(1) {
        Some(v) => args::text(v, "snapshot regex")?,
        None => ".*".to_string(),
    };
    let list = super::snapshots::of_tables(ctx, &tables, &snapshots)?;
    let none = format!(
        "No snapshots matched the table name regular expression {tables} and the snapshot \
         name regular expression {snapshots}"
    );
    super::snapshots::delete_confirmed(ctx, list, none)
}
