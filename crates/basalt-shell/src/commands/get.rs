//! `get 't', 'r' [, 'f:q', ...] [, {COLUMN(S) => .., TIMESTAMP => ts, TIMERANGE => [a, b],
//! VERSIONS => n, FILTER => "..", MAXLENGTH => n, FORMATTER => 'toString'}]`; a column
//! may name a converter: `'f:q:toLong'`.
//!
//! Prints `COLUMN  CELL`, one ` f:q timestamp=<ts>, value=<v>` line per cell and
//! `N row(s)` (N = cells).

use super::read;
use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;
use basalt_types::Get;

pub static COMMAND: Command = Command {
    name: "get",
    group: Group::Dml,
    help: HELP,
    run,
};

const HELP: &str = "Get row or cell contents; pass table name, row, and optionally
a dictionary of column(s), timestamp, timerange and versions. Examples:

  hbase> get 'ns1:t1', 'r1'
  hbase> get 't1', 'r1'
  hbase> get 't1', 'r1', {TIMERANGE => [ts1, ts2]}
  hbase> get 't1', 'r1', {COLUMN => 'c1'}
  hbase> get 't1', 'r1', {COLUMN => ['c1', 'c2', 'c3']}
  hbase> get 't1', 'r1', {COLUMN => 'c1', TIMESTAMP => ts1}
  hbase> get 't1', 'r1', {COLUMN => 'c1', TIMERANGE => [ts1, ts2], VERSIONS => 4}
  hbase> get 't1', 'r1', {COLUMN => 'c1', TIMESTAMP => ts1, VERSIONS => 4}
  hbase> get 't1', 'r1', {FILTER => \"ValueFilter(=, 'binary:abc')\"}
  hbase> get 't1', 'r1', 'c1'
  hbase> get 't1', 'r1', 'c1', 'c2'
  hbase> get 't1', 'r1', ['c1', 'c2']
  hbase> get 't1', 'r1', {COLUMN => ['cf:qualifier1:toInt',
    'cf:qualifier2:c(org.apache.hadoop.hbase.util.Bytes).toInt'] }
  hbase> get 't1', 'r1', {FORMATTER => 'toString'}
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 2, usize::MAX)?;
    let table = ctx.table(&args::table_name(&a[0])?)?;
    let mut get = Get::new(args::bytes(&a[1], "row")?);
    let mut render = read::Render::new(ctx);
    for extra in &a[2..] {
        let Some(pairs) = args::hash(extra) else {
            read::add_columns(&mut get.columns, &mut render, extra)?;
            continue;
        };
        for key in ["COLUMN", "COLUMNS"] {
            if let Some(v) = args::get(pairs, key) {
                read::add_columns(&mut get.columns, &mut render, v)?;
            }
        }
        if let Some(v) = args::get(pairs, "TIMESTAMP") {
            get.time_range = read::timestamp(v)?;
        }
        if let Some(v) = args::get(pairs, "TIMERANGE") {
            get.time_range = read::time_range(v)?;
        }
        if let Some(v) = args::get(pairs, "VERSIONS") {
            get.max_versions = read::versions(v)?;
        }
        if let Some(v) = args::get(pairs, "FILTER") {
            get.filter = Some(read::filter(v)?);
        }
        render.options(pairs)?;
    }
    let result = table.get(&get)?;
    let lines = read::get_table(ctx.console(), &result, &render);
    let mut out = Outcome::new().rows(result.cells.len() as u64);
    out.lines = lines;
    Ok(out)
}
