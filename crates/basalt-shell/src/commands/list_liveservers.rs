//! `list_liveservers`
//!
//! Prints `SERVERNAME`, one live region server per line (`host,port,startcode`, as the
//! master reports them) and `N row(s)`. Standalone, the process is the one server.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "list_liveservers",
    group: Group::Tools,
    help: HELP,
    run,
};

const HELP: &str = "List all live region servers in hbase
Examples:
  hbase> list_liveservers
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 0, 0)?;
    let admin = ctx.admin();
    let mut names: Vec<String> = match admin.cluster_status()? {
        Some(status) => status.servers.into_iter().map(|s| s.name).collect(),
        None => vec![crate::commands::status::standalone_server(&*admin)?],
    };
    names.sort();
    let mut out = Outcome::new().line("SERVERNAME");
    out.lines.extend(names.iter().cloned());
    Ok(out.rows(names.len() as u64))
}
