//! `get_splits 't'`
//!
//! Prints `Total number of splits = <regions>` (HBase counts regions: split keys + 1),
//! one split key per line, and `=> ["k1", "k2"]`.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::format;
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "get_splits",
    group: Group::Ddl,
    help: HELP,
    run,
};

const HELP: &str = "Get the splits of the named table:
  hbase> get_splits 't1'
  hbase> get_splits 'ns1:t1'

The same commands also can be run on a table reference. Suppose you had a reference
t to table 't1', the corresponding command would be:

  hbase> t.get_splits
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 1)?;
    let name = args::table_name(&a[0])?;
    ctx.require_table(&name)?;
    let regions = ctx.admin().list_regions(&name)?;
    let keys: Vec<String> = regions
        .iter()
        .skip(1)
        .map(|r| format::bin(&r.start_key))
        .collect();
    let mut out = Outcome::new().line(format!("Total number of splits = {}", keys.len() + 1));
    out.lines.extend(keys.iter().cloned());
    let value = Value::Array(
        keys.into_iter()
            .map(|k| Value::Str(k.into_bytes()))
            .collect(),
    );
    Ok(out.value(value))
}
