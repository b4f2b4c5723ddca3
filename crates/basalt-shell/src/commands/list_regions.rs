//! `list_regions 't' [, 'server prefix' | {SERVER_NAME => 'prefix'} [, ['START_KEY', ...]]]`
//!
//! One line per region, in HBase 2's right-aligned `|`-separated table:
//! `SERVER_NAME | REGION_NAME | START_KEY | END_KEY | SIZE | REQ | LOCALITY |`,
//! then ` N rows`. SIZE is in MB (store files and memstore), REQ is reads + writes.
//! A third argument names the columns to print, in its order (case-insensitive, as HBase's
//! `list_regions.rb`); a second keeps only regions whose server name starts with the prefix.
//! When a region failed to open and no columns are named, a STATE column (`OPEN` /
//! `FAILED_OPEN`) is added; each failed region's cause follows the table.

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
The command displays server name, region name, start key, end key, size of the region in MB, number of requests
and the locality. The information can be projected out via an array as third parameter.

  hbase> list_regions 'table_name'
  hbase> list_regions 'table_name', 'server_name'
  hbase> list_regions 'table_name', {SERVER_NAME => 'server_name'}
  hbase> list_regions 'table_name', {}, ['SERVER_NAME', 'START_KEY']
";

/// Every column, in HBase's order.
const COLUMNS: [&str; 7] = [
    "SERVER_NAME",
    "REGION_NAME",
    "START_KEY",
    "END_KEY",
    "SIZE",
    "REQ",
    "LOCALITY",
];

/// The columns asked for (all when `None`), by index into [`COLUMNS`]; a name HBase does
/// not know fails with HBase's message.
fn selected_columns(cols: Option<&Value>) -> Result<Option<Vec<usize>>, CmdError> {
    let possible = format!("Possible values are {}.", COLUMNS.join(", "));
    let items = match cols {
        None | Some(Value::Nil) => return Ok(None),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(CmdError::new(format!(
                "{} must be an array of strings. {possible}",
                other.inspect()
            )))
        }
    };
    let mut picked = Vec::with_capacity(items.len());
    for item in items {
        let name = args::text(item, "column")?;
        let index = COLUMNS
            .iter()
            .position(|c| c.eq_ignore_ascii_case(&name))
            .ok_or_else(|| CmdError::new(format!("{name} is not a valid column. {possible}")))?;
        if !picked.contains(&index) {
            picked.push(index);
        }
    }
    Ok(Some(picked))
}

/// The server-name prefix of the second argument: a string, or `{SERVER_NAME => ..}`.
fn server_prefix(options: Option<&Value>) -> Result<Option<String>, CmdError> {
    match options {
        None | Some(Value::Nil) => Ok(None),
        Some(Value::Hash(pairs)) => args::get(pairs, "SERVER_NAME")
            .map(|v| args::text(v, "SERVER_NAME"))
            .transpose(),
        Some(other) => args::text(other, "server name").map(Some),
    }
}

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 3)?;
    let name = args::table_name(&a[0])?;
    ctx.require_table(&name)?;
    let prefix = server_prefix(a.get(1))?;
    let picked = selected_columns(a.get(2))?;
    let regions: Vec<_> = ctx
        .admin()
        .list_regions(&name)?
        .into_iter()
        .filter(|r| {
            prefix
                .as_ref()
                .is_none_or(|p| r.server.starts_with(p.as_str()))
        })
        .collect();
    let any_failed = regions.iter().any(|r| r.state == RegionState::FailedOpen);
    let show_state = any_failed && picked.is_none();
    let picked = picked.unwrap_or_else(|| (0..COLUMNS.len()).collect());
    let mut header: Vec<&str> = picked.iter().map(|&i| COLUMNS[i]).collect();
    if show_state {
        header.push("STATE");
    }
    let rows: Vec<Vec<String>> = regions
        .iter()
        .map(|r| {
            let mb = (r.store_file_bytes + r.memstore_bytes) / (1024 * 1024);
            let all = [
                r.server.clone(),
                r.region_name.clone(),
                format::bin(&r.start_key),
                format::bin(&r.end_key),
                mb.to_string(),
                (r.read_requests + r.write_requests).to_string(),
                "1.0".to_string(),
            ];
            let mut row: Vec<String> = picked.iter().map(|&i| all[i].clone()).collect();
            if show_state {
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
