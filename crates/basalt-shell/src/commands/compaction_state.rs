//! `compaction_state 't'`
//!
//! Compactions requested from the shell finish before it answers, so a table is never
//! seen compacting: prints `NONE` and echoes it.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "compaction_state",
    group: Group::Tools,
    help: HELP,
    run,
};

const HELP: &str =
    "          Gets compaction status (MAJOR, MAJOR_AND_MINOR, MINOR, NONE) for a table:
          hbase> compaction_state 'ns1:t1'
          hbase> compaction_state 't1'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 1)?;
    let name = args::table_name(&a[0])?;
    ctx.require_table(&name)?;
    Ok(Outcome::new()
        .line("NONE")
        .value(Value::Str(b"NONE".to_vec())))
}
