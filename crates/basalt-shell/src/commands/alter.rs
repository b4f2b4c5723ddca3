//! `alter 't', 'f'` (add a family with defaults) ·
//! `alter 't', NAME => 'f', VERSIONS => 5` (add or change a family) ·
//! `alter 't', NAME => 'f', METHOD => 'delete'` or `alter 't', 'delete' => 'f'` ·
//! `alter 't', MAX_FILESIZE => '134217728'` or `METHOD => 'table_att', ...` ·
//! `alter 't', METHOD => 'table_att_unset', NAME => 'MAX_FILESIZE'` ·
//! `alter 't', METHOD => 'table_conf_unset', NAME => 'key'` ·
//! several changes at once: `alter 't', {NAME => 'f1'}, {NAME => 'f2', METHOD => 'delete'}`.
//!
//! Prints `Updating all regions with the new schema...`, `N/N regions updated.`, `Done.`.

use super::schema;
use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;
use basalt_types::{FamilyDescriptor, TableName};

pub static COMMAND: Command = Command {
    name: "alter",
    group: Group::Ddl,
    help: HELP,
    run,
};

const HELP: &str = "Alter a table. Tables can be altered without disabling them first.
Altering enabled tables has caused problems
in the past, so use caution and test it before using in production.

You can use the alter command to add,
modify or delete column families or change table configuration options.
Column families work in a similar way as the 'create' command. The column family
specification can either be a name string, or a dictionary with the NAME attribute.
Dictionaries are described in the output of the 'help' command, with no arguments.

For example, to change or add the 'f1' column family in table 't1' from
current value to keep a maximum of 5 cell VERSIONS, do:

  hbase> alter 't1', NAME => 'f1', VERSIONS => 5

You can operate on several column families:

  hbase> alter 't1', 'f1', {NAME => 'f2', IN_MEMORY => true}, {NAME => 'f3', VERSIONS => 5}

To delete the 'f1' column family in table 'ns1:t1', use one of:

  hbase> alter 'ns1:t1', NAME => 'f1', METHOD => 'delete'
  hbase> alter 'ns1:t1', 'delete' => 'f1'

You can also change table-scope attributes like MAX_FILESIZE, READONLY,
MEMSTORE_FLUSHSIZE, DURABILITY, etc. These can be put at the end;
for example, to change the max size of a region to 128MB, do:

  hbase> alter 't1', MAX_FILESIZE => '134217728'

You can also unset table-scope attributes:

  hbase> alter 't1', METHOD => 'table_att_unset', NAME => 'MAX_FILESIZE'

  hbase> alter 't1', METHOD => 'table_conf_unset', NAME => 'hbase.hregion.majorcompaction'
";

/// One hash of changes.
fn apply_hash(
    ctx: &Ctx,
    name: &TableName,
    pairs: &[(Value, Value)],
    notices: &mut Vec<String>,
) -> Result<(), CmdError> {
    let admin = ctx.admin();
    if let Some(family) = args::get(pairs, "delete") {
        admin.delete_family(name, &args::bytes(family, "family")?)?;
        return Ok(());
    }
    let method = args::get(pairs, "METHOD")
        .map(|m| args::text(m, "METHOD"))
        .transpose()?;
    let target = args::get(pairs, "NAME");
    match (method.as_deref(), target) {
        (Some("delete"), Some(family)) => {
            for f in args::list(family) {
                admin.delete_family(name, &args::bytes(&f, "NAME")?)?;
            }
        }
        (Some("table_att_unset"), Some(keys)) | (Some("table_conf_unset"), Some(keys)) => {
            let mut table = admin.describe_table(name)?;
            for key in args::list(keys) {
                let key = args::text(&key, "NAME")?;
                let known = if method.as_deref() == Some("table_conf_unset") {
                    table.configuration.remove(&key).is_some()
                } else {
                    schema::unset_table_option(&mut table, &key)
                };
                if !known {
                    return Err(CmdError::new(format!("Could not find attribute: {key}")));
                }
            }
            admin.modify_table(&table)?;
        }
        (None, Some(_)) => {
            let family_name = args::bytes(target.unwrap_or(&Value::Nil), "NAME")?;
            let existing = admin.describe_table(name)?.family(&family_name).cloned();
            let is_new = existing.is_none();
            let (family, ignored) = schema::family_from_hash(pairs, existing)?;
            notices.extend(ignored);
            if is_new {
                admin.add_family(name, &family)?;
            } else {
                admin.modify_family(name, &family)?;
            }
        }
        (None, None) | (Some("table_att"), _) => {
            let mut table = admin.describe_table(name)?;
            for (k, v) in pairs {
                let key = args::text(k, "option")?;
                if key == "METHOD" {
                    continue;
                }
                if !schema::apply_table_option(&mut table, &key, v)? {
                    notices.push(format!(
                        "An argument ignored (unknown or overridden): {key}"
                    ));
                }
            }
            admin.modify_table(&table)?;
        }
        (Some(other), _) => {
            return Err(CmdError::new(format!("Unknown method: {other}")));
        }
    }
    Ok(())
}

/// Applies every change; returns the notices about ignored keys.
pub fn alter(ctx: &mut Ctx, a: &[Value]) -> Result<Vec<String>, CmdError> {
    args::arity(ctx, a, 2, usize::MAX)?;
    let name = args::table_name(&a[0])?;
    ctx.require_table(&name)?;
    let mut notices = Vec::new();
    for arg in &a[1..] {
        match args::hash(arg) {
            Some(pairs) => apply_hash(ctx, &name, pairs, &mut notices)?,
            None => {
                let family_name = args::bytes(arg, "column family")?;
                let admin = ctx.admin();
                if admin.describe_table(&name)?.family(&family_name).is_none() {
                    let family = FamilyDescriptor::new(family_name)
                        .map_err(|e| CmdError::new(e.to_string()))?;
                    admin.add_family(&name, &family)?;
                }
            }
        }
    }
    Ok(notices)
}

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    let notices = alter(ctx, a)?;
    let name = args::table_name(&a[0])?;
    let regions = ctx.admin().list_regions(&name)?.len();
    let mut out = Outcome::new();
    out.lines = notices;
    out.lines
        .push("Updating all regions with the new schema...".to_string());
    out.lines
        .push(format!("{regions}/{regions} regions updated."));
    out.lines.push("Done.".to_string());
    Ok(out)
}
