//! `compact_rs 'server' [, major = false]`
//!
//! One process serves every region: compacts every table (major when asked). Prints
//! nothing.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "compact_rs",
    group: Group::Tools,
    help: HELP,
    run,
};

const HELP: &str = "          Compact all regions on passed regionserver.
          Examples:
          Compact all regions on a regionserver:
          hbase> compact_rs 'host187.example.com,60020'
          or
          hbase> compact_rs 'host187.example.com,60020,1289493121758'
          Major compact all regions on a regionserver:
          hbase> compact_rs 'host187.example.com,60020,1289493121758', true
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 2)?;
    let major = a
        .get(1)
        .map(|v| args::boolean(v, "major"))
        .transpose()?
        .unwrap_or(false);
    let admin = ctx.admin();
    for table in admin.list_tables(None)? {
        if admin.is_table_enabled(&table)? {
            admin.compact(&table, major)?;
        }
    }
    Ok(Outcome::new())
}
