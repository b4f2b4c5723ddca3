//! `unassign 'REGIONNAME' | 'ENCODED_REGIONNAME' [, true]`
//!
//! Closes a region where it is open (its server flushes it); it stays closed, its rows
//! unavailable, until `assign` (the balancer leaves it alone). `true` (HBase's "force") is
//! accepted and changes nothing. Standalone, one process serves every region: an error
//! saying a cluster is needed. Prints nothing.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "unassign",
    group: Group::Tools,
    help: HELP,
    run,
};

const HELP: &str =
    "Unassign a region. It could be executed only when region in expected state(OPEN).
Pass 'true' to force the unassignment ('force' will clear
all in-memory state in master before the reassign. If results in
double assignment use hbck -fix to resolve. To be used by experts).
Use with caution.  For expert use only.  Examples:

  hbase> unassign 'REGIONNAME'
  hbase> unassign 'REGIONNAME', true
  hbase> unassign 'ENCODED_REGIONNAME'
  hbase> unassign 'ENCODED_REGIONNAME', true
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 2)?;
    let region = args::text(&a[0], "region name")?;
    let force = match a.get(1) {
        Some(v) => args::boolean(v, "force")?,
        None => false,
    };
    ctx.admin().unassign(&region, force)?;
    Ok(Outcome::new())
}
