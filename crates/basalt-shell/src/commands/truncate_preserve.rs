//! `truncate_preserve 't'`
//!
//! As `truncate`, keeping the region boundaries.

use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "truncate_preserve",
    group: Group::Ddl,
    help: HELP,
    run,
};

const HELP: &str = "  Disables, drops and recreates the specified table while still maintaining the previous region boundaries.
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    super::truncate::truncate(ctx, a, true)
}
