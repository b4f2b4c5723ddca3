//! `compact 't' [, 'f']` · `compact 'REGIONNAME' [, 'f']`
//!
//! Requests a minor compaction of the table (or of one region, or one family). Prints nothing.

use super::flush::Target;
use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "compact",
    group: Group::Tools,
    help: HELP,
    run,
};

const HELP: &str = "          Compact all regions in passed table or pass a region row
          to compact an individual region. You can also compact a single column
          family within a region.
          Examples:
          Compact all regions in a table:
          hbase> compact 'ns1:t1'
          hbase> compact 't1'
          Compact an entire region:
          hbase> compact 'r1'
          Compact only a column family within a region:
          hbase> compact 'r1', 'c1'
          Compact a column family within a table:
          hbase> compact 't1', 'c1'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 3)?;
    let family = a.get(1).map(|f| args::text(f, "family")).transpose()?;
    let family = family.as_deref().map(str::as_bytes);
    match (super::flush::target_of(ctx, &a[0])?, family) {
        (Target::Table(table), None) => ctx.admin().compact(&table, false)?,
        (Target::Table(table), Some(family)) => {
            ctx.admin().compact_family(&table, family, false)?
        }
        (Target::Region(region), family) => ctx.admin().compact_region(&region, family, false)?,
    }
    Ok(Outcome::new())
}
