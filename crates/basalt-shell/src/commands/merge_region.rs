//! `merge_region 'ENCODED_REGIONNAME', 'ENCODED_REGIONNAME' [, true]`
//!
//! Merges two adjacent regions (full region names are accepted too; `true`, HBase's
//! "force" for non-adjacent regions, is accepted and ignored). Prints nothing.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;
use basalt_types::name::encoded_region_name;

pub static COMMAND: Command = Command {
    name: "merge_region",
    group: Group::Tools,
    help: HELP,
    run,
};

const HELP: &str = "Merge two regions. Passing 'true' as the optional third parameter will force
a merge ('force' merges regardless else merge will fail unless passed
adjacent regions. 'force' is for expert use only).

You can pass the encoded region name or the full region name.  The encoded
region name is the hash suffix on region names: e.g. if the region name were
TestTable,0094429456,1289497600452.527db22f95c8a9e0116f0cc13c680396. then
the encoded region name portion is 527db22f95c8a9e0116f0cc13c680396

Examples:

  hbase> merge_region 'ENCODED_REGIONNAME', 'ENCODED_REGIONNAME'
  hbase> merge_region 'FULL_REGIONNAME', 'FULL_REGIONNAME', true
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 2, 3)?;
    let first = args::text(&a[0], "region name")?;
    let second = args::text(&a[1], "region name")?;
    ctx.admin()
        .merge_regions(encoded_region_name(&first), encoded_region_name(&second))?;
    Ok(Outcome::new())
}
