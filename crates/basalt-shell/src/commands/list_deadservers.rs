//! `list_deadservers`
//!
//! Prints `SERVERNAME`, one dead region server per line (one whose lease expired without a
//! graceful stop, as the master reports them) and `N row(s)`. Standalone: none.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "list_deadservers",
    group: Group::Tools,
    help: HELP,
    run,
};

const HELP: &str = "List all dead region servers in hbase
Examples:
  hbase> list_deadservers
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 0, 0)?;
    let mut names = ctx
        .admin()
        .cluster_status()?
        .map(|status| status.dead_servers)
        .unwrap_or_default();
    names.sort();
    let mut out = Outcome::new().line("SERVERNAME");
    out.lines.extend(names.iter().cloned());
    Ok(out.rows(names.len() as u64))
}
