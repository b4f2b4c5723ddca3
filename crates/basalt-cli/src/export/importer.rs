//! `basalt import TABLE URL`: an export's parts written back into a table, each verified
//! first (its own checksum and the manifest's); a part that fails is named, and nothing of
//! it is written.

use super::exporter::MANIFEST;
use super::format::read_part;
use super::manifest::{Manifest, PartEntry};
use super::rows::{self, Opened, RowWriter};
use super::target::Target;
use super::{fail, ImportArgs};
use crate::CliError;

/// Runs the import and prints its summary; fails naming every part it refused.
pub fn run(args: &ImportArgs) -> Result<(), CliError> {
    crate::standalone::init_logging(&args.source.log, None)?;
    let name = rows::table_name(&args.table)?;
    let target = Target::open(&args.url, args.store_endpoint.as_deref(), false)?;
    let here = target.url().to_owned();
    let text = target.get(MANIFEST)?.ok_or_else(|| {
        fail(format!(
            "{here} has no {MANIFEST}: not an export, or one that did not finish (re-run the export)"
        ))
    })?;
    let manifest = Manifest::decode(&String::from_utf8_lossy(&text))
        .map_err(|e| fail(format!("{here}/{MANIFEST}: {e}")))?;
    let opened = Opened::open(&args.source)?;
    let result = import(&opened, &name, &manifest, &target, args);
    let closed = opened.close();
    let summary = result?;
    closed?;
    println!("{summary}");
    Ok(())
}

/// The part's cells, or why it is refused.
fn verified(target: &Target, entry: &PartEntry) -> Result<Vec<basalt_types::Cell>, String> {
    let bytes = target
        .get(&entry.name)
        .map_err(|e| e.to_string())?
        .ok_or("missing")?;
    let part = read_part(&bytes)?;
    if part.crc != entry.crc {
        return Err(format!(
            "checksum {:08x} differs from the manifest's {:08x}",
            part.crc, entry.crc
        ));
    }
    if part.cells.len() as u64 != entry.cells {
        return Err(format!(
            "{} cells where the manifest lists {}",
            part.cells.len(),
            entry.cells
        ));
    }
    Ok(part.cells)
}

fn import(
    opened: &Opened,
    name: &basalt_types::TableName,
    manifest: &Manifest,
    target: &Target,
    args: &ImportArgs,
) -> Result<String, CliError> {
    let conn = opened.conn.as_ref();
    let exists = conn
        .admin()
        .table_exists(name)
        .map_err(|e| fail(format!("table {name}: {e}")))?;
    if !exists && !args.create {
        return Err(fail(format!(
            "table {name} does not exist (--create makes it from the export's descriptor)"
        )));
    }
    if rows::ensure_table(conn, name, &manifest.descriptor, &manifest.splits)? {
        eprintln!(
            "import {name}: created with {} regions from the export's descriptor",
            manifest.splits.len() + 1
        );
    }
    let mut writer = RowWriter::new(rows::open_table(conn, name)?, args.batch);
    let mut refused = Vec::new();
    for entry in &manifest.parts {
        match verified(target, entry) {
            Ok(cells) => {
                writer.add(&cells)?;
                writer.flush()?;
                eprintln!(
                    "import {name}: {} written ({} cells); {} cells so far",
                    entry.name, entry.cells, writer.cells
                );
            }
            Err(why) => {
                tracing::error!(part = %entry.name, %why, "part refused");
                eprintln!("import {name}: {} refused: {why}", entry.name);
                refused.push(format!("{}: {why}", entry.name));
            }
        }
    }
    if !refused.is_empty() {
        return Err(fail(format!(
            "{} of {} parts refused, nothing written from them ({}); {} cells of the other parts written into {name}",
            refused.len(),
            manifest.parts.len(),
            refused.join("; "),
            writer.cells
        )));
    }
    Ok(format!(
        "imported {} cells ({} rows) from {} parts of {} into {name}",
        writer.cells,
        writer.rows,
        manifest.parts.len(),
        target.url()
    ))
}
