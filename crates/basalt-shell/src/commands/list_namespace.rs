//! `list_namespace ['regex']`
//!
//! Prints `NAMESPACE`, one namespace per line and `N row(s)`.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "list_namespace",
    group: Group::Namespace,
    help: HELP,
    run,
};

const HELP: &str = "List all namespaces in hbase. Optional regular expression parameter could
be used to filter the output. Examples:

  hbase> list_namespace
  hbase> list_namespace 'abc.*'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 0, 1)?;
    let matcher = match a.first() {
        None => None,
        Some(v) => {
            let p = args::text(v, "regex")?;
            Some(
                regex::Regex::new(&format!("^(?:{p})$"))
                    .map_err(|e| CmdError::new(format!("bad regex '{p}': {e}")))?,
            )
        }
    };
    let mut names: Vec<String> = ctx
        .admin()
        .list_namespaces()?
        .into_iter()
        .map(|ns| ns.name)
        .filter(|n| matcher.as_ref().is_none_or(|m| m.is_match(n)))
        .collect();
    names.sort();
    let mut out = Outcome::new().line("NAMESPACE");
    out.lines.extend(names.iter().cloned());
    Ok(out.rows(names.len() as u64))
}
