//! `is_enabled 't'`
//!
//! Prints `true` or `false` and echoes it.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "is_enabled",
    group: Group::Ddl,
    help: HELP,
    run,
};

const HELP: &str = "Is named table enabled? For example:
  hbase> is_enabled 't1'
  hbase> is_enabled 'ns1:t1'
";

/// Whether the table is enabled, failing with `Table t does not exist.`.
pub fn enabled(ctx: &Ctx, a: &[Value]) -> Result<bool, CmdError> {
    let name = args::table_name(&a[0])?;
    ctx.require_table(&name)?;
    Ok(ctx.admin().is_table_enabled(&name)?)
}

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 1)?;
    let on = enabled(ctx, a)?;
    Ok(Outcome::new().line(on.to_string()).value(Value::Bool(on)))
}
