//! `balancer [, 'force']`
//!
//! Asks the master to balance now (standalone: one server, nothing to move); prints `true`
//! when the balancer ran and echoes it, or `false` while `balance_switch false` is in
//! force or regions are moving. `'force'` is accepted; the master decides.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "balancer",
    group: Group::Tools,
    help: HELP,
    run,
};

const HELP: &str = "Trigger the cluster balancer. Returns true if balancer ran, otherwise false (Will not run if regions in transition).

Parameter tells master to run balancer even if there are regions in transition.
WARNING: For experts only. Forcing a balance may do more damage than repair when assignment is confused

Examples:

  hbase> balancer
  hbase> balancer \"force\"
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 0, 1)?;
    let ran = ctx.admin().balance()?;
    Ok(Outcome::new().line(ran.to_string()).value(Value::Bool(ran)))
}
