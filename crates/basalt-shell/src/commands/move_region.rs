//! `move 'ENCODED_REGIONNAME' [, 'SERVER_NAME']`
//!
//! Moves a region to a region server (`host,port,startcode`, or `host,port`), or where the
//! balancer would put it. On one server (standalone) there is nowhere to move: nothing
//! happens. Prints nothing.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "move",
    group: Group::Tools,
    help: HELP,
    run,
};

const HELP: &str = "Move a region.  Optionally specify target regionserver else we choose one
at random.  NOTE: You pass the encoded region name, not the region name so
this command is a little different to the others.  The encoded region name
is the hash suffix on region names: e.g. if the region name were
TestTable,0094429456,1289497600452.527db22f95c8a9e0116f0cc13c680396. then
the encoded region name portion is 527db22f95c8a9e0116f0cc13c680396
A server name is its host, port plus startcode. For example:
host187.example.com,60020,1289493121758
Examples:

  hbase> move 'ENCODED_REGIONNAME'
  hbase> move 'ENCODED_REGIONNAME', 'SERVER_NAME'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 2)?;
    let region = args::text(&a[0], "region name")?;
    let server = match a.get(1) {
        Some(v) => Some(args::text(v, "server name")?),
        None => None,
    };
    ctx.admin().move_region(&region, server.as_deref())?;
    Ok(Outcome::new())
}
