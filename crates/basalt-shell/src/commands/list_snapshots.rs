//! `list_snapshots` · `list_snapshots 'regex'`
//!
//! Prints `SNAPSHOT  TABLE + CREATION TIME + TTL(Sec)`, one snapshot per line
//! (` s1  t1 (2024-10-15 14:13:25 +0000) FOREVER`), `N row(s)`, and returns the names.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "list_snapshots",
    group: Group::Snapshots,
    help: HELP,
    run,
};

const HELP: &str = "List the snapshots taken, with their table, creation time and TTL.
A regular expression selects snapshots by name.
Examples:

  hbase> list_snapshots
  hbase> list_snapshots 'abc.*'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 0, 1)?;
    let pattern = a.first().map(|v| args::text(v, "regex")).transpose()?;
    let list = ctx.admin().list_snapshots(pattern.as_deref())?;
    let mut out = Outcome::new();
    out.lines = super::snapshots::table_lines(ctx, &list, true);
    Ok(out
        .rows(list.len() as u64)
        .value(super::snapshots::names_value(&list)))
}
