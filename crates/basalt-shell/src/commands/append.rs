//! `append 't', 'r', 'f:q', value [, {TTL => ms}]`
//!
//! Atomically appends to a cell (a missing cell starts empty) and prints
//! `CURRENT VALUE = <value>`.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::format;
use crate::output::Outcome;
use crate::parse::Value;
use basalt_types::Append;

pub static COMMAND: Command = Command {
    name: "append",
    group: Group::Dml,
    help: HELP,
    run,
};

const HELP: &str = "Appends a cell 'value' at specified table/row/column coordinates.

  hbase> append 't1', 'r1', 'c1', 'value'
  hbase> append 't1', 'r1', 'c1', 'value', {TTL => 100000}
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 4, 5)?;
    let table = ctx.table(&args::table_name(&a[0])?)?;
    let row = args::bytes(&a[1], "row")?;
    let (family, qualifier) = args::column(&args::bytes(&a[2], "column")?);
    let qualifier = qualifier.unwrap_or_default();
    let suffix = args::bytes(&a[3], "value")?;
    let mut append = Append::new(row).add(family.clone(), qualifier.clone(), suffix);
    if let Some(pairs) = a.get(4).and_then(args::hash) {
        if let Some(ttl) = args::get(pairs, "TTL") {
            append.ttl_ms = u64::try_from(args::int(ttl, "TTL")?).ok();
        }
    }
    let result = table.append(&append)?;
    let value = result
        .value(&family, &qualifier)
        .map(<[u8]>::to_vec)
        .unwrap_or_default();
    Ok(Outcome::new().line(format!("CURRENT VALUE = {}", format::bin(&value))))
}
