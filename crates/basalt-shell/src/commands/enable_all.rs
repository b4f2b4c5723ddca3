//! `enable_all 'regex'`
//!
//! Lists the matching tables, asks `Enable the above N tables (y/n)?` and prints
//! `N tables successfully enabled`.

use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;
use basalt_types::TableName;

pub static COMMAND: Command = Command {
    name: "enable_all",
    group: Group::Ddl,
    help: HELP,
    run,
};

const HELP: &str = "Enable all of the tables matching the given regex:

hbase> enable_all 't.*'
hbase> enable_all 'ns:t.*'
hbase> enable_all 'ns:.*'
";

fn enable(ctx: &Ctx, t: &TableName) -> Result<(), CmdError> {
    let admin = ctx.admin();
    if !admin.is_table_enabled(t)? {
        admin.enable_table(t)?;
    }
    Ok(())
}

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    super::disable_all::for_all(ctx, a, "Enable", "enabled", enable)
}
