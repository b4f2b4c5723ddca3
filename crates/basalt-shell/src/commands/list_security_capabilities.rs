//! `list_security_capabilities`
//!
//! Prints HBase's names of the security the cluster enforces, one per line
//! (`SIMPLE_AUTHENTICATION`, `AUTHORIZATION` when grants are checked), and returns them.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "list_security_capabilities",
    group: Group::Security,
    help: HELP,
    run,
};

const HELP: &str = "List supported security capabilities

Example:
    hbase> list_security_capabilities
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 0, 0)?;
    let caps = ctx.admin().security_capabilities()?;
    let mut out = Outcome::new();
    out.lines.extend(caps.iter().cloned());
    let value = Value::Array(
        caps.into_iter()
            .map(|c| Value::Str(c.into_bytes()))
            .collect(),
    );
    Ok(out.value(value))
}
