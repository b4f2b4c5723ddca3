//! `clear_slowlog_responses [SERVERS]`
//!
//! Empties the slow log of the region servers named (every live one when none is, or
//! `'*'`), printing `Cleared Slowlog responses from N/M RegionServers` as HBase's shell.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "clear_slowlog_responses",
    group: Group::Tools,
    help: HELP,
    run,
};

const HELP: &str = "Clear the slow log (the slow responses kept in memory) of region servers:
every one when none is named.
Examples:
  hbase> clear_slowlog_responses
  hbase> clear_slowlog_responses ['host1.example.com,16020,1700000000000', 'host2.example.com,16020,1700000000000']
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 0, 1)?;
    let servers = a
        .iter()
        .flat_map(args::list)
        .map(|v| args::text(&v, "server name"))
        .collect::<Result<Vec<_>, _>>()?;
    let answers = ctx.admin().clear_slowlog_responses(&servers)?;
    let cleared = answers.iter().filter(|(_, done)| *done).count();
    let mut out = Outcome::new().line(format!(
        "Cleared Slowlog responses from {cleared}/{} RegionServers",
        answers.len()
    ));
    for (server, _) in answers.iter().filter(|(_, done)| !*done) {
        out = out.line(format!("Not cleared: {server}"));
    }
    Ok(out)
}
