//! `balance_switch true|false`
//!
//! Turns the balancer on or off where it runs (a cluster's active master, which keeps the
//! switch in the coordinator; standalone, the server process), so every shell sees the
//! same switch; prints `Previous balancer state : <bool>` and echoes the previous state.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "balance_switch",
    group: Group::Tools,
    help: HELP,
    run,
};

const HELP: &str = "Enable/Disable balancer. Returns previous balancer state.
Examples:

  hbase> balance_switch true
  hbase> balance_switch false
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 1)?;
    let on = args::boolean(&a[0], "enableDisable")?;
    let previous = ctx.admin().balance_switch(on)?;
    Ok(Outcome::new()
        .line(format!("Previous balancer state : {previous}"))
        .value(Value::Bool(previous)))
}
