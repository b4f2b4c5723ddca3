//! `balancer_enabled`
//!
//! Prints `true` or `false`, the balancer switch where it is kept (see `balance_switch`),
//! and echoes it.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "balancer_enabled",
    group: Group::Tools,
    help: HELP,
    run,
};

const HELP: &str = "Query the balancer's state.
Examples:

  hbase> balancer_enabled
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 0, 0)?;
    let on = ctx.admin().balancer_enabled()?;
    Ok(Outcome::new().line(on.to_string()).value(Value::Bool(on)))
}
