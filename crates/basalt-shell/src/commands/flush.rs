//! `flush 't'` · `flush 'REGIONNAME'` · `flush 'ENCODED_REGIONNAME'` · `flush 't', 'f'`
//!
//! Flushes the memstores of the table's regions, or of one region, to files (a family
//! argument flushes the region's every family, which is harmless). Prints nothing.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;
use basalt_types::TableName;

pub static COMMAND: Command = Command {
    name: "flush",
    group: Group::Tools,
    help: HELP,
    run,
};

const HELP: &str = "Flush all regions in passed table or pass a region row to
flush an individual region or a column family.
For example:

  hbase> flush 'TABLENAME'
  hbase> flush 'TABLENAME','FAMILYNAME'
  hbase> flush 'REGIONNAME'
  hbase> flush 'REGIONNAME','FAMILYNAME'
  hbase> flush 'ENCODED_REGIONNAME'
  hbase> flush 'ENCODED_REGIONNAME','FAMILYNAME'
";

/// What a tool command acts on: a whole table, or one region by its name.
pub enum Target {
    Table(TableName),
    Region(String),
}

/// A table name, or a region's full or encoded name.
pub fn target_of(ctx: &Ctx, v: &Value) -> Result<Target, CmdError> {
    let text = args::text(v, "table or region name")?;
    let admin = ctx.admin();
    if let Ok(name) = TableName::parse(&text) {
        if admin.table_exists(&name)? {
            return Ok(Target::Table(name));
        }
    }
    table_of(ctx, v)?;
    Ok(Target::Region(text))
}

/// The table named by a table name, a region name or an encoded region name.
pub fn table_of(ctx: &Ctx, v: &Value) -> Result<TableName, CmdError> {
    let text = args::text(v, "table or region name")?;
    let admin = ctx.admin();
    if let Ok(name) = TableName::parse(&text) {
        if admin.table_exists(&name)? {
            return Ok(name);
        }
    }
    for table in admin.list_tables(None)? {
        let regions = admin.list_regions(&table)?;
        if regions
            .iter()
            .any(|r| r.region_name == text || r.encoded_name == text)
        {
            return Ok(table);
        }
    }
    Err(CmdError::new(format!("Table {text} does not exist.")))
}

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 2)?;
    match target_of(ctx, &a[0])? {
        Target::Table(table) => ctx.admin().flush(&table)?,
        Target::Region(region) => ctx.admin().flush_region(&region)?,
    }
    Ok(Outcome::new())
}
