//! At activation, before any procedure runs, region folders the catalog names no region
//! for are moved into the store's quarantine (never deleted): the remains of a create,
//! split or merge cut short before its commit, or data whose catalog entry was lost. An
//! operator reads them there and purges them with `basalt hbck --purge-quarantine`.
//!
//! Only for a store that is a local or shared folder (`set_aside_unknown_folders`: a
//! standalone folder, a cluster in one process), whose folders this process lists itself.

use crate::master::Master;
use std::collections::HashSet;
use std::path::PathBuf;

const REASON: &str = "the catalog names no region for this folder (an interrupted create, \
                      split or merge, or a region whose catalog entry was lost)";

impl Master {
    /// Sets aside every region folder under `data/` the catalog does not name; how many.
    pub fn set_aside_unknown_folders(&self) -> usize {
        if !self.config.set_aside_unknown_folders {
            return 0;
        }
        let root = &self.config.store_root;
        let known: HashSet<PathBuf> = self
            .catalog
            .read()
            .regions
            .values()
            .map(|r| self.table_dir(&r.table).join(&r.encoded_name))
            .collect();
        let folders = match basalt_db::health::region_folders(root) {
            Ok(folders) => folders,
            Err(e) => {
                tracing::error!(error = %e, "cannot list the region folders: none is set aside");
                return 0;
            }
        };
        let now_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        let mut moved = 0;
        for dir in folders.into_iter().filter(|d| !known.contains(d)) {
            match basalt_storage::quarantine::move_in(self.fs.as_ref(), root, &dir, REASON, now_ms)
            {
                Ok(_) => moved += 1,
                Err(e) => {
                    tracing::error!(folder = %dir.display(), error = %e, "cannot set aside a region folder the catalog does not name: left in place");
                }
            }
        }
        moved
    }
}
