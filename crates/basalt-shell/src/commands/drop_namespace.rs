//! `drop_namespace 'ns'`
//!
//! Drops an empty namespace. Prints nothing.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "drop_namespace",
    group: Group::Namespace,
    help: HELP,
    run,
};

const HELP: &str = "Drop the named namespace. The namespace must be empty.
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 1)?;
    let name = args::text(&a[0], "namespace")?;
    ctx.admin().delete_namespace(&name)?;
    Ok(Outcome::new())
}
