//! `alter_status 't'`
//!
//! Schema changes reach every region at once here: prints `N/N regions updated.` and
//! `Done.`.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "alter_status",
    group: Group::Ddl,
    help: HELP,
    run,
};

const HELP: &str = "Get the status of the alter command. Indicates the number of regions of the
table that have received the updated schema
Pass table name.

hbase> alter_status 't1'
hbase> alter_status 'ns1:t1'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 1)?;
    let name = args::table_name(&a[0])?;
    ctx.require_table(&name)?;
    let regions = ctx.admin().list_regions(&name)?.len();
    Ok(Outcome::new()
        .line(format!("{regions}/{regions} regions updated."))
        .line("Done."))
}
