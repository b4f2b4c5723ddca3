//! `basalt hbck`'s work on a data folder no server has open: verify every manifest and
//! store file with the engine's own readers, and — only when told — set a damaged store
//! file aside so that its region opens, saying exactly what is lost.
//!
//! Verification reads each region's manifest, then opens each store file it names (trailer,
//! index, bloom and file info are checked at open) and reads every data block (each block's
//! checksum), comparing the cells read with the count the trailer records. A reference (a
//! split or merge child's view of its parent's file) must find its source file.
//!
//! [`quarantine_store_file`] is the one fix: the file leaves its manifest (and the
//! manifests of regions referencing it), then moves to `<root>/quarantine/` with a reason
//! stating the loss. Its cells are no longer served; nothing is deleted. A damaged
//! manifest is reported, not fixed here: without it no one can tell which files of the
//! folder are current and which are replaced ones (serving a compaction's inputs again
//! could bring deleted cells back), nor which parent files a split daughter references.

use crate::error::io;
use basalt_api::{ApiError, Result};
use basalt_storage::block_cache::BlockCache;
use basalt_storage::fs::LocalFs;
use basalt_storage::hfile::HFileReader;
use basalt_storage::region::manifest::Manifest;
use basalt_storage::scanner::CellSource;
use basalt_storage::store::{family_dir_name, file::file_name};
use basalt_types::escape::to_string_binary;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Block cache bytes a verification reads through (blocks are read once).
const VERIFY_CACHE_BYTES: u64 = 1 << 20;

/// What [`verify`] looked at and what it found.
#[derive(Debug, Default)]
pub struct FileCheck {
    pub regions: usize,
    pub manifests: usize,
    pub store_files: usize,
    pub store_file_bytes: u64,
    pub problems: Vec<FileProblem>,
}

/// One file that failed its checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileProblem {
    pub path: PathBuf,
    pub kind: FileKind,
    pub cause: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    StoreFile,
    Manifest,
    /// A reference whose source file is missing.
    Reference,
}

impl FileKind {
    pub fn name(self) -> &'static str {
        match self {
            Self::StoreFile => "store file",
            Self::Manifest => "manifest",
            Self::Reference => "reference",
        }
    }
}

/// What a store file held, as far as it can still be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loss {
    pub path: PathBuf,
    /// Where it went.
    pub moved_to: PathBuf,
    pub bytes: u64,
    /// From the trailer, when it is readable.
    pub cells: Option<u64>,
    /// First and last row, when the file info is readable.
    pub rows: Option<(String, String)>,
    /// Regions whose references to the file were dropped with it.
    pub references_dropped: Vec<String>,
}

impl std::fmt::Display for Loss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({} bytes", self.path.display(), self.bytes)?;
        match self.cells {
            Some(cells) => write!(f, ", {cells} cells")?,
            None => write!(f, ", cell count unreadable")?,
        }
        match &self.rows {
            Some((first, last)) => write!(f, ", rows '{first}' to '{last}'")?,
            None => write!(f, ", row range unreadable")?,
        }
        write!(f, ") is no longer served")?;
        if !self.references_dropped.is_empty() {
            write!(
                f,
                ", nor through the references of {}",
                self.references_dropped.join(", ")
            )?;
        }
        write!(f, "; it was moved to {}", self.moved_to.display())
    }
}

