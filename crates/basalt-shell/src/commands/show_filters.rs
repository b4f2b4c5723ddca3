//! `show_filters`
//!
//! Prints the filter-language filters, one per line.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "show_filters",
    group: Group::Ddl,
    help: HELP,
    run,
};

const HELP: &str = "Show all the filters in hbase. Example:
  hbase> show_filters

  ColumnPrefixFilter
  TimestampsFilter
  PageFilter
  .....
  KeyOnlyFilter
";

/// HBase's `ParseFilter` registry.
const FILTERS: [&str; 19] = [
    "DependentColumnFilter",
    "KeyOnlyFilter",
    "ColumnCountGetFilter",
    "SingleColumnValueFilter",
    "PrefixFilter",
    "SingleColumnValueExcludeFilter",
    "FirstKeyOnlyFilter",
    "ColumnRangeFilter",
    "ColumnValueFilter",
    "TimestampsFilter",
    "FamilyFilter",
    "QualifierFilter",
    "ColumnPrefixFilter",
    "RowFilter",
    "MultipleColumnPrefixFilter",
    "InclusiveStopFilter",
    "PageFilter",
    "ValueFilter",
    "ColumnPaginationFilter",
];

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 0, 0)?;
    let mut out = Outcome::new();
    out.lines = FILTERS.iter().map(|f| f.to_string()).collect();
    Ok(out)
}
