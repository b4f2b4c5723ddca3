//! `t = get_table 't'`
//!
//! Returns a table reference (`=> Hbase::Table - t`) for `t.put ...`, `t.scan`, ...

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "get_table",
    group: Group::Ddl,
    help: HELP,
    run,
};

const HELP: &str = "Get the given table name and return it as an actual object to
be manipulated by the user. See table.help for more information
on how to use the table.
Eg.

  hbase> t1 = get_table 't1'
  hbase> t1 = get_table 'ns1:t1'

returns the table named 't1' as a table object. You can then do

  hbase> t1.help

which will then print the help for that table.
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 1)?;
    let name = args::table_name(&a[0])?;
    ctx.table(&name)?;
    Ok(Outcome::new().value(Value::Table(name.to_string())))
}
