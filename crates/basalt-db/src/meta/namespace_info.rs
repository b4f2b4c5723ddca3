//! Namespaces described on the store: `<root>/namespaces/<name>.nsinfo`, one file per
//! namespace, so that a lost catalog can be rebuilt with its namespaces' properties
//! (`basalt hbck rebuild-meta`). A cluster's master writes one when a namespace is created
//! or changed (and, at activation, for every namespace the catalog has), and removes it
//! when the namespace is deleted (an explicit DDL step). Best effort: a failure is logged.
//!
//! ```text
//! | magic "BSNI" | version u32 = 1 | length u32 | value | crc32c u32 of all before |
//! ```
//! `value` is the namespace's properties in the catalog encoding (docs/format.md); the name
//! is the file's. Outside `data/`, so nothing that walks the table folders meets it.

use super::codec;
use super::folder_info::{ensure, frame, read, unframe, InfoError};
use basalt_storage::fs::FileSystem;
use basalt_types::NamespaceDescriptor;
use std::path::{Path, PathBuf};

pub const FOLDER: &str = "namespaces";
const SUFFIX: &str = ".nsinfo";
const MAGIC: &[u8; 4] = b"BSNI";

/// `<root>/namespaces/<name>.nsinfo`.
pub fn path(root: &Path, name: &str) -> PathBuf {
    root.join(FOLDER).join(format!("{name}{SUFFIX}"))
}

pub fn encode(ns: &NamespaceDescriptor) -> Vec<u8> {
    frame(MAGIC, &codec::encode_properties(&ns.properties))
}

/// Makes the namespace's file describe `ns`; a failure is logged.
pub fn ensure_on(fs: &dyn FileSystem, root: &Path, ns: &NamespaceDescriptor) {
    let dir = root.join(FOLDER);
    if let Err(e) = fs.create_dir_all(&dir) {
        tracing::warn!(folder = %dir.display(), error = %e, "could not create the namespaces folder");
        return;
    }
    ensure(fs, &path(root, &ns.name), &encode(ns));
}

/// Removes a deleted namespace's file (absent already is fine); a failure is logged.
pub fn remove_on(fs: &dyn FileSystem, root: &Path, name: &str) {
    let file = path(root, name);
    match fs.remove_file(&file) {
        Ok(()) => tracing::info!(file = %file.display(), "removed a deleted namespace's file"),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            tracing::warn!(file = %file.display(), error = %e, "could not remove a deleted namespace's file")
        }
    }
}

/// Every namespace file under `root`, each read or why it could not be.
pub fn read_all_on(
    fs: &dyn FileSystem,
    root: &Path,
) -> Result<Vec<Result<NamespaceDescriptor, InfoError>>, InfoError> {
    let dir = root.join(FOLDER);
    let names = fs.list(&dir).map_err(|e| InfoError::Io {
        file: dir.clone(),
        reason: e.to_string(),
    })?;
    Ok(names
        .iter()
        .filter_map(|n| n.strip_suffix(SUFFIX))
        .map(|name| {
            let file = path(root, name);
            let bytes = read(fs, &file)?;
            let value = unframe(MAGIC, &bytes, &file)?;
            let properties =
                codec::decode_properties(value).map_err(|reason| InfoError::Damaged {
                    file: file.clone(),
                    reason,
                })?;
            Ok(NamespaceDescriptor {
                name: name.to_string(),
                properties,
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_storage::fs::LocalFs;

    #[test]
    fn namespaces_round_trip_and_a_damaged_file_is_named() {
        let dir = tempfile::tempdir().expect("dir");
        let mut ns = NamespaceDescriptor::new("sales").expect("valid");
        ns.properties.insert("owner".into(), "ann".into());
        ensure_on(&LocalFs, dir.path(), &ns);
        ensure_on(
            &LocalFs,
            dir.path(),
            &NamespaceDescriptor::new("b").expect("valid"),
        );
        std::fs::write(path(dir.path(), "bad"), b"junk").expect("write");
        let read = read_all_on(&LocalFs, dir.path()).expect("listed");
        assert_eq!(read.len(), 3);
        assert!(matches!(&read[0], Ok(n) if n.name == "b"));
        assert!(
            matches!(&read[1], Err(InfoError::Damaged { .. })),
            "{read:?}"
        );
        assert_eq!(read[2].as_ref().expect("read"), &ns);
        remove_on(&LocalFs, dir.path(), "sales");
        assert_eq!(read_all_on(&LocalFs, dir.path()).expect("listed").len(), 2);
    }
}
