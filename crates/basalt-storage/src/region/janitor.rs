//! What a janitor asks before deleting a split or merged-away region's folder: do the
//! regions made from it still reference its files?
//!
//! A child region's manifest is the truth (its store file lists are published only after
//! the manifest commits), so reading the children's manifests answers it without opening
//! them. A child folder without a manifest (never written, or already deleted) references
//! nothing. The answer can only go from "referenced" to "not referenced" as children
//! compact; a janitor that sees `false` may delete the parent folder, provided no new child
//! of it can appear (the catalog records the split before the parent goes offline).

use super::manifest::Manifest;
use crate::fs::FileSystem;
use crate::{Error, Result};
use bytes::Bytes;
use std::path::{Path, PathBuf};

/// One source file a child still references.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ReferencedFile {
    /// The referencing region's folder.
    pub child_dir: PathBuf,
    pub family: Bytes,
    /// The file's id in the parent's manifest.
    pub file_id: u64,
}

/// Every file of `parent_dir` that a manifest in `child_dirs` references (children and
/// parent must be siblings in one table folder; others cannot reference it).
pub fn referenced_files(
    fs: &dyn FileSystem,
    child_dirs: &[PathBuf],
    parent_dir: &Path,
) -> Result<Vec<ReferencedFile>> {
    let Some(parent) = parent_dir.file_name().and_then(|n| n.to_str()) else {
        return Err(Error::invalid(format!(
            "{} is not a region folder",
            parent_dir.display()
        )));
    };
    let mut found = Vec::new();
    for child in child_dirs {
        if child.parent() != parent_dir.parent() || child == parent_dir {
            continue;
        }
        let manifest = Manifest::load(fs, child)?;
        for (family, files) in &manifest.families {
            for reference in files.files.iter().filter_map(|f| f.reference.as_ref()) {
                if reference.region == parent {
                    found.push(ReferencedFile {
                        child_dir: child.clone(),
                        family: family.clone(),
                        file_id: reference.file_id,
                    });
                }
            }
        }
    }
    found.sort();
    found.dedup();
    Ok(found)
}

/// Whether any manifest in `child_dirs` still references a file of `parent_dir`: while it
/// does, the parent's folder must stay.
pub fn references_into(
    fs: &dyn FileSystem,
    child_dirs: &[PathBuf],
    parent_dir: &Path,
) -> Result<bool> {
    Ok(!referenced_files(fs, child_dirs, parent_dir)?.is_empty())
}
