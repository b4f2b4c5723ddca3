//! `drop_all 'regex'`
//!
//! Lists the matching tables, asks `Drop the above N tables (y/n)?` and prints
//! `N tables successfully dropped` (enabled tables fail and are listed).

use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;
use basalt_types::TableName;

pub static COMMAND: Command = Command {
    name: "drop_all",
    group: Group::Ddl,
    help: HELP,
    run,
};

const HELP: &str = "Drop all of the tables matching the given regex:

hbase> drop_all 't.*'
hbase> drop_all 'ns:t.*'
hbase> drop_all 'ns:.*'
";

fn drop(ctx: &Ctx, t: &TableName) -> Result<(), CmdError> {
    let admin = ctx.admin();
    if admin.is_table_enabled(t)? {
        return Err(CmdError::new(format!(
            "Table {t} is enabled. Disable it first."
        )));
    }
    Ok(admin.delete_table(t)?)
}

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    super::disable_all::for_all(ctx, a, "Drop", "dropped", drop)
}
