//! `count 't' [, {INTERVAL => 1000, CACHE => 10, FILTER => "..."}]` (or `count 't', 1000`)
//!
//! Counts rows, printing `Current count: N, row: <row>` every INTERVAL rows, then
//! `N row(s)` and `=> N`.

use super::read;
use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::format;
use crate::output::Outcome;
use crate::parse::Value;
use basalt_types::{FilterSpec, Scan};

pub static COMMAND: Command = Command {
    name: "count",
    group: Group::Dml,
    help: HELP,
    run,
};

const HELP: &str = "Count the number of rows in a table.  Return value is the number of rows.
This operation may take a LONG time (Run '$HADOOP_HOME/bin/hadoop jar
hbase.jar rowcount' to run a counting mapreduce job). Current count is shown
every 1000 rows by default. Count interval may be optionally specified. Scan
caching is enabled on count scans by default. Default cache size is 10 rows.
Examples:

  hbase> count 'ns1:t1'
  hbase> count 't1'
  hbase> count 't1', INTERVAL => 100000
  hbase> count 't1', CACHE => 1000
  hbase> count 't1', INTERVAL => 10, CACHE => 1000
  hbase> count 't1', FILTER => \"
    (QualifierFilter (>=, 'binary:xyz')) AND (TimestampsFilter ( 123, 456))\"
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 2)?;
    let table = ctx.table(&args::table_name(&a[0])?)?;
    let mut interval = 1000u64;
    let mut scan = Scan::new().filter(FilterSpec::FirstKeyOnly);
    scan.caching = Some(10);
    match a.get(1) {
        None => {}
        Some(v) => match args::hash(v) {
            None => interval = u64::try_from(args::int(v, "INTERVAL")?).unwrap_or(1).max(1),
            Some(pairs) => {
                if let Some(v) = args::get(pairs, "INTERVAL") {
                    interval = u64::try_from(args::int(v, "INTERVAL")?).unwrap_or(1).max(1);
                }
                if let Some(v) = args::get(pairs, "CACHE") {
                    scan.caching = u32::try_from(args::int(v, "CACHE")?).ok();
                }
                if let Some(v) = args::get(pairs, "FILTER") {
                    // As HBase: the user's filter, then first-key-only on what it keeps.
                    scan.filter = Some(FilterSpec::List {
                        must_pass_all: true,
                        filters: vec![read::filter(v)?, FilterSpec::FirstKeyOnly],
                    });
                }
            }
        },
    }
    let out = Outcome::new();
    let mut rows = 0u64;
    for result in table.scan(&scan)? {
        ctx.check_interrupt(|| format!("counting {rows} row(s)"))?;
        let result = result?;
        rows += 1;
        if rows.is_multiple_of(interval) {
            let row = result.row().map(format::bin).unwrap_or_default();
            ctx.emit(&[format!("Current count: {rows}, row: {row}")])?;
        }
    }
    Ok(out.rows(rows).value(Value::Int(rows as i64)))
}