/// Verifies every manifest and store file under `<root>/data` (`hbase:meta`'s included).
pub fn verify(root: &Path) -> Result<FileCheck> {
    let mut check = FileCheck::default();
    for region_dir in all_region_folders(root)? {
        check.regions += 1;
        let manifest = match Manifest::load(&LocalFs, &region_dir) {
            Ok(manifest) => manifest,
            Err(e) => {
                check.problems.push(FileProblem {
                    path: region_dir.join(basalt_storage::region::manifest::FILE_NAME),
                    kind: FileKind::Manifest,
                    cause: e.to_string(),
                });
                continue;
            }
        };
        check.manifests += 1;
        for (family, files) in &manifest.families {
            let family_dir = region_dir.join(family_dir_name(family));
            for entry in &files.files {
                match &entry.reference {
                    None => {
                        let path = family_dir.join(file_name(entry.id));
                        check.store_files += 1;
                        check.store_file_bytes += std::fs::metadata(&path).map_or(0, |m| m.len());
                        if let Err(cause) = verify_store_file(&path) {
                            check.problems.push(FileProblem {
                                path,
                                kind: FileKind::StoreFile,
                                cause,
                            });
                        }
                    }
                    Some(reference) => {
                        let source = reference.source_path(&region_dir, family);
                        if !source.is_file() {
                            check.problems.push(FileProblem {
                                path: family_dir.join(format!("reference {}", entry.id)),
                                kind: FileKind::Reference,
                                cause: format!("its source file {} is missing", source.display()),
                            });
                        }
                    }
                }
            }
        }
    }
    Ok(check)
}

/// Reads a store file whole: what opening checks, then every data block; the cells read
/// must be as many as the trailer records. The error names the file, offset and cause.
pub fn verify_store_file(path: &Path) -> std::result::Result<u64, String> {
    let reader = HFileReader::open(
        &LocalFs,
        path,
        0,
        Arc::new(BlockCache::new(VERIFY_CACHE_BYTES)),
    )
    .map_err(|e| e.to_string())?;
    let mut scanner = reader.scanner(false);
    scanner.seek_to_first().map_err(|e| e.to_string())?;
    let mut cells = 0u64;
    while scanner.take().map_err(|e| e.to_string())?.is_some() {
        cells += 1;
    }
    let recorded = reader.info().cell_count;
    if cells != recorded {
        return Err(format!(
            "{}: {cells} cells read where the trailer records {recorded}",
            path.display()
        ));
    }
    Ok(cells)
}

/// Every region folder under `<root>/data`, `hbase:meta`'s first.
fn all_region_folders(root: &Path) -> Result<Vec<PathBuf>> {
    let meta_dir = root
        .join("data")
        .join("hbase")
        .join("meta")
        .join(crate::meta::META_REGION);
    let mut folders: Vec<PathBuf> = meta_dir.is_dir().then_some(meta_dir).into_iter().collect();
    folders.extend(crate::health::region_folders(root)?);
    Ok(folders)
}

/// Takes a store file out of its region's manifest (and out of the manifests of sibling
/// regions that reference it) and moves it to the quarantine, so that the regions open
/// without it. Refuses a file outside `<root>/data/<ns>/<table>/<region>/<family>/`, and
/// a region whose manifest (or a referencing sibling's) cannot be read.
pub fn quarantine_store_file(root: &Path, path: &Path, now_ms: i64) -> Result<Loss> {
    let refuse = |why: String| {
        Err(ApiError::invalid(format!(
            "cannot quarantine {}: {why}",
            path.display()
        )))
    };
    let path = if path.is_absolute() {
        path.to_path_buf()
    } else {
        root.join(path)
    };
    let (Some(family_dir), Some(name)) = (path.parent(), path.file_name()) else {
        return refuse("not a file path".into());
    };
    let Some(region_dir) = family_dir.parent() else {
        return refuse("not in a region folder".into());
    };
    let in_data = region_dir
        .ancestors()
        .nth(3)
        .is_some_and(|d| d == root.join("data"));
    if !in_data || !path.is_file() {
        return refuse(format!(
            "not a store file under {}/data/<namespace>/<table>/<region>/<family>/",
            root.display()
        ));
    }
    let name = name.to_string_lossy().into_owned();
    let family_folder = family_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let loss_facts = file_facts(&path);
    let mut manifest = Manifest::load(&LocalFs, region_dir).map_err(|e| {
        ApiError::invalid(format!(
            "cannot quarantine {}: its region's manifest cannot be read ({e}); \
             the file cannot be taken out of it",
            path.display()
        ))
    })?;
    let mut file_id = None;
    for (family, files) in manifest.families.iter_mut() {
        if family_dir_name(family) != family_folder {
            continue;
        }
        let before = files.files.len();
        files.files.retain(|f| {
            let named = f.reference.is_none() && file_name(f.id) == name;
            if named {
                file_id = Some(f.id);
            }
            !named
        });
        if files.files.len() != before {
            break;
        }
    }
    let mut references_dropped = Vec::new();
    if let Some(id) = file_id {
        references_dropped = drop_references(region_dir, &family_folder, id)?;
        manifest
            .store(&LocalFs, region_dir)
            .map_err(crate::error::from_storage)?;
        tracing::warn!(file = %path.display(), "hbck took a store file out of its region's manifest");
    }
    let reason = format!(
        "set aside by basalt hbck on the operator's order: {}{}",
        match &loss_facts.2 {
            Some(cause) => format!("damaged ({cause}); "),
            None => String::new(),
        },
        if file_id.is_some() {
            "its cells are no longer served"
        } else {
            "no manifest named it"
        }
    );
    let moved_to = basalt_storage::quarantine::move_in(&LocalFs, root, &path, &reason, now_ms)
        .map_err(crate::error::from_storage)?;
    Ok(Loss {
        path,
        moved_to,
        bytes: loss_facts.0,
        cells: loss_facts.1.as_ref().map(|(cells, _)| *cells),
        rows: loss_facts.1.and_then(|(_, rows)| rows),
        references_dropped,
    })
}

