//! `locate_region 't', 'row'`
//!
//! Prints `HOST  REGION`, then ` <server> {ENCODED => .., NAME => '..', STARTKEY => '..',
//! ENDKEY => '..'}` for the region holding the row, and `1 row(s)`.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::format;
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "locate_region",
    group: Group::Ddl,
    help: HELP,
    run,
};

const HELP: &str = "Locate the region given a table name and a row-key

  hbase> locate_region 'tableName', 'key0'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 2, 2)?;
    let name = args::table_name(&a[0])?;
    ctx.require_table(&name)?;
    let row = args::bytes(&a[1], "row")?;
    let regions = ctx.admin().list_regions(&name)?;
    let region = regions
        .iter()
        .find(|r| {
            r.start_key.as_ref() <= row.as_ref()
                && (r.end_key.is_empty() || row.as_ref() < r.end_key.as_ref())
        })
        .ok_or_else(|| CmdError::new(format!("No region of {name} holds that row")))?;
    let info = format!(
        "{{ENCODED => {}, NAME => '{}', STARTKEY => '{}', ENDKEY => '{}'}}",
        region.encoded_name,
        region.region_name,
        format::bin(&region.start_key),
        format::bin(&region.end_key)
    );
    let console = ctx.console();
    let mut out = Outcome::new().rows(1);
    out.lines = console.header("HOST", "REGION");
    out.lines.extend(console.row(&region.server, &info));
    Ok(out)
}
