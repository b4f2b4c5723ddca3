//! `basalt copytable SOURCE`: the cells a filter takes, written to another table of this
//! cluster (`--new-name`) or of another one (`--peer`), created from the source's
//! descriptor and split points when missing.

use super::rows::{self, Opened, RowWriter};
use super::{fail, CopyTableArgs};
use crate::CliError;
use std::time::Instant;

/// Runs the copy and prints its summary.
pub fn run(args: &CopyTableArgs) -> Result<(), CliError> {
    crate::standalone::init_logging(&args.source.log, None)?;
    let source_name = rows::table_name(&args.table)?;
    let dest_name = rows::table_name(args.new_name.as_deref().unwrap_or(&args.table))?;
    if args.peer.is_none() && dest_name == source_name {
        return Err(fail(
            "copytable: the destination is the source (give --new-name or --peer)",
        ));
    }
    let job = rows::job_of(&source_name, &args.filter)?;
    let source = Opened::open(&args.source)?;
    let peer = match &args.peer {
        Some(address) => Some(Opened::remote(address)?),
        None => None,
    };
    let result = copy(
        &source,
        peer.as_ref().unwrap_or(&source),
        &source_name,
        &dest_name,
        &job,
        args,
    );
    let closed = source.close();
    let summary = result?;
    closed?;
    println!("{summary}");
    Ok(())
}

fn copy(
    source: &Opened,
    dest: &Opened,
    source_name: &basalt_types::TableName,
    dest_name: &basalt_types::TableName,
    job: &super::manifest::Job,
    args: &CopyTableArgs,
) -> Result<String, CliError> {
    let from = rows::open_table(source.conn.as_ref(), source_name)?;
    let descriptor = source
        .conn
        .admin()
        .describe_table(source_name)
        .map_err(|e| fail(format!("table {source_name}: {e}")))?;
    let splits = rows::split_points(source.conn.as_ref(), source_name)?;
    if rows::ensure_table(dest.conn.as_ref(), dest_name, &descriptor, &splits)? {
        eprintln!(
            "copytable: created {dest_name} with {} regions from {source_name}'s descriptor",
            splits.len() + 1
        );
    }
    let mut writer = RowWriter::new(rows::open_table(dest.conn.as_ref(), dest_name)?, args.batch);
    let started = Instant::now();
    let scanner = from
        .scan(&rows::scan_of(job, None))
        .map_err(|e| fail(format!("scanning {source_name}: {e}")))?;
    let mut reported = 0u64;
    for row in scanner {
        let row = row.map_err(|e| fail(format!("scanning {source_name}: {e}")))?;
        writer.add(&row.cells)?;
        if writer.rows >= reported + 10_000 {
            reported = writer.rows;
            eprintln!(
                "copytable: {} rows, {} cells copied",
                writer.rows, writer.cells
            );
        }
    }
    writer.flush()?;
    Ok(format!(
        "copied {} rows ({} cells) from {source_name} to {dest_name}{} in {:.1}s",
        writer.rows,
        writer.cells,
        args.peer
            .as_deref()
            .map(|p| format!(" on {p}"))
            .unwrap_or_default(),
        started.elapsed().as_secs_f64()
    ))
}
