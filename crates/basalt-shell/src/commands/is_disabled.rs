//! `is_disabled 't'`
//!
//! Prints `true` or `false` and echoes it.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "is_disabled",
    group: Group::Ddl,
    help: HELP,
    run,
};

const HELP: &str = "Is named table disabled? For example:
  hbase> is_disabled 't1'
  hbase> is_disabled 'ns1:t1'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 1)?;
    let off = !super::is_enabled::enabled(ctx, a)?;
    Ok(Outcome::new().line(off.to_string()).value(Value::Bool(off)))
}
