//! The segment taking appends: writes batches, syncs them, and rolls to a new file by size.
//!
//! Rolling happens before a batch is written, never after: the full segment was synced by
//! the batch that filled it, so a crash can tear only the newest segment, and a failed roll
//! fails the batch it was for (nothing acknowledged is in doubt).

use super::segment;
use crate::error::{Error, Result};
use crate::fs::{FileSystem, WritableFile};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tracing::info;

/// A segment that was rolled away from: its id and highest sequence id per region.
pub type ClosedSegment = (u64, HashMap<String, u64>);

#[derive(Debug)]
pub struct ActiveSegment {
    fs: Arc<dyn FileSystem>,
    dir: PathBuf,
    id: u64,
    path: PathBuf,
    file: Box<dyn WritableFile>,
    regions: HashMap<String, u64>,
    size_max_bytes: u64,
}

impl ActiveSegment {
    /// Creates segment `id` in `dir` with its header, durably (file and folder entry).
    pub fn create(
        fs: Arc<dyn FileSystem>,
        dir: PathBuf,
        id: u64,
        size_max_bytes: u64,
    ) -> Result<Self> {
        let path = dir.join(segment::file_name(id));
        let file = create_file(fs.as_ref(), &dir, &path, id)?;
        info!(file = %path.display(), "started a log segment");
        Ok(Self {
            fs,
            dir,
            id,
            path,
            file,
            regions: HashMap::new(),
            size_max_bytes,
        })
    }

    /// Appends `batch` (whole records) and syncs it; `regions` is the highest sequence id
    /// per region inside it. Rolls first if this segment is full.
    pub fn write_and_sync(
        &mut self,
        batch: &[u8],
        regions: HashMap<String, u64>,
    ) -> Result<Option<ClosedSegment>> {
        let closed = self.roll_if_full()?;
        self.file
            .write_all(batch)
            .map_err(|e| Error::io(format!("writing log segment {}", self.path.display()), e))?;
        self.file
            .sync_data()
            .map_err(|e| Error::io(format!("syncing log segment {}", self.path.display()), e))?;
        for (region, seq_id) in regions {
            let max = self.regions.entry(region).or_insert(seq_id);
            *max = (*max).max(seq_id);
        }
        Ok(closed)
    }

    fn roll_if_full(&mut self) -> Result<Option<ClosedSegment>> {
        let has_records = self.file.len() > segment::SEGMENT_HEADER_LEN as u64;
        if !has_records || self.file.len() < self.size_max_bytes {
            return Ok(None);
        }
        let next_id = self
            .id
            .checked_add(1)
            .ok_or_else(|| Error::Poisoned("log segment ids are exhausted".into()))?;
        let next_path = self.dir.join(segment::file_name(next_id));
        let next_file = create_file(self.fs.as_ref(), &self.dir, &next_path, next_id)?;
        info!(from = %self.path.display(), to = %next_path.display(), bytes = self.file.len(), "rolled the log");
        self.file = next_file;
        self.path = next_path;
        let closed = (self.id, std::mem::take(&mut self.regions));
        self.id = next_id;
        Ok(Some(closed))
    }
}

fn create_file(
    fs: &dyn FileSystem,
    dir: &Path,
    path: &Path,
    id: u64,
) -> Result<Box<dyn WritableFile>> {
    let context = || format!("creating log segment {}", path.display());
    let mut file = fs.create(path).map_err(|e| Error::io(context(), e))?;
    file.write_all(&segment::encode_header(id))
        .and_then(|()| file.sync_data())
        .and_then(|()| fs.sync_dir(dir))
        .map_err(|e| Error::io(context(), e))?;
    Ok(file)
}
