//! `enable 't'`
//!
//! Brings a table online; an enabled table stays enabled. Prints nothing.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "enable",
    group: Group::Ddl,
    help: HELP,
    run,
};

const HELP: &str = "Start enable of named table:
  hbase> enable 't1'
  hbase> enable 'ns1:t1'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 1)?;
    let name = args::table_name(&a[0])?;
    ctx.require_table(&name)?;
    let admin = ctx.admin();
    if !admin.is_table_enabled(&name)? {
        admin.enable_table(&name)?;
    }
    Ok(Outcome::new())
}
