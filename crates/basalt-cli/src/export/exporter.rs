//! `basalt export TABLE URL`: the table's cells into numbered parts, then the manifest.

use super::format::{part_name, part_number, read_part, PartWriter};
use super::manifest::{Job, Manifest, PartEntry};
use super::rows::{self, Opened};
use super::target::Target;
use super::{fail, ExportArgs};
use crate::CliError;
use bytes::Bytes;
use std::time::Instant;

pub const JOB: &str = "JOB";
pub const MANIFEST: &str = "MANIFEST";

/// Runs the export and prints its summary.
pub fn run(args: &ExportArgs) -> Result<(), CliError> {
    crate::standalone::init_logging(&args.source.log, None)?;
    let name = rows::table_name(&args.table)?;
    let job = rows::job_of(&name, &args.filter)?;
    let target = Target::open(&args.url, args.store_endpoint.as_deref(), true)?;
    if let Some(done) = already_done(&target, &job)? {
        println!("{done}");
        return Ok(());
    }
    let opened = Opened::open(&args.source)?;
    let result = export(&opened, &name, &job, &target, args.part_size.max(1));
    let closed = opened.close();
    let summary = result?;
    closed?;
    println!("{summary}");
    Ok(())
}

/// A finished export of the same job is left as it is; another job's folder is refused.
fn already_done(target: &Target, job: &Job) -> Result<Option<String>, CliError> {
    let here = target.url();
    if let Some(text) = target.get(MANIFEST)? {
        let text = String::from_utf8_lossy(&text);
        let manifest =
            Manifest::decode(&text).map_err(|e| fail(format!("{here}/{MANIFEST}: {e}")))?;
        if manifest.job != *job {
            return Err(fail(format!(
                "{here} holds a finished export of another job ({}); use an empty location",
                manifest.job.table
            )));
        }
        return Ok(Some(format!(
            "{here} already holds this export ({} cells in {} parts): nothing to do",
            manifest.cells(),
            manifest.parts.len()
        )));
    }
    if let Some(text) = target.get(JOB)? {
        let theirs = Job::decode(&String::from_utf8_lossy(&text))
            .map_err(|e| fail(format!("{here}/{JOB}: {e}")))?;
        if theirs != *job {
            return Err(fail(format!(
                "{here} holds an unfinished export with other options (table {}, see {JOB}); \
                 re-run it with the same options or use an empty location",
                theirs.table
            )));
        }
    }
    Ok(None)
}

/// The parts a previous run completed, in order from `part-00000`, and the last row they
/// hold. A part that does not verify ends the run of kept parts (it is written again).
fn completed_parts(target: &Target) -> Result<(Vec<PartEntry>, Option<Bytes>), CliError> {
    let mut numbers: Vec<u32> = target
        .list()?
        .iter()
        .filter_map(|n| part_number(n))
        .collect();
    numbers.sort_unstable();
    let mut kept = Vec::new();
    let mut last_row = None;
    for (expected, number) in numbers.into_iter().enumerate() {
        let name = part_name(number);
        if number as usize != expected {
            break;
        }
        let Some(bytes) = target.get(&name)? else {
            break;
        };
        match read_part(&bytes) {
            Ok(part) if part.number == number => {
                kept.push(PartEntry {
                    name,
                    cells: part.cells.len() as u64,
                    bytes: bytes.len() as u64,
                    crc: part.crc,
                });
                last_row = Some(part.last_row);
            }
            Ok(_) | Err(_) => {
                tracing::warn!(part = %name, "a part of the previous run does not verify: written again");
                break;
            }
        }
    }
    Ok((kept, last_row))
}

fn export(
    opened: &Opened,
    name: &basalt_types::TableName,
    job: &Job,
    target: &Target,
    part_size: usize,
) -> Result<String, CliError> {
    let conn = opened.conn.as_ref();
    let table = rows::open_table(conn, name)?;
    let descriptor = conn
        .admin()
        .describe_table(name)
        .map_err(|e| fail(format!("table {name}: {e}")))?;
    let splits = rows::split_points(conn, name)?;
    target.put(JOB, job.encode().into_bytes())?;
    let (mut parts, resume_after) = completed_parts(target)?;
    let resumed = parts.len();
    if resumed > 0 {
        eprintln!("export {name}: {resumed} parts already complete, resuming after them");
    }
    let started = Instant::now();
    let scanner = table
        .scan(&rows::scan_of(job, resume_after.as_deref()))
        .map_err(|e| fail(format!("scanning {name}: {e}")))?;
    let mut writer = PartWriter::new(parts.len() as u32);
    let (mut new_cells, mut new_bytes) = (0u64, 0u64);
    let mut finish = |writer: PartWriter, parts: &mut Vec<PartEntry>| -> Result<(), CliError> {
        let part = part_name(parts.len() as u32);
        let cells = writer.cells();
        let (bytes, crc) = writer.finish();
        let size = bytes.len() as u64;
        target.put(&part, bytes)?;
        new_cells += cells;
        new_bytes += size;
        let secs = started.elapsed().as_secs_f64().max(1e-3);
        eprintln!(
            "export {name}: {part} written ({cells} cells, {size} bytes); {new_cells} cells, \
             {:.1} MB/s so far",
            new_bytes as f64 / 1e6 / secs
        );
        parts.push(PartEntry {
            name: part,
            cells,
            bytes: size,
            crc,
        });
        Ok(())
    };
    for row in scanner {
        let row = row.map_err(|e| fail(format!("scanning {name}: {e}")))?;
        row.cells.iter().for_each(|c| writer.add(c));
        if writer.len() >= part_size {
            let full = std::mem::replace(&mut writer, PartWriter::new(parts.len() as u32 + 1));
            finish(full, &mut parts)?;
        }
    }
    if !writer.is_empty() {
        finish(writer, &mut parts)?;
    }
    let manifest = Manifest {
        job: job.clone(),
        descriptor,
        splits,
        parts,
    };
    target.put(MANIFEST, manifest.encode().into_bytes())?;
    Ok(format!(
        "exported {} cells ({} bytes) of {name} in {} parts to {} ({resumed} parts kept from an earlier run)",
        manifest.cells(),
        manifest.bytes(),
        manifest.parts.len(),
        target.url()
    ))
}
