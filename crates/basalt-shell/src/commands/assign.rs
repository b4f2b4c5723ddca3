//! `assign 'REGIONNAME' | 'ENCODED_REGIONNAME'`
//!
//! Opens a region that is not open (after `unassign`), where the balancer would put it; a
//! region already open stays where it is (standalone serves every region: nothing to do).
//! Prints nothing.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "assign",
    group: Group::Tools,
    help: HELP,
    run,
};

const HELP: &str =
    "Assign a region. It could be executed only when region in expected state(CLOSED, OFFLINE).
Use with caution. For experts only.
Examples:

  hbase> assign 'REGIONNAME'
  hbase> assign 'ENCODED_REGIONNAME'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 1)?;
    let region = args::text(&a[0], "region name")?;
    ctx.admin().assign(&region)?;
    Ok(Outcome::new())
}
