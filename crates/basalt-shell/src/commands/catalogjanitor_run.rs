//! `catalogjanitor_run`
//!
//! Cleans up after finished splits and merges; echoes how many parents it cleaned.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "catalogjanitor_run",
    group: Group::Tools,
    help: HELP,
    run,
};

const HELP: &str = "Catalog janitor command to run the (garbage collection) scan from command line.

  hbase> catalogjanitor_run
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 0, 0)?;
    let cleaned = ctx.admin().run_catalog_janitor()?;
    Ok(Outcome::new().value(Value::Int(cleaned as i64)))
}
