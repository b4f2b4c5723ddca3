//! `put 't', 'r', 'f:q', value [, timestamp] [, {TTL => ms, ATTRIBUTES => {..}}]`
//!
//! Writes one cell; without a timestamp the server's time is used. Prints nothing.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;
use basalt_types::{Put, LATEST_TIMESTAMP};

pub static COMMAND: Command = Command {
    name: "put",
    group: Group::Dml,
    help: HELP,
    run,
};

const HELP: &str = "Put a cell 'value' at specified table/row/column and optionally
timestamp coordinates.  To put a cell value into table 'ns1:t1' or 't1'
at row 'r1' under column 'c1' marked with the time 'ts1', do:

  hbase> put 'ns1:t1', 'r1', 'c1', 'value'
  hbase> put 't1', 'r1', 'c1', 'value'
  hbase> put 't1', 'r1', 'c1', 'value', ts1
  hbase> put 't1', 'r1', 'c1', 'value', {TTL => 100000}
  hbase> put 't1', 'r1', 'c1', 'value', ts1, {TTL => 100000}
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 4, 6)?;
    let table = ctx.table(&args::table_name(&a[0])?)?;
    let row = args::bytes(&a[1], "row")?;
    let (family, qualifier) = args::column(&args::bytes(&a[2], "column")?);
    let value = args::bytes(&a[3], "value")?;
    let mut timestamp = LATEST_TIMESTAMP;
    let mut ttl_ms = None;
    for extra in &a[4..] {
        match args::hash(extra) {
            Some(pairs) => {
                if let Some(ttl) = args::get(pairs, "TTL") {
                    ttl_ms = Some(u64::try_from(args::int(ttl, "TTL")?).unwrap_or(0));
                }
            }
            None => timestamp = args::int(extra, "timestamp")?,
        }
    }
    let mut put = Put::new(row).add_at(family, qualifier.unwrap_or_default(), timestamp, value);
    put.ttl_ms = ttl_ms;
    table.put(&put)?;
    Ok(Outcome::new())
}
