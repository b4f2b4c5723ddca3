//! `get_counter 't', 'r', 'f:q'`
//!
//! Prints `COUNTER VALUE = <n>`, or `No counter found at specified coordinates`. A value
//! that is not 8 bytes fails as HBase's `Bytes.toLong` does.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;
use basalt_types::Get;

pub static COMMAND: Command = Command {
    name: "get_counter",
    group: Group::Dml,
    help: HELP,
    run,
};

const HELP: &str = "Return a counter cell value at specified table/row/column coordinates.
A counter cell should be managed with atomic increment functions on HBase
and the data should be binary encoded (as long value). Example:

  hbase> get_counter 'ns1:t1', 'r1', 'c1'
  hbase> get_counter 't1', 'r1', 'c1'
";

/// `Bytes.toLong`: 8 big-endian bytes, with HBase's message for other lengths.
pub fn as_long(value: &[u8]) -> Result<i64, CmdError> {
    let bytes: [u8; 8] = value
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| {
            CmdError::new(format!(
                "offset (0) + length (8) exceed the capacity of the array: {}",
                value.len()
            ))
        })?;
    Ok(i64::from_be_bytes(bytes))
}

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 3, 3)?;
    let table = ctx.table(&args::table_name(&a[0])?)?;
    let row = args::bytes(&a[1], "row")?;
    let (family, qualifier) = args::column(&args::bytes(&a[2], "column")?);
    let qualifier = qualifier.unwrap_or_default();
    let result = table.get(&Get::new(row).column(family.clone(), qualifier.clone()))?;
    let line = match result.value(&family, &qualifier) {
        Some(v) => format!("COUNTER VALUE = {}", as_long(v)?),
        None => "No counter found at specified coordinates".to_string(),
    };
    Ok(Outcome::new().line(line))
}
