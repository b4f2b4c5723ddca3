//! `list_table_snapshots 'tableRegex'` · `list_table_snapshots 'tableRegex', 'snapshotRegex'`
//!
//! Prints `SNAPSHOT  TABLE + CREATION TIME`, one snapshot per line, `N row(s)`, and
//! returns the names.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "list_table_snapshots",
    group: Group::Snapshots,
    help: HELP,
    run,
};

const HELP: &str = "List the snapshots of the tables a regular expression matches; a second
regular expression selects snapshots by name.
Examples:

  hbase> list_table_snapshots 'tableName'
  hbase> list_table_snapshots 'tableName.*', 'snapshotName.*'
  hbase> list_table_snapshots 'ns:tableName.*', 'snapshotName'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 2)?;
    let tables = args::text(&a[0], "table regex")?;
    let snapshots = match a.get(1) {
        Some(v) => args::text(v, "snapshot regex")?,
        None => ".*".to_string(),
    };
    let list = super::snapshots::of_tables(ctx, &tables, &snapshots)?;
    let mut out = Outcome::new();
    out.lines = super::snapshots::table_lines(ctx, &list, false);
    Ok(out
        .rows(list.len() as u64)
        .value(super::snapshots::names_value(&list)))
}
