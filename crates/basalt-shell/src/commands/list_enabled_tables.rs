//! `list_enabled_tables ['regex']`
//!
//! As `list`, only enabled tables: `TABLE`, names, `N row(s)`, `=> [...]`.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "list_enabled_tables",
    group: Group::Ddl,
    help: HELP,
    run,
};

const HELP: &str = "List all enabled tables in hbase. Optional regular expression parameter could
be used to filter the output. Examples:

  hbase> list_enabled_tables
  hbase> list_enabled_tables 'abc.*'
";

/// `list` restricted to tables whose enabled state is `enabled`.
pub fn list_by_state(ctx: &mut Ctx, a: &[Value], enabled: bool) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 0, 1)?;
    let pattern = a.first().map(|v| args::text(v, "regex")).transpose()?;
    let admin = ctx.admin();
    let mut names = Vec::new();
    for table in admin.list_tables(pattern.as_deref())? {
        if admin.is_table_enabled(&table)? == enabled {
            names.push(table.to_string());
        }
    }
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

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    list_by_state(ctx, a, true)
}