/// Size; cell count and row range when the trailer and file info read; the damage found.
type Facts = (u64, Option<(u64, Option<(String, String)>)>, Option<String>);

fn file_facts(path: &Path) -> Facts {
    let bytes = std::fs::metadata(path).map_or(0, |m| m.len());
    let damage = verify_store_file(path).err();
    let summary = HFileReader::open(&LocalFs, path, 0, Arc::new(BlockCache::new(0)))
        .ok()
        .map(|reader| {
            let info = reader.info();
            let rows = match (&info.first_key, &info.last_key) {
                (Some(first), Some(last)) => {
                    Some((to_string_binary(first.row()), to_string_binary(last.row())))
                }
                _ => None,
            };
            (info.cell_count, rows)
        });
    (bytes, summary, damage)
}

/// Removes the references to file `file_id` of `region_dir`'s family folder `family_folder`
/// from every sibling region's manifest; returns those regions' folder names.
fn drop_references(region_dir: &Path, family_folder: &str, file_id: u64) -> Result<Vec<String>> {
    let Some(table_dir) = region_dir.parent() else {
        return Ok(Vec::new());
    };
    let source = region_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let siblings = std::fs::read_dir(table_dir)
        .map_err(|e| io(format!("cannot list {}: {e}", table_dir.display())))?;
    let mut dropped = Vec::new();
    for sibling in siblings {
        let sibling = sibling
            .map_err(|e| io(format!("cannot list {}: {e}", table_dir.display())))?
            .path();
        if sibling == region_dir || !sibling.is_dir() {
            continue;
        }
        let mut manifest = Manifest::load(&LocalFs, &sibling).map_err(|e| {
            ApiError::invalid(format!(
                "the manifest of {}, which may reference the file, cannot be read ({e})",
                sibling.display()
            ))
        })?;
        let mut changed = false;
        for (family, files) in manifest.families.iter_mut() {
            if family_dir_name(family) != family_folder {
                continue;
            }
            let before = files.files.len();
            files.files.retain(|f| {
                f.reference
                    .as_ref()
                    .is_none_or(|r| r.region != source || r.file_id != file_id)
            });
            changed |= files.files.len() != before;
        }
        if changed {
            manifest
                .store(&LocalFs, &sibling)
                .map_err(crate::error::from_storage)?;
            let name = sibling
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            tracing::warn!(region = %name, "hbck dropped references to a quarantined store file");
            dropped.push(name);
        }
    }
    Ok(dropped)
}
