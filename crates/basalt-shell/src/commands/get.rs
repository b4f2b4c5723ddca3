//! `get 't', 'r' [, 'f:q', ...] [, {COLUMN(S) => .., TIMESTAMP => ts, TIMERANGE => [a, b],
//! VERSIONS => n, FILTER => "..", MAXLENGTH => n, FORMATTER => 'toString'}]`; a column
//! may name a converter: `'f:q:toLong'`.
//!
//! Prints `COLUMN  CELL`, one ` f:q timestamp=<ts>, value=<v>` line per cell and
//! `1 row(s)` — one row, however many cells (`0 row(s)` when the row is empty), as HBase
//! 2.x's `table.rb` `_get_internal` counts; [`Style::Hbase1`] counts cells, as 1.x did.

use super::read;
use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::{Outcome, Style};
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
    // HBase 2.x's `_get_internal` counts the row, not its cells: `count += 1` once the
    // result is not empty (`hbase-shell/src/main/ruby/hbase/table.rb`); the 1.x shell's
    // formatter counted the lines it printed, one per cell.
    let rows = match ctx.style {
        Style::Hbase2 => u64::from(!result.cells.is_empty()),
        Style::Hbase1 => result.cells.len() as u64,
    };
    let mut out = Outcome::new().rows(rows);
    out.lines = lines;
    Ok(out)
}
