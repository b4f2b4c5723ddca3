//! `alter_namespace 'ns', {METHOD => 'set', 'PROPERTY_NAME' => 'PROPERTY_VALUE'}` ·
//! `alter_namespace 'ns', {METHOD => 'unset', NAME => 'PROPERTY_NAME'}`

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "alter_namespace",
    group: Group::Namespace,
    help: HELP,
    run,
};

const HELP: &str = "Alter namespace properties.

To add/modify a property:

  hbase> alter_namespace 'ns1', {METHOD => 'set', 'PROPERTY_NAME' => 'PROPERTY_VALUE'}

To delete a property:

  hbase> alter_namespace 'ns1', {METHOD => 'unset', NAME=>'PROPERTY_NAME'}
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 2, 2)?;
    let name = args::text(&a[0], "namespace")?;
    let pairs = args::hash(&a[1]).ok_or_else(|| CmdError::new("Args should be a Hash"))?;
    let method = args::get(pairs, "METHOD")
        .map(|m| args::text(m, "METHOD"))
        .transpose()?
        .unwrap_or_default();
    if method != "set" && method != "unset" {
        return Err(CmdError::new(
            "Unknown method. Expected METHOD => 'set' or 'unset'",
        ));
    }
    let mut ns = ctx.admin().describe_namespace(&name)?;
    if method == "set" {
        for (k, v) in pairs {
            let key = args::text(k, "property")?;
            if key != "METHOD" {
                ns.properties.insert(key, args::text(v, "value")?);
            }
        }
    } else {
        let key = args::get(pairs, "NAME")
            .ok_or_else(|| CmdError::new("NAME parameter missing for unset method"))?;
        ns.properties.remove(&args::text(key, "NAME")?);
    }
    ctx.admin().modify_namespace(&ns)?;
    Ok(Outcome::new())
}
