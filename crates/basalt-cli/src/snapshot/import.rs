//! `basalt snapshot import`: an exported snapshot's files into `snapshots/.tmp/<S>/`,
//! each checked against `CHECKSUMS`, then its manifest and the rename into place.

use super::checksums::{check_path, Checksums, CHECKSUMS};
use super::{copy, mb, open_home, progress, ImportSnapshotArgs};
use crate::export::fail;
use crate::export::target::Target;
use crate::CliError;
use basalt_db::snapshot::manifest::SnapshotManifest;
use basalt_db::snapshot::{take, tmp_dir, MANIFEST};
use basalt_storage::fs::FileSystem;
use std::path::{Path, PathBuf};
use std::time::Instant;

fn local(dir: &Path, rel: &str) -> PathBuf {
    rel.split('/').fold(dir.to_path_buf(), |p, s| p.join(s))
}

/// The snapshot to import: the one asked for, or the only finished one at the location.
fn which(target: &Target, asked: Option<&String>) -> Result<String, CliError> {
    if let Some(name) = asked {
        return Ok(name.clone());
    }
    let mut found = Vec::new();
    for folder in target.folders()? {
        if target.get(&format!("{folder}/{CHECKSUMS}"))?.is_some() {
            found.push(folder);
        }
    }
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(fail(format!(
            "{}: holds no finished snapshot export",
            target.url()
        ))),
        _ => Err(fail(format!(
            "{} holds several snapshots ({}): name one with --snapshot",
            target.url(),
            found.join(", ")
        ))),
    }
}

pub fn run(args: &ImportSnapshotArgs) -> Result<(), CliError> {
    crate::standalone::init_logging(&args.home.log, None)?;
    let endpoint = args
        .from_endpoint
        .as_ref()
        .or(args.home.store_endpoint.as_ref());
    let target = Target::open(&args.from, endpoint.map(String::as_str), false)?;
    let name = which(&target, args.snapshot.as_ref())?;
    basalt_db::snapshot::check_name(&name).map_err(|e| fail(e.to_string()))?;
    let key = |rel: &str| format!("{name}/{rel}");
    let here = |rel: &str| format!("{}/{}", target.url().trim_end_matches('/'), key(rel));
    let text = target.get(&key(CHECKSUMS))?.ok_or_else(|| {
        fail(format!(
            "{}: missing: the export of {name} did not finish (re-run it)",
            here(CHECKSUMS)
        ))
    })?;
    let sums = Checksums::decode(&String::from_utf8_lossy(&text))
        .map_err(|e| fail(format!("{}: {e}", here(CHECKSUMS))))?;
    let manifest_bytes = target
        .get(&key(MANIFEST))?
        .ok_or_else(|| fail(format!("{}: missing", here(MANIFEST))))?;
    let want = sums
        .get(MANIFEST)
        .ok_or_else(|| fail(format!("{}: does not list {MANIFEST}", here(CHECKSUMS))))?;
    let got = crc32c::crc32c(&manifest_bytes);
    if (want.size, want.crc) != (manifest_bytes.len() as u64, got) {
        return Err(fail(format!(
            "{}: checksum mismatch: CHECKSUMS says {} bytes with CRC {:08x}, it has {} bytes \
             with CRC {got:08x}",
            here(MANIFEST),
            want.size,
            want.crc,
            manifest_bytes.len()
        )));
    }
    let manifest = SnapshotManifest::decode(&manifest_bytes, &here(MANIFEST))
        .map_err(|e| fail(e.to_string()))?;
    let files = super::export::files_of(&manifest);
    for rel in &files {
        check_path(rel).map_err(fail)?;
        if sums.get(rel).is_none() {
            return Err(fail(format!("{}: does not list {rel}", here(CHECKSUMS))));
        }
    }
    let (fs, root) = open_home(&args.home)?;
    match basalt_db::snapshot::read_on(fs.as_ref(), &root, &name) {
        Ok(_) => {
            return Err(fail(format!(
                "snapshot {name} already exists at {}: delete it first to import it again",
                root.display()
            )))
        }
        Err(e) if e.kind == basalt_api::ErrorKind::NotFound => {}
        Err(e) => return Err(fail(e.to_string())),
    }
    let tmp = tmp_dir(&root, &name);
    let started = Instant::now();
    let mut damaged = Vec::new();
    let mut bytes = 0;
    for (i, rel) in files.iter().enumerate() {
        let sum = sums
            .get(rel)
            .expect("checked above: CHECKSUMS lists every file");
        let path = local(&tmp, rel);
        let how = if verified(fs.as_ref(), &path, (sum.size, sum.crc)) {
            "already there, verified"
        } else {
            let got = copy::download(&target, &key(rel), fs.as_ref(), &path)?;
            bytes += got.0;
            if got != (sum.size, sum.crc) {
                damaged.push(format!(
                    "{}: checksum mismatch: CHECKSUMS says {} bytes with CRC {:08x}, it has \
                     {} bytes with CRC {:08x}",
                    here(rel),
                    sum.size,
                    sum.crc,
                    got.0,
                    got.1
                ));
                "DAMAGED"
            } else {
                "copied, verified"
            }
        };
        progress(&format!("[{}/{}] {name}/{rel}: {how}", i + 1, files.len()));
    }
    if !damaged.is_empty() {
        return Err(fail(format!(
            "snapshot {name} not imported: {} damaged file(s):\n{}",
            damaged.len(),
            damaged.join("\n")
        )));
    }
    take::commit_on(fs.as_ref(), &root, &tmp, &manifest).map_err(|e| fail(e.to_string()))?;
    let secs = started.elapsed().as_secs_f64();
    println!(
        "imported snapshot {name} of table {} into {}: {} files, {} bytes in {secs:.2} s \
         ({:.1} MB/s); clone_snapshot or restore_snapshot it there",
        manifest.table,
        root.display(),
        files.len(),
        sums.bytes() - want.size,
        mb(bytes) / secs.max(1e-9)
    );
    Ok(())
}

/// Whether `path` holds a file of this size and CRC already (an earlier run's copy).
fn verified(fs: &dyn FileSystem, path: &Path, want: (u64, u32)) -> bool {
    match fs.open(path).map(|f| f.len()) {
        Ok(len) if len == want.0 => copy::crc_of_file(fs, path).is_ok_and(|got| got == want),
        _ => false,
    }
}
