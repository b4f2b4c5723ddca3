//! The manifest on disk: two copies, `MANIFEST` and `MANIFEST.2`, each with its own
//! checksum, each replaced by an atomic rename; one damaged copy costs nothing.
//!
//! **Why two copies** rather than the previous manifest plus the log edits since it: the
//! log holds cells, not file lists. Rebuilding a manifest from the log would need new log
//! records for every flush, compaction, bulk load, split and merge, and log retention tied
//! to manifest generations (a segment could go only once two manifests no longer need
//! it). Two copies are self-contained, cost one more small write and sync per commit, and
//! change nothing else.
//!
//! A commit raises the generation and writes `MANIFEST`, then `MANIFEST.2`: the first
//! rename is the commit point, so a crash between the two leaves the first copy one
//! generation ahead. Reading picks a copy by this table:
//!
//! | `MANIFEST`       | `MANIFEST.2`     | read                 | at region open                       |
//! |------------------|------------------|----------------------|--------------------------------------|
//! | missing          | missing          | empty (new region)   | nothing                              |
//! | valid            | valid, same gen. | either (equal)       | nothing                              |
//! | valid            | valid, other gen.| the higher generation| both rewritten (a crash in a commit) |
//! | valid            | missing          | the valid one        | both written (an older version's region, or a crash at creation) |
//! | valid            | damaged          | the valid one, warns | damaged copy moved aside, both rewritten |
//! | damaged/missing  | damaged/missing  | error naming both files                                     ||
//! | newer version    | anything         | refused ([`Error::NewerFormat`]), never the other copy       ||
//!
//! (and the same with the two columns swapped). Two valid copies of one generation with
//! different contents cannot come from any crash; they are refused too. A damaged copy
//! is never deleted: it is renamed `<name>.damaged.<n>` beside the others, for an operator.

use super::Manifest;
use crate::fs::{self, FileSystem};
use crate::{Error, FileKind, Result};
use std::path::{Path, PathBuf};

/// The first copy, written first at each commit.
pub const FILE_NAME: &str = "MANIFEST";
/// The second copy.
pub const SECOND_COPY: &str = "MANIFEST.2";

/// Damaged copies moved aside in one region folder, at most.
const DAMAGED_COPIES_MAX: u32 = 1000;

/// What one copy holds.
#[derive(Debug)]
enum Copy {
    Missing,
    /// Decoded; `current` when its bytes are what this code writes for it (same version).
    Valid {
        manifest: Manifest,
        current: bool,
    },
    Damaged(Error),
}

/// Which manifest to trust, and what opening the region must repair.
#[derive(Debug)]
struct Chosen {
    manifest: Manifest,
    /// Copies that failed their checks, to move aside.
    damaged: Vec<PathBuf>,
    /// Some copy is not the chosen manifest in the current version.
    rewrite: bool,
}

impl Manifest {
    /// Reads the manifest in `region_dir` without changing anything: the newer valid copy,
    /// warning about a damaged one; an empty manifest when there is none yet.
    pub fn load(fs: &dyn FileSystem, region_dir: &Path) -> Result<Self> {
        Ok(read_both(fs, region_dir)?.manifest)
    }

    /// Reads the manifest as [`Manifest::load`] does, then repairs the copies: a damaged
    /// one is moved aside, and a damaged, stale, missing or older-version copy is
    /// replaced by committing the chosen manifest again (one generation up). A failure to
    /// move a damaged copy aside fails the open (it would otherwise be overwritten); a
    /// failure to commit is only logged.
    pub fn open(fs: &dyn FileSystem, region_dir: &Path) -> Result<Self> {
        let mut chosen = read_both(fs, region_dir)?;
        for path in &chosen.damaged {
            let aside = move_aside(fs, path)?;
            tracing::warn!(file = %path.display(), moved_to = %aside.display(),
                "moved a damaged manifest copy aside; rewriting it from the other copy");
        }
        if chosen.rewrite {
            // The chosen manifest is valid either way: a repair that cannot be written now
            // (a full disk) is retried at the next commit or open, and must not keep the
            // region from serving.
            if let Err(e) = chosen.manifest.store(fs, region_dir) {
                tracing::warn!(region = %region_dir.display(), error = %e,
                    "could not rewrite the manifest copies; the next commit will");
            }
        }
        Ok(chosen.manifest)
    }

    /// Commits this manifest atomically and durably, one generation up: the first copy,
    /// then the second. On error the generation stays raised, so that it is never written
    /// twice with different contents.
    pub fn store(&mut self, fs: &dyn FileSystem, region_dir: &Path) -> Result<()> {
        self.generation += 1;
        let bytes = self.encode();
        for name in [FILE_NAME, SECOND_COPY] {
            let path = region_dir.join(name);
            fs::write_atomic(fs, &path, &bytes)
                .map_err(|e| Error::io(format!("committing {}", path.display()), e))?;
        }
        Ok(())
    }
}

