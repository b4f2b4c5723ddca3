//! `snapshot 't', 's'` · `snapshot 't', 's', {SKIP_FLUSH => true}` ·
//! `snapshot 't', 's', {TTL => 86400}`
//!
//! Takes a snapshot of the table: its regions are flushed first (unless `SKIP_FLUSH`), then
//! each region's files are kept under the snapshot's name. Prints nothing.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;
use basalt_api::SnapshotOptions;

pub static COMMAND: Command = Command {
    name: "snapshot",
    group: Group::Snapshots,
    help: HELP,
    run,
};

const HELP: &str = "Take a snapshot of a table: a consistent picture of its rows that shares
the table's files (nothing is copied). The regions are flushed first unless
SKIP_FLUSH is true; TTL (seconds) lets the cleaner drop the snapshot later.
Examples:

  hbase> snapshot 'sourceTable', 'snapshotName'
  hbase> snapshot 'namespace:sourceTable', 'snapshotName', {SKIP_FLUSH => true}
  hbase> snapshot 'sourceTable', 'snapshotName', {TTL => 86400}
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 2, 3)?;
    let table = args::table_name(&a[0])?;
    let name = args::text(&a[1], "snapshot name")?;
    let mut options = SnapshotOptions::default();
    if let Some(v) = a.get(2) {
        let pairs =
            args::hash(v).ok_or_else(|| CmdError::new("Arguments should be a Hash".to_string()))?;
        for key in args::keys(pairs) {
            let value = args::get(pairs, &key).unwrap_or(&Value::Nil);
            match key.as_str() {
                "SKIP_FLUSH" => options.skip_flush = args::boolean(value, "SKIP_FLUSH")?,
                "TTL" => {
                    let ttl = args::int(value, "TTL")?;
                    options.ttl_secs = (ttl > 0).then_some(ttl as u64);
                }
                // HBase's other snapshot properties (MAX_FILESIZE, ...) change nothing here.
                _ => {}
            }
        }
    }
    ctx.admin().snapshot(&table, &name, &options)?;
    Ok(Outcome::new())
}
