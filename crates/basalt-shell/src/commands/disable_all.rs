//! `disable_all 'regex'`
//!
//! Lists the matching tables, asks `Disable the above N tables (y/n)?`, reads the answer
//! (the next script line, or the terminal) and prints `N tables successfully disabled`.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;
use basalt_types::TableName;

pub static COMMAND: Command = Command {
    name: "disable_all",
    group: Group::Ddl,
    help: HELP,
    run,
};

const HELP: &str = "Disable all of tables matching the given regex:

hbase> disable_all 't.*'
hbase> disable_all 'ns:t.*'
hbase> disable_all 'ns:.*'
";

/// The shared flow of `disable_all`, `enable_all` and `drop_all`: list, confirm, apply.
pub fn for_all(
    ctx: &mut Ctx,
    a: &[Value],
    verb: &str,
    past: &str,
    apply: fn(&Ctx, &TableName) -> Result<(), CmdError>,
) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 1)?;
    let regex = args::text(&a[0], "regex")?;
    let tables = ctx.admin().list_tables(Some(&regex))?;
    let mut out = Outcome::new();
    if tables.is_empty() {
        out.lines
            .push(format!("No tables matched the regex {regex}"));
        return Ok(out);
    }
    out.lines.extend(tables.iter().map(|t| t.to_string()));
    let question = format!("\n{verb} the above {} tables (y/n)?", tables.len());
    out.lines.push(question.clone());
    let answer = (ctx.confirm)(&question);
    out.lines.extend(answer.echo);
    if !answer.yes {
        return Ok(out);
    }
    let mut failed = Vec::new();
    for table in &tables {
        if apply(ctx, table).is_err() {
            failed.push(table.to_string());
        }
    }
    out.lines.push(format!(
        "{} tables successfully {past}",
        tables.len() - failed.len()
    ));
    if !failed.is_empty() {
        out.lines.push(format!(
            "{} tables not {past} due to an exception: {}",
            failed.len(),
            failed.join(",")
        ));
    }
    Ok(out)
}

fn disable(ctx: &Ctx, t: &TableName) -> Result<(), CmdError> {
    let admin = ctx.admin();
    if admin.is_table_enabled(t)? {
        admin.disable_table(t)?;
    }
    Ok(())
}

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    for_all(ctx, a, "Disable", "disabled", disable)
}
