//! `major_compact 't' [, 'f']` · `major_compact 'REGIONNAME' [, 'f']`
//!
//! Rewrites the table's files into one per store, dropping deleted and expired cells
//! (or of one region, or one family). Prints nothing.

use super::flush::Target;
use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "major_compact",
    group: Group::Tools,
    help: HELP,
    run,
};

const HELP: &str = "          Run major compaction on passed table or pass a region row
          to major compact an individual region. To compact a single
          column family within a region specify the region name
          followed by the column family name.
          Examples:
          Compact all regions in a table:
          hbase> major_compact 't1'
          hbase> major_compact 'ns1:t1'
          Compact an entire region:
          hbase> major_compact 'r1'
          Compact a single column family within a region:
          hbase> major_compact 'r1', 'c1'
          Compact a single column family within a table:
          hbase> major_compact 't1', 'c1'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 3)?;
    let family = a.get(1).map(|f| args::text(f, "family")).transpose()?;
    let family = family.as_deref().map(str::as_bytes);
    match (super::flush::target_of(ctx, &a[0])?, family) {
        (Target::Table(table), None) => ctx.admin().compact(&table, true)?,
        (Target::Table(table), Some(family)) => ctx.admin().compact_family(&table, family, true)?,
        (Target::Region(region), family) => ctx.admin().compact_region(&region, family, true)?,
    }
    Ok(Outcome::new())
}
