//! `list_regions 't'`
//!
//! One line per region, in HBase 2's right-aligned `|`-separated table:
//! `SERVER_NAME | REGION_NAME | START_KEY | END_KEY | SIZE | REQ | LOCALITY |`,
//! then ` N rows`. SIZE is in MB (store files and memstore), REQ is reads + writes.
//! When a region failed to open, a STATE column (`OPEN` / `FAILED_OPEN`) is added and each
//! failed region's cause follows the table.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::format;
use crate::output::Outcome;
use crate::parse::Value;
use basalt_api::RegionState;

pub static COMMAND: Command = Command {
    name: "list_regions",
    group: Group::Ddl,
    help: HELP,
    run,
};

const HELP: &str = "List all regions for a particular table as an array and also filter them by server name (optional) as prefix
and maximum locality (optional). By default, it will return all the regions for the table with any locality.

  hbase> list_regions 'table_name'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 3)?;
    let name = args::table_name(&a[0])?;
    ctx.require_table(&name)?;
    let regions = ctx.admin().list_regions(&name)?;
    let any_failed = regions.iter().any(|r| r.state == RegionState::FailedOpen);
    let mut header: Vec<&str> = vec![
        "SERVER_NAME",
        "REGION_NAME",
        "START_KEY",
        "END_KEY",
        "SIZE",
        "REQ",
        "LOCALITY",
    ];
    if any_failed {
        header.push("STATE");
    }
    let rows: Vec<Vec<String>> = regions
        .iter()
        .map(|r| {
            let mb = (r.store_file_bytes + r.memstore_bytes) / (1024 * 1024);
            let mut row = vec![
                r.server.clone(),
                r.region_name.clone(),
                format::bin(&r.start_key),
                format::bin(&r.end_key),
                mb.to_string(),
                (r.read_requests + r.write_requests).to_string(),
                "1.0".to_string(),
            ];
            if any_failed {
                row.push(r.state.name().to_string());
            }
            row
        })
        .collect();
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row.iter()) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| -> String {
        let parts: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:>w$}"))
            .collect();
        format!(" {} |", parts.join(" | "))
    };
    let mut out = Outcome::new();
    let header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    out.lines.push(line(&header));
    out.lines.push(line(
        &widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>(),
    ));
    for row in &rows {
        out.lines.push(line(row));
    }
    out.lines.push(format!(" {} rows", rows.len()));
    for r in &regions {
        if let Some(failure) = &r.failure {
            out.lines
                .push(format!(" {} FAILED_OPEN: {failure}", r.region_name));
        }
    }
    Ok(out)
}
