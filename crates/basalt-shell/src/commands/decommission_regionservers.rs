//! `decommission_regionservers 'server' | ['s1', 's2'][, true|false]`
//!
//! Marks region servers decommissioned on the cluster's master: no region is assigned to
//! them any more (the mark survives a master failover). With `true`, their regions also
//! move to the other servers before the command returns. A server is named by
//! `host,port,startcode`, `host,port`, `host:port` or `host`. Offloading is off unless asked
//! for, as in HBase's shell. Prints nothing but the time it took. Standalone: an error, the
//! process being its only server.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "decommission_regionservers",
    group: Group::Tools,
    help: HELP,
    run,
};

const HELP: &str = "Mark one or more region servers decommissioned: no region is assigned
to them from then on. Pass true as the second argument to also move the regions they
hold to the other servers (the command returns once they moved).

Decommission several servers in one call, so no region moves from one of them to another.

Examples:
  hbase> decommission_regionservers 'host'
  hbase> decommission_regionservers 'host,port'
  hbase> decommission_regionservers 'host,port,startcode'
  hbase> decommission_regionservers 'host,port,startcode', false
  hbase> decommission_regionservers ['host1', 'host2'], true
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 2)?;
    let servers = args::list(&a[0])
        .iter()
        .map(|v| args::text(v, "server name"))
        .collect::<Result<Vec<_>, _>>()?;
    if servers.is_empty() {
        return Err(CmdError::new(
            "decommission_regionservers needs a region server",
        ));
    }
    let offload = match a.get(1) {
        Some(v) => args::boolean(v, "offload")?,
        None => false,
    };
    ctx.admin().decommission_region_servers(&servers, offload)?;
    Ok(Outcome::new())
}
