//! `list ['regex']`
//!
//! Prints `TABLE`, one table per line, `N row(s)`, and `=> ["t1", "t2"]`. The regex must
//! match the whole name (`'ns:.*'` lists a namespace).

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "list",
    group: Group::Ddl,
    help: HELP,
    run,
};

const HELP: &str = "List all user tables in hbase. Optional regular expression parameter could
be used to filter the output. Examples:

  hbase> list
  hbase> list 'abc.*'
  hbase> list 'ns:abc.*'
  hbase> list 'ns:.*'
";

/// Table names matching `pattern` (all when `None`), as `list` prints them.
pub fn names(ctx: &Ctx, pattern: Option<&str>) -> Result<Vec<String>, CmdError> {
    Ok(ctx
        .admin()
        .list_tables(pattern)?
        .iter()
        .map(|t| t.to_string())
        .collect())
}

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 0, 1)?;
    let pattern = a.first().map(|v| args::text(v, "regex")).transpose()?;
    let names = names(ctx, pattern.as_deref())?;
    let mut out = Outcome::new().line("TABLE");
    out.lines.extend(names.iter().cloned());
    let value = Value::Array(
        names
            .iter()
            .map(|n| Value::Str(n.clone().into_bytes()))
            .collect(),
    );
    Ok(out.rows(names.len() as u64).value(value))
}
