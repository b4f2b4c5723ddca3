//! `alter_async 't', ...` (the arguments of `alter`)
//!
//! As `alter`, without waiting for regions: one process applies a schema change at once,
//! so this only differs in printing nothing.

use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "alter_async",
    group: Group::Ddl,
    help: HELP,
    run,
};

const HELP: &str = "Alter column family schema, does not wait for all regions to receive the
schema changes. Pass table name and a dictionary specifying new column
family schema. Dictionaries are described on the main help command output.
Dictionary must include name of column family to alter. For example,

To change or add the 'f1' column family in table 't1' from defaults
to instead keep a maximum of 5 cell VERSIONS, do:

  hbase> alter_async 't1', NAME => 'f1', VERSIONS => 5

To delete the 'f1' column family in table 'ns1:t1', do:

  hbase> alter_async 'ns1:t1', NAME => 'f1', METHOD => 'delete'

To check if all the regions have been updated, use alter_status <table_name>
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    super::alter::alter(ctx, a)?;
    Ok(Outcome::new())
}
