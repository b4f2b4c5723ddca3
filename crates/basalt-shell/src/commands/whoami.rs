//! `whoami`
//!
//! Prints `<user> (auth:SIMPLE)` and `    groups: <user>`.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "whoami",
    group: Group::General,
    help: HELP,
    run,
};

const HELP: &str = "Show the current hbase user.
Syntax : whoami
For example:

    hbase> whoami
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 0, 0)?;
    Ok(Outcome::new()
        .line(format!("{} (auth:SIMPLE)", ctx.user))
        .line(format!("    groups: {}", ctx.user)))
}
