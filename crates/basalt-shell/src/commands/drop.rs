//! `drop 't'`
//!
//! Deletes a disabled table: `Table t is enabled. Disable it first.` otherwise.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "drop",
    group: Group::Ddl,
    help: HELP,
    run,
};

const HELP: &str = "Drop the named table. Table must first be disabled:
  hbase> drop 't1'
  hbase> drop 'ns1:t1'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 1)?;
    let name = args::table_name(&a[0])?;
    ctx.require_table(&name)?;
    let admin = ctx.admin();
    if admin.is_table_enabled(&name)? {
        return Err(CmdError::new(format!(
            "Table {name} is enabled. Disable it first."
        )));
    }
    admin.delete_table(&name)?;
    Ok(Outcome::new())
}
