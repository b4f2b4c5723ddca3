//! `exists 't'`
//!
//! Prints `Table t does exist` (or `does not exist`) and `=> true` / `=> false`.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "exists",
    group: Group::Ddl,
    help: HELP,
    run,
};

const HELP: &str = "Does the named table exist?
  hbase> exists 't1'
  hbase> exists 'ns1:t1'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 1)?;
    let name = args::table_name(&a[0])?;
    let exists = ctx.admin().table_exists(&name)?;
    let word = if exists { "does" } else { "does not" };
    Ok(Outcome::new()
        .line(format!("Table {name} {word} exist"))
        .value(Value::Bool(exists)))
}
