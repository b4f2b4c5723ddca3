//! `close_region 'REGIONNAME' | 'ENCODED_REGIONNAME' [, 'SERVER_NAME']`
//!
//! As HBase 2 does, the same as `unassign`: the master closes the region wherever it is
//! open (the server name changes nothing) and it stays closed until `assign`. Prints
//! nothing.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "close_region",
    group: Group::Tools,
    help: HELP,
    run,
};

const HELP: &str = "Close a single region.  Ask the master to close a region out on the cluster
or if 'SERVER_NAME' is supplied, ask the designated hosting regionserver to
close the region directly.  Closing a region, the master expects 'REGIONNAME'
to be a fully qualified region name.  When asking the hosting regionserver to
directly close a region, you pass the regions' encoded name only. A region
name looks like this:

 TestTable,0094429456,1289497600452.527db22f95c8a9e0116f0cc13c680396.
or
 Namespace:TestTable,0094429456,1289497600452.527db22f95c8a9e0116f0cc13c680396.

The trailing period is part of the regionserver name. A region's encoded name
is the hash at the end of a region name; e.g. 527db22f95c8a9e0116f0cc13c680396
(without the period).  A 'SERVER_NAME' is its host, port plus startcode. For
example: host187.example.com,60020,1289493121758 (find servername in master ui
or when you do detailed status in shell).  Once closed, region will stay closed.
Use assign to reopen/reassign.  Use unassign or move to assign the region
elsewhere on cluster. Use with caution.  For experts only.
Examples:

  hbase> close_region 'REGIONNAME'
  hbase> close_region 'REGIONNAME', 'SERVER_NAME'
  hbase> close_region 'ENCODED_REGIONNAME'
  hbase> close_region 'ENCODED_REGIONNAME', 'SERVER_NAME'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 2)?;
    let region = args::text(&a[0], "region name")?;
    let server = match a.get(1) {
        Some(v) => Some(args::text(v, "server name")?),
        None => None,
    };
    ctx.admin().close_region(&region, server.as_deref())?;
    Ok(Outcome::new())
}
