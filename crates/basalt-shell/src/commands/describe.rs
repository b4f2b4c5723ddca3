//! `describe 't'` (alias `desc 't'`)
//!
//! ```text
//! Table t is ENABLED
//! t                      (or: t, {TABLE_ATTRIBUTES => {MAX_FILESIZE => '1048576'}})
//! COLUMN FAMILIES DESCRIPTION
//! {NAME => 'f', VERSIONS => '1', ...}
//! 1 row(s)               (N = families)
//! Quota is disabled      (2.x only)
//! ```

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::format;
use crate::output::{Outcome, Style};
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "describe",
    group: Group::Ddl,
    help: HELP,
    run,
};

pub static DESC: Command = Command {
    name: "desc",
    group: Group::Ddl,
    help: HELP,
    run,
};

const HELP: &str = "Describe the named table. For example:
  hbase> describe 't1'
  hbase> describe 'ns1:t1'

Alternatively, you can use the abbreviated 'desc' for the same thing.
  hbase> desc 't1'
  hbase> desc 'ns1:t1'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 1)?;
    let name = args::table_name(&a[0])?;
    ctx.require_table(&name)?;
    let admin = ctx.admin();
    let descriptor = admin.describe_table(&name)?;
    let state = if admin.is_table_enabled(&name)? {
        "ENABLED"
    } else {
        "DISABLED"
    };
    let mut out = Outcome::new()
        .line(format!("Table {name} is {state}"))
        .line(format::table_line(&descriptor))
        .line("COLUMN FAMILIES DESCRIPTION");
    for family in &descriptor.families {
        out.lines.push(format::family(ctx.style, family));
    }
    if ctx.style == Style::Hbase2 {
        out.after_rows.push("Quota is disabled".to_string());
    }
    Ok(out.rows(descriptor.families.len() as u64))
}