fn read_both(fs: &dyn FileSystem, dir: &Path) -> Result<Chosen> {
    let (first, second) = (dir.join(FILE_NAME), dir.join(SECOND_COPY));
    let a = read_copy(fs, &first)?;
    let b = read_copy(fs, &second)?;
    choose(dir, a, b)
}

fn read_copy(fs: &dyn FileSystem, path: &Path) -> Result<Copy> {
    let exists = fs
        .exists(path)
        .map_err(|e| Error::io(format!("checking {}", path.display()), e))?;
    if !exists {
        return Ok(Copy::Missing);
    }
    let bytes =
        fs::read_all(fs, path).map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
    match Manifest::decode(&bytes, path) {
        Ok(manifest) => {
            let current = manifest.encode() == bytes;
            Ok(Copy::Valid { manifest, current })
        }
        Err(e @ Error::Corruption { .. }) => Ok(Copy::Damaged(e)),
        Err(e) => Err(e),
    }
}

/// The decision of the table in the module documentation; `a` is `MANIFEST`.
fn choose(dir: &Path, a: Copy, b: Copy) -> Result<Chosen> {
    let paths = [dir.join(FILE_NAME), dir.join(SECOND_COPY)];
    let valid = |manifest, rewrite, damaged: Vec<PathBuf>| Chosen {
        manifest,
        damaged,
        rewrite,
    };
    match (a, b) {
        (Copy::Missing, Copy::Missing) => Ok(valid(Manifest::default(), false, Vec::new())),
        (
            Copy::Valid {
                manifest: m,
                current: cm,
            },
            Copy::Valid {
                manifest: n,
                current: cn,
            },
        ) => {
            if m.generation != n.generation {
                tracing::info!(region = %dir.display(), first = m.generation, second = n.generation,
                    "manifest copies of different generations (a commit was cut short); the newer wins");
                let newer = if m.generation > n.generation { m } else { n };
                return Ok(valid(newer, true, Vec::new()));
            }
            if m != n {
                return Err(Error::corruption(
                    FileKind::Manifest,
                    &paths[1],
                    0,
                    format!(
                        "{} and this copy are both valid at generation {} but differ",
                        paths[0].display(),
                        m.generation
                    ),
                ));
            }
            Ok(valid(m, !cm || !cn, Vec::new()))
        }
        (Copy::Valid { manifest, .. }, Copy::Missing)
        | (Copy::Missing, Copy::Valid { manifest, .. }) => Ok(valid(manifest, true, Vec::new())),
        (Copy::Valid { manifest, .. }, Copy::Damaged(e)) => {
            tracing::warn!(error = %e, "a manifest copy is damaged; using the other");
            Ok(valid(manifest, true, vec![paths[1].clone()]))
        }
        (Copy::Damaged(e), Copy::Valid { manifest, .. }) => {
            tracing::warn!(error = %e, "a manifest copy is damaged; using the other");
            Ok(valid(manifest, true, vec![paths[0].clone()]))
        }
        (Copy::Damaged(a), Copy::Damaged(b)) => Err(neither_usable(
            a,
            format!("the other copy is damaged too: {b}"),
        )),
        (Copy::Damaged(e), Copy::Missing) => Err(neither_usable(
            e,
            format!("the other copy, {}, is missing", paths[1].display()),
        )),
        (Copy::Missing, Copy::Damaged(e)) => Err(neither_usable(
            e,
            format!("the other copy, {}, is missing", paths[0].display()),
        )),
    }
}

/// The error when no copy can be used: the damaged copy's, followed by what is wrong with
/// the other, so that it names both files.
fn neither_usable(damaged: Error, other: String) -> Error {
    match damaged {
        Error::Corruption {
            kind,
            file,
            offset,
            reason,
        } => Error::corruption(kind, file, offset, format!("{reason}; {other}")),
        e => Error::invalid(format!("{e}; {other}")),
    }
}

/// Renames a damaged copy to the first free `<name>.damaged.<n>`.
fn move_aside(fs: &dyn FileSystem, path: &Path) -> Result<PathBuf> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    for n in 1..=DAMAGED_COPIES_MAX {
        let aside = path.with_file_name(format!("{name}.damaged.{n}"));
        let taken = fs
            .exists(&aside)
            .map_err(|e| Error::io(format!("checking {}", aside.display()), e))?;
        if !taken {
            fs.rename(path, &aside)
                .map_err(|e| Error::io(format!("moving {} aside", path.display()), e))?;
            return Ok(aside);
        }
    }
    Err(Error::corruption(
        FileKind::Manifest,
        path,
        0,
        format!("damaged and {DAMAGED_COPIES_MAX} damaged copies already set aside"),
    ))
}
