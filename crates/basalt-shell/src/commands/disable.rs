//! `disable 't'`
//!
//! Takes a table offline; a disabled table stays disabled. Prints nothing.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "disable",
    group: Group::Ddl,
    help: HELP,
    run,
};

const HELP: &str = "Start disable of named table:
  hbase> disable 't1'
  hbase> disable 'ns1:t1'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 1)?;
    let name = args::table_name(&a[0])?;
    ctx.require_table(&name)?;
    let admin = ctx.admin();
    if admin.is_table_enabled(&name)? {
        admin.disable_table(&name)?;
    }
    Ok(Outcome::new())
}
