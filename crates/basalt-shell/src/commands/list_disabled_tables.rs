//! `list_disabled_tables ['regex']`
//!
//! As `list`, only disabled tables: `TABLE`, names, `N row(s)`, `=> [...]`.

use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "list_disabled_tables",
    group: Group::Ddl,
    help: HELP,
    run,
};

const HELP: &str = "List all disabled tables in hbase. Optional regular expression parameter could
be used to filter the output. Examples:

  hbase> list_disabled_tables
  hbase> list_disabled_tables 'abc.*'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    super::list_enabled_tables::list_by_state(ctx, a, false)
}
