//! `clear_deadservers ['server', ...]`
//!
//! Removes dead region servers from the master's dead list (`list_deadservers`): every
//! one when none is named. Prints `Cleared <server>` for each removed, then `true` when
//! every one asked for went; otherwise `Some dead server clear failed`, `SERVERNAME` and
//! each server kept with why — one whose crash recovery still runs (a region still reads
//! its log), or a name that is no dead server — and `N row(s)`, as HBase's shell lists
//! them. Standalone: an error.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "clear_deadservers",
    group: Group::Tools,
    help: HELP,
    run,
};

const HELP: &str = "Remove dead region servers from the master's list of dead servers; a
server whose regions are still being recovered stays listed.
Examples:
Every dead server:
  hbase> clear_deadservers
Only some:
  hbase> clear_deadservers 'host1.example.com,16020,1700000000000'
  hbase> clear_deadservers 'host1.example.com,16020,1700000000000', 'host2.example.com,16020,1700000000000'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    let servers = a
        .iter()
        .flat_map(args::list)
        .map(|v| args::text(&v, "server name"))
        .collect::<Result<Vec<_>, _>>()?;
    let outcome = ctx.admin().clear_dead_servers(&servers)?;
    let mut out = Outcome::new();
    for server in &outcome.cleared {
        out = out.line(format!("Cleared {server}"));
    }
    if outcome.refused.is_empty() {
        return Ok(out.line("true"));
    }
    out = out.line("Some dead server clear failed").line("SERVERNAME");
    for (server, why) in &outcome.refused {
        out = out.line(format!("{server} ({why})"));
    }
    Ok(out.rows(outcome.refused.len() as u64))
}
