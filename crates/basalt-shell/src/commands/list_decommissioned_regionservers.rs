//! `list_decommissioned_regionservers`
//!
//! Prints `DECOMMISSIONED REGION SERVERS`, one decommissioned server per line
//! (`host,port,startcode`) and `N row(s)`. Standalone: none.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "list_decommissioned_regionservers",
    group: Group::Tools,
    help: HELP,
    run,
};

const HELP: &str = "List the region servers marked decommissioned (no region is assigned to them).
Examples:
  hbase> list_decommissioned_regionservers
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 0, 0)?;
    let names = ctx.admin().list_decommissioned_region_servers()?;
    let mut out = Outcome::new().line("DECOMMISSIONED REGION SERVERS");
    out.lines.extend(names.iter().cloned());
    Ok(out.rows(names.len() as u64))
}
