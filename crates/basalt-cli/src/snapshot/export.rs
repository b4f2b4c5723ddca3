//! `basalt snapshot export`: every file of the snapshot to `URL/<S>/`, each read back and
//! checked, then `SNAPSHOT`, then `CHECKSUMS`.

use super::checksums::{Checksums, FileSum, CHECKSUMS};
use super::{copy, mb, open_home, progress, ExportSnapshotArgs};
use crate::export::fail;
use crate::export::target::Target;
use crate::CliError;
use basalt_db::snapshot::manifest::SnapshotManifest;
use basalt_db::snapshot::{snapshot_dir, MANIFEST};
use basalt_storage::fs::FileSystem;
use basalt_storage::store::family_dir_name;
use basalt_storage::store::file::file_name;
use std::path::Path;
use std::time::Instant;

/// The store files of `manifest`, as paths under its snapshot folder (`/`-separated).
pub fn files_of(manifest: &SnapshotManifest) -> Vec<String> {
    let mut out = Vec::new();
    for region in &manifest.regions {
        for family in &region.families {
            for (id, _) in &family.files {
                out.push(format!(
                    "{}/{}/{}",
                    region.folder,
                    family_dir_name(&family.name),
                    file_name(*id)
                ));
            }
        }
    }
    out
}

fn local(dir: &Path, rel: &str) -> std::path::PathBuf {
    rel.split('/').fold(dir.to_path_buf(), |p, s| p.join(s))
}

pub fn run(args: &ExportSnapshotArgs) -> Result<(), CliError> {
    crate::standalone::init_logging(&args.home.log, None)?;
    export(args)
}

/// The export itself (logging already set up); prints its summary.
pub fn export(args: &ExportSnapshotArgs) -> Result<(), CliError> {
    let (fs, root) = open_home(&args.home)?;
    let name = &args.snapshot;
    let manifest = basalt_db::snapshot::read_on(fs.as_ref(), &root, name)
        .map_err(|e| fail(format!("snapshot {name}: {e}")))?;
    let dir = snapshot_dir(&root, name);
    let manifest_bytes = basalt_storage::fs::read_all(fs.as_ref(), &dir.join(MANIFEST))
        .map_err(|e| fail(format!("cannot read {}: {e}", dir.join(MANIFEST).display())))?;
    let endpoint = args
        .to_endpoint
        .as_ref()
        .or(args.home.store_endpoint.as_ref());
    let target = Target::open(&args.to, endpoint.map(String::as_str), true)?;
    let manifest_sum = FileSum {
        path: MANIFEST.to_owned(),
        size: manifest_bytes.len() as u64,
        crc: crc32c::crc32c(&manifest_bytes),
    };
    let key = |rel: &str| format!("{name}/{rel}");
    if let Some(text) = target.get(&key(CHECKSUMS))? {
        let done = Checksums::decode(&String::from_utf8_lossy(&text))
            .map_err(|e| target.err(&key(CHECKSUMS), e))?;
        if done.get(MANIFEST) != Some(&manifest_sum) {
            return Err(fail(format!(
                "{}/{name} holds a finished export of another snapshot named {name}; \
                 use another location",
                target.url()
            )));
        }
        println!(
            "{}/{name} already holds this snapshot ({} files, {} bytes): nothing to do",
            target.url(),
            done.files.len(),
            done.bytes()
        );
        return Ok(());
    }
    let started = Instant::now();
    let files = files_of(&manifest);
    let (mut copied, mut kept, mut bytes) = (0, 0, 0u64);
    let mut sums = vec![manifest_sum];
    for (i, rel) in files.iter().enumerate() {
        let source = local(&dir, rel);
        let (sum, was_there) = one_file(fs.as_ref(), &source, &target, &key(rel))?;
        let how = if was_there {
            kept += 1;
            "already there, verified"
        } else {
            copied += 1;
            bytes += sum.0;
            "copied, verified"
        };
        progress(&format!(
            "[{}/{}] {name}/{rel}: {} bytes {how}",
            i + 1,
            files.len(),
            sum.0
        ));
        sums.push(FileSum {
            path: rel.clone(),
            size: sum.0,
            crc: sum.1,
        });
    }
    target.put(&key(MANIFEST), manifest_bytes.to_vec())?;
    let checksums = Checksums {
        snapshot: name.clone(),
        files: sums,
    };
    target.put(&key(CHECKSUMS), checksums.encode().into_bytes())?;
    let secs = started.elapsed().as_secs_f64();
    println!(
        "exported snapshot {name} of table {} to {}/{name}: {} files, {} bytes ({} copied, \
         {} already there) in {secs:.2} s ({:.1} MB/s)",
        manifest.table,
        target.url(),
        files.len(),
        checksums.bytes(),
        copied,
        kept,
        mb(bytes) / secs.max(1e-9)
    );
    Ok(())
}

/// One file: skipped when the target holds it whole (size and CRC as the source's),
/// copied and read back otherwise. Its (size, CRC) and whether it was there.
fn one_file(
    fs: &dyn FileSystem,
    source: &Path,
    target: &Target,
    key: &str,
) -> Result<((u64, u32), bool), CliError> {
    let store = target.store().clone();
    let k = key.to_owned();
    let there = basalt_store::blocking(async move { store.head(&k).await })
        .map_err(|e| target.err(key, e))?;
    if let Some(info) = there {
        let want = copy::crc_of_file(fs, source)?;
        if info.size == want.0 && copy::crc_of_object(target, key)? == Some(want) {
            return Ok((want, true));
        }
        tracing::info!(
            file = key,
            "a copy from an earlier run does not verify: copied again"
        );
    }
    Ok((copy::upload(fs, source, target, key)?, false))
}
