//! `recommission_regionserver 'server'[, ['encoded1', ...]]`
//!
//! Removes a region server's decommission mark on the cluster's master, so it gets regions
//! again (from new tables, the balancer, crashes elsewhere); the regions named, if any,
//! then move onto it before the command returns. Standalone: an error.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "recommission_regionserver",
    group: Group::Tools,
    help: HELP,
    run,
};

const HELP: &str = "Remove the decommission mark of a region server: regions may be assigned
to it again. Optionally give encoded region names to move onto it.

Examples:
  hbase> recommission_regionserver 'host'
  hbase> recommission_regionserver 'host,port'
  hbase> recommission_regionserver 'host,port,startcode'
  hbase> recommission_regionserver 'host,port,startcode', ['encoded_region_name1', 'encoded_region_name2']
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 2)?;
    let server = args::text(&a[0], "server name")?;
    let regions = match a.get(1) {
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| args::text(v, "encoded region name"))
            .collect::<Result<Vec<_>, _>>()?,
        Some(other) => {
            return Err(CmdError::new(format!(
                "the regions to load must be an array of encoded region names, got {}",
                other.inspect()
            )))
        }
        None => Vec::new(),
    };
    ctx.admin().recommission_region_server(&server, &regions)?;
    Ok(Outcome::new())
}
