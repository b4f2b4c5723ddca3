//! Splitting a dead server's sealed log per region (cluster-design §5.4, server crash
//! step 3): the log is read once, and each region the master names gets its own edits as
//! [`super::recovered`] edits in its folder, so that its new owner reads only those.
//!
//! Only a sealed log is split (its contents are then fixed: a second split after a master
//! failover writes the same files). A log with damaged segments is not split: the regions'
//! new owners read it directly, where each region judges the damage against its own
//! flushed sequence ids. Every region named gets a file, an empty one when the log holds
//! nothing of it, so that no owner has to read the log to learn that.

use super::{recovered, replay, RecoveryMode, WalEdit};
use crate::fs::FileSystem;
use crate::{Error, Result};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// What a split did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SplitOutcome {
    /// Edits in the log.
    pub edits: usize,
    /// Edits written into some region's file.
    pub edits_written: usize,
    /// Files written (one per region named).
    pub files: usize,
}

/// How many files are written at once (each is synced: this hides the sync latency).
const WRITERS: usize = 8;

/// Splits the sealed log in `log_dir` of dead server `server` for `regions` (encoded
/// region name → region folder).
pub fn split_log(
    fs: &dyn FileSystem,
    log_dir: &Path,
    server: &str,
    regions: &BTreeMap<String, PathBuf>,
) -> Result<SplitOutcome> {
    let sealed = fs
        .log_sealed(log_dir)
        .map_err(|e| Error::io(format!("reading the seal of {}", log_dir.display()), e))?;
    if !sealed {
        return Err(Error::invalid(format!(
            "the log {} is not sealed: only a sealed log is split",
            log_dir.display()
        )));
    }
    let replayed = replay(fs, log_dir, RecoveryMode::FailNeedingRegions)?;
    if let Some(damaged) = replayed.damaged.first() {
        return Err(Error::invalid(format!(
            "the log {} has {} damaged segment(s) (the first: {}): its regions read it directly",
            log_dir.display(),
            replayed.damaged.len(),
            damaged.file.display()
        )));
    }
    let mut by_region: HashMap<&str, Vec<&WalEdit>> = HashMap::new();
    for edit in &replayed.edits {
        by_region
            .entry(edit.region.as_str())
            .or_default()
            .push(edit);
    }
    let jobs: Vec<(&PathBuf, Vec<&WalEdit>)> = regions
        .iter()
        .map(|(name, dir)| (dir, by_region.remove(name.as_str()).unwrap_or_default()))
        .collect();
    let edits_written = jobs.iter().map(|(_, e)| e.len()).sum();
    let chunk = jobs.len().div_ceil(WRITERS).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = jobs
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .try_for_each(|(dir, edits)| recovered::write(fs, dir, server, edits))
                })
            })
            .collect();
        handles.into_iter().try_for_each(|h| {
            h.join()
                .unwrap_or_else(|_| Err(Error::invalid("a recovered-edits writer panicked")))
        })
    })?;
    Ok(SplitOutcome {
        edits: replayed.edits.len(),
        edits_written,
        files: jobs.len(),
    })
}
