//! `incr 't', 'r', 'f:q' [, delta = 1] [, {TTL => ms}]`
//!
//! Atomically adds `delta` to an 8-byte counter (a missing cell counts as 0) and prints
//! `COUNTER VALUE = <n>`.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;
use basalt_types::Increment;

pub static COMMAND: Command = Command {
    name: "incr",
    group: Group::Dml,
    help: HELP,
    run,
};

const HELP: &str = "Increments a cell 'value' at specified table/row/column coordinates.
To increment a cell value in table 'ns1:t1' or 't1' at row 'r1' under column
'c1' by 1 (can be omitted) or 10 do:

  hbase> incr 'ns1:t1', 'r1', 'c1'
  hbase> incr 't1', 'r1', 'c1'
  hbase> incr 't1', 'r1', 'c1', 1
  hbase> incr 't1', 'r1', 'c1', 10
  hbase> incr 't1', 'r1', 'c1', 10, {TTL => 100000}
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 3, 5)?;
    let table = ctx.table(&args::table_name(&a[0])?)?;
    let row = args::bytes(&a[1], "row")?;
    let (family, qualifier) = args::column(&args::bytes(&a[2], "column")?);
    let qualifier = qualifier.unwrap_or_default();
    let mut delta = 1;
    let mut ttl_ms = None;
    for extra in &a[3..] {
        match args::hash(extra) {
            Some(pairs) => {
                if let Some(ttl) = args::get(pairs, "TTL") {
                    ttl_ms = u64::try_from(args::int(ttl, "TTL")?).ok();
                }
            }
            None => delta = args::int(extra, "value")?,
        }
    }
    let mut inc = Increment::new(row).add(family.clone(), qualifier.clone(), delta);
    inc.ttl_ms = ttl_ms;
    let result = table.increment(&inc)?;
    let value = result
        .value(&family, &qualifier)
        .ok_or_else(|| CmdError::new("The increment returned no value"))?;
    let counter = super::get_counter::as_long(value)?;
    Ok(Outcome::new().line(format!("COUNTER VALUE = {counter}")))
}
