//! `describe_namespace 'ns'`
//!
//! Prints `DESCRIPTION`, `{NAME => 'ns', KEY => 'value'}`, `1 row(s)` (and 2.x's
//! `Quota is disabled`).

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::{Outcome, Style};
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "describe_namespace",
    group: Group::Namespace,
    help: HELP,
    run,
};

const HELP: &str = "Describe the named namespace. For example:
  hbase> describe_namespace 'ns1'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 1)?;
    let name = args::text(&a[0], "namespace")?;
    let ns = ctx.admin().describe_namespace(&name)?;
    let mut text = format!("{{NAME => '{}'", ns.name);
    for (k, v) in &ns.properties {
        text.push_str(&format!(", {k} => '{v}'"));
    }
    text.push('}');
    let mut out = Outcome::new().line("DESCRIPTION").line(text).rows(1);
    if ctx.style == Style::Hbase2 {
        out.after_rows.push("Quota is disabled".to_string());
    }
    Ok(out)
}
