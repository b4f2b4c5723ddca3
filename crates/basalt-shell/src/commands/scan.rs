//! `scan 't' [, {STARTROW => 'a', STOPROW => 'z', ROWPREFIXFILTER => 'p', LIMIT => n,
//! REVERSED => true, RAW => true, VERSIONS => n, COLUMNS => [...], FILTER => "...",
//! TIMERANGE => [a, b], TIMESTAMP => ts, CACHE => n, BATCH => n, MAX_RESULT_SIZE => n,
//! CACHE_BLOCKS => bool, MAXLENGTH => n, FORMATTER => 'toString'}]`; a column may name a
//! converter: `'f:q:toInt'`.
//!
//! Prints `ROW  COLUMN+CELL`, one ` row column=f:q, timestamp=<ts>, value=<v>` line per
//! cell (`type=DeleteColumn` etc. for markers of raw scans) and `N row(s)` (N = rows).

use super::read;
use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;
use basalt_types::Scan;

pub static COMMAND: Command = Command {
    name: "scan",
    group: Group::Dml,
    help: HELP,
    run,
};

const HELP: &str = "Scan a table; pass table name and optionally a dictionary of scanner
specifications.  Scanner specifications may include one or more of:
TIMERANGE, FILTER, LIMIT, STARTROW, STOPROW, ROWPREFIXFILTER, TIMESTAMP,
MAXLENGTH, COLUMNS, CACHE, RAW, VERSIONS, REVERSED, BATCH, MAX_RESULT_SIZE,
CACHE_BLOCKS

If no columns are specified, all columns will be scanned.
To scan all members of a column family, leave the qualifier empty as in
'col_family'.

Some examples:

  hbase> scan 'hbase:meta'
  hbase> scan 'hbase:meta', {COLUMNS => 'info:regioninfo'}
  hbase> scan 'ns1:t1', {COLUMNS => ['c1', 'c2'], LIMIT => 10, STARTROW => 'xyz'}
  hbase> scan 't1', {COLUMNS => ['c1', 'c2'], LIMIT => 10, STARTROW => 'xyz'}
  hbase> scan 't1', {COLUMNS => 'c1', TIMERANGE => [1303668804000, 1303668904000]}
  hbase> scan 't1', {REVERSED => true}
  hbase> scan 't1', {ROWPREFIXFILTER => 'row2', FILTER => \"
    (QualifierFilter (>=, 'binary:xyz')) AND (TimestampsFilter ( 123, 456))\"}
  hbase> scan 't1', {FILTER => \"PrefixFilter('row')\"}
  hbase> scan 't1', {RAW => true, VERSIONS => 10}
";

/// Builds the scan a `scan` hash asks for, and how to print its cells.
pub fn scan_from(pairs: &[(Value, Value)], render: &mut read::Render) -> Result<Scan, CmdError> {
    let mut scan = Scan::new();
    if let Some(v) = args::get(pairs, "STARTROW") {
        scan.start_row = args::bytes(v, "STARTROW")?;
    }
    if let Some(v) = args::get(pairs, "STOPROW").or_else(|| args::get(pairs, "ENDROW")) {
        scan.stop_row = args::bytes(v, "STOPROW")?;
    }
    if let Some(v) = args::get(pairs, "ROWPREFIXFILTER") {
        scan = scan.prefix(args::bytes(v, "ROWPREFIXFILTER")?);
    }
    if let Some(v) = args::get(pairs, "LIMIT") {
        scan.limit = Some(u64::try_from(args::int(v, "LIMIT")?).unwrap_or(0));
    }
    if let Some(v) = args::get(pairs, "REVERSED") {
        scan.reversed = args::boolean(v, "REVERSED")?;
    }
    if let Some(v) = args::get(pairs, "RAW") {
        scan.raw = args::boolean(v, "RAW")?;
    }
    if let Some(v) = args::get(pairs, "VERSIONS") {
        scan.max_versions = read::versions(v)?;
    }
    for key in ["COLUMNS", "COLUMN"] {
        if let Some(v) = args::get(pairs, key) {
            if scan.raw {
                return Err(CmdError::new("Cannot specify COLUMNS with RAW"));
            }
            read::add_columns(&mut scan.columns, render, v)?;
        }
    }
    if let Some(v) = args::get(pairs, "FILTER") {
        scan.filter = Some(read::filter(v)?);
    }
    if let Some(v) = args::get(pairs, "TIMESTAMP") {
        scan.time_range = read::timestamp(v)?;
    }
    if let Some(v) = args::get(pairs, "TIMERANGE") {
        scan.time_range = read::time_range(v)?;
    }
    let positive = |key: &str| -> Result<Option<u32>, CmdError> {
        match args::get(pairs, key) {
            None => Ok(None),
            Some(v) => Ok(Some(u32::try_from(args::int(v, key)?).unwrap_or(0).max(1))),
        }
    };
    scan.caching = positive("CACHE")?;
    scan.batch = positive("BATCH")?;
    if let Some(v) = args::get(pairs, "MAX_RESULT_SIZE") {
        scan.max_result_size_bytes = u64::try_from(args::int(v, "MAX_RESULT_SIZE")?).ok();
    }
    if let Some(v) = args::get(pairs, "CACHE_BLOCKS") {
        scan.cache_blocks = args::boolean(v, "CACHE_BLOCKS")?;
    }
    Ok(scan)
}

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 2)?;
    let table = ctx.table(&args::table_name(&a[0])?)?;
    let empty = Vec::new();
    let pairs = match a.get(1) {
        None => &empty[..],
        Some(v) => args::hash(v).ok_or_else(|| CmdError::new("Args should be a Hash"))?,
    };
    let mut render = read::Render::new(ctx);
    let scan = scan_from(pairs, &mut render)?;
    render.options(pairs)?;
    let console = ctx.console();
    let scanner = table.scan(&scan)?;
    ctx.emit(&console.header("ROW", "COLUMN+CELL"))?;
    let mut rows = 0u64;
    for result in scanner {
        ctx.check_interrupt(|| format!("{rows} row(s)"))?;
        let result = result?;
        rows += 1;
        ctx.emit(&read::scan_rows(console, &result.cells, &render))?;
    }
    Ok(Outcome::new().rows(rows))
}
