//! `create_namespace 'ns' [, {'PROPERTY_NAME' => 'PROPERTY_VALUE'}]`
//!
//! Prints nothing.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;
use basalt_types::NamespaceDescriptor;

pub static COMMAND: Command = Command {
    name: "create_namespace",
    group: Group::Namespace,
    help: HELP,
    run,
};

const HELP: &str = "Create namespace; pass namespace name,
and optionally a dictionary of namespace configuration.
Examples:

  hbase> create_namespace 'ns1'
  hbase> create_namespace 'ns1', {'PROPERTY_NAME'=>'PROPERTY_VALUE'}
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 2)?;
    let name = args::text(&a[0], "namespace")?;
    let mut ns = NamespaceDescriptor::new(&name).map_err(|e| CmdError::new(e.to_string()))?;
    if let Some(pairs) = a.get(1).and_then(args::hash) {
        for (k, v) in pairs {
            ns.properties
                .insert(args::text(k, "property")?, args::text(v, "value")?);
        }
    }
    ctx.admin().create_namespace(&ns)?;
    Ok(Outcome::new())
}
