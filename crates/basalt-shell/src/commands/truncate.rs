//! `truncate 't'`
//!
//! Disables the table and empties it (regions are not kept):
//!
//! ```text
//! Truncating 't' table (it may take a while):
//! Disabling table...
//! Truncating table...
//! ```

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "truncate",
    group: Group::Ddl,
    help: HELP,
    run,
};

const HELP: &str = "  Disables, drops and recreates the specified table.
";

/// Disable (when enabled) and truncate, printing HBase's progress lines.
pub fn truncate(ctx: &mut Ctx, a: &[Value], preserve_splits: bool) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 1)?;
    let name = args::table_name(&a[0])?;
    ctx.require_table(&name)?;
    let admin = ctx.admin();
    let mut lines = vec![format!("Truncating '{name}' table (it may take a while):")];
    if admin.is_table_enabled(&name)? {
        lines.push("Disabling table...".to_string());
        admin
            .disable_table(&name)
            .map_err(|e| CmdError::from(e).after(lines.clone()))?;
    }
    lines.push("Truncating table...".to_string());
    admin
        .truncate_table(&name, preserve_splits)
        .map_err(|e| CmdError::from(e).after(lines.clone()))?;
    let mut out = Outcome::new();
    out.lines = lines;
    Ok(out)
}

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    truncate(ctx, a, false)
}
