//! `list_namespace_tables 'ns'`
//!
//! Prints `TABLE`, the namespace's tables (without the namespace), `N row(s)` and
//! `=> ["t1"]`.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "list_namespace_tables",
    group: Group::Namespace,
    help: HELP,
    run,
};

const HELP: &str = "List all tables that are members of the namespace.
Examples:

  hbase> list_namespace_tables 'ns1'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 1)?;
    let ns = args::text(&a[0], "namespace")?;
    let admin = ctx.admin();
    admin.describe_namespace(&ns)?;
    let names: Vec<String> = admin
        .list_tables(None)?
        .into_iter()
        .filter(|t| t.namespace() == ns)
        .map(|t| t.qualifier().to_string())
        .collect();
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
