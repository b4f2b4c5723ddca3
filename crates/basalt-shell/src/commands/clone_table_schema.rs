//! `clone_table_schema 'source', 'target' [, preserve_splits = true]`
//!
//! Creates `target` with `source`'s families and options (and its split keys unless
//! `false`), without its data. Prints nothing.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;
use basalt_api::PreSplit;

pub static COMMAND: Command = Command {
    name: "clone_table_schema",
    group: Group::Ddl,
    help: HELP,
    run,
};

const HELP: &str = "Create a new table by cloning the existent table schema.
There're no copies of data involved.
Just copy the table descriptor and split keys.

Passing 'false' as the optional third parameter will
not preserve split keys.
Examples:
  hbase> clone_table_schema 'table_name', 'new_table_name'
  hbase> clone_table_schema 'table_name', 'new_table_name', false
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 2, 3)?;
    let source = args::table_name(&a[0])?;
    let target = args::table_name(&a[1])?;
    let preserve = a
        .get(2)
        .map(|v| args::boolean(v, "preserve_splits"))
        .transpose()?
        .unwrap_or(true);
    ctx.require_table(&source)?;
    let admin = ctx.admin();
    let mut descriptor = admin.describe_table(&source)?;
    descriptor.name = target;
    let split = if preserve {
        let keys: Vec<_> = admin
            .list_regions(&source)?
            .into_iter()
            .skip(1)
            .map(|r| r.start_key)
            .collect();
        if keys.is_empty() {
            PreSplit::None
        } else {
            PreSplit::Keys(keys)
        }
    } else {
        PreSplit::None
    };
    admin.create_table(&descriptor, &split)?;
    Ok(Outcome::new())
}
