//! The segment taking appends: writes batches, syncs them, and rolls to a new file by size
//! or after a full disk.
//!
//! Rolling happens before a batch is written, never after: the full segment was synced by
//! the batch that filled it, so a crash can tear only the newest segment, and a failed roll
//! fails the batch it was for (nothing acknowledged is in doubt).
//!
//! # A full disk
//! A write that fails for lack of space (`ENOSPC`, `EDQUOT`) may have stored part of its
//! batch. The segment is abandoned: cut back to where the batch began, which is the end of
//! its last synced record (shrinking a file needs no space), and closed. The batch is
//! refused, so none of it is acknowledged, and the next batch starts a fresh segment. No
//! segment is created while the cut is still to be done: the segment with the torn tail
//! stays the newest, the only one replay accepts a torn tail in. A segment that cannot be
//! created (no space for its header) is removed again and created at the next batch under
//! the same id.
//!
//! | what failed                      | left on disk                      | next batch           |
//! |----------------------------------|-----------------------------------|----------------------|
//! | a write, for lack of space       | the segment, cut to synced records| starts a new segment |
//! | ... and the cut too              | the segment, torn tail (newest)   | cuts, then starts    |
//! | creating a segment, no space     | nothing (the partial file goes)   | creates it again     |
//! | a write, any other cause         | as it was: the log is poisoned    | refused              |
//! | syncing records, whatever cause  | in doubt: the log is poisoned     | refused              |
//! | the folder sealed (checked after each sync) | as it was: poisoned, the batch unacknowledged | refused |
//!
//! A failed sync of records stays fatal even when it says the disk is full: the kernel may
//! have dropped the pages it could not write and report success to a later sync, so neither
//! what was written since the last good sync nor a retry of it can be trusted. (Creating a
//! segment, header and sync included, may fail for lack of space and be retried: the file
//! holds no record yet, and it is removed or recreated from scratch.)

use super::numbered::{self, NUMBERED_HEADER_LEN};
use super::recycle::FreeSegments;
use super::segment;
use crate::error::{Error, Result};
use crate::fs::{FileSystem, WritableFile};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tracing::{info, warn};

/// A segment that was rolled away from: its id and highest sequence id per region.
pub type ClosedSegment = (u64, HashMap<String, u64>);

/// Why a batch was not made durable.
#[derive(Debug)]
pub enum Failure {
    /// For lack of space. Nothing of the batch is kept and the log can go on.
    Refused(Error),
    /// The log's state on disk is in doubt: it must accept nothing more.
    Fatal(Error),
}

impl Failure {
    /// Refused when `error` says the disk is full, else fatal.
    fn from_error(error: Error) -> Self {
        if error.is_no_space() {
            Self::Refused(error)
        } else {
            Self::Fatal(error)
        }
    }
}

/// The segment being appended to.
#[derive(Debug)]
struct Open {
    id: u64,
    path: PathBuf,
    file: Box<dyn WritableFile>,
    /// Highest sequence id per region among its synced records.
    regions: HashMap<String, u64>,
    /// Its header and folder entry are not synced yet: the first batch's sync does it.
    unsynced: bool,
    /// A reused file: an earlier use's bytes lie past what is written, so each batch is
    /// followed by a header of zeros marking the end.
    reused: bool,
}

/// A segment abandoned after a failed write, still to be cut back to `valid_len`.
#[derive(Debug)]
struct Torn {
    id: u64,
    path: PathBuf,
    valid_len: u64,
    regions: HashMap<String, u64>,
}

#[derive(Debug)]
pub struct ActiveSegment {
    fs: Arc<dyn FileSystem>,
    dir: PathBuf,
    /// `None` when no segment could be created yet, or the last one was abandoned.
    current: Option<Open>,
    torn: Option<Torn>,
    /// The id of the next segment created.
    next_id: u64,
    /// Segments closed since [`ActiveSegment::take_closed`] was last called.
    closed: Vec<ClosedSegment>,
    size_max_bytes: u64,
    /// Zeros written ahead of appends at a time (0: none).
    preallocate_step_bytes: u64,
    /// Flushed segments' files to reuse for new segments.
    free: Arc<FreeSegments>,
}

/// How a new segment is made.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    pub size_max_bytes: u64,
    pub preallocate_step_bytes: u64,
}

impl ActiveSegment {
    /// Starts segment `id` in `dir` with its header. Neither is synced yet: the first
    /// batch's sync covers the header, then syncs the folder entry, before that batch is
    /// acknowledged — a start does not wait for two syncs, and a crash before any batch
    /// loses nothing (a missing or torn newest segment holds no record). On a full disk it
    /// starts none and says so: the first batch creates it.
    pub fn open(
        fs: Arc<dyn FileSystem>,
        dir: PathBuf,
        id: u64,
        shape: Shape,
        free: Arc<FreeSegments>,
    ) -> Result<Self> {
        let mut active = Self {
            fs,
            dir,
            current: None,
            torn: None,
            next_id: id,
            closed: Vec::new(),
            size_max_bytes: shape.size_max_bytes,
            preallocate_step_bytes: shape.preallocate_step_bytes,
            free,
        };
        match active.create_next(false) {
            Ok(open) => active.current = Some(open),
            Err(Failure::Refused(e)) => warn!(
                error = %e,
                "no log segment could be created: the disk is full; reads are served, \
                 writes are refused until space is freed"
            ),
            Err(Failure::Fatal(e)) => return Err(e),
        }
        Ok(active)
    }

    /// Appends `batch` (whole records, [`numbered`]) and syncs it; `regions` is the
    /// highest sequence id per region inside it. Rolls first if this segment is full or
    /// was abandoned; stamps the records with the segment's id.
    pub fn write_and_sync(
        &mut self,
        batch: &mut [u8],
        regions: &HashMap<String, u64>,
    ) -> std::result::Result<(), Failure> {
        self.make_ready()?;
        let size_max_bytes = self.size_max_bytes;
        let step = self.preallocate_step_bytes;
        let Some(open) = self.current.as_mut() else {
            return Err(Failure::Fatal(Error::Poisoned(
                "no log segment to append to".into(),
            )));
        };
        numbered::stamp(batch, open.id)
            .map_err(|e| Failure::Fatal(Error::Poisoned(format!("a malformed log batch: {e}"))))?;
        let valid_len = open.file.len();
        allocate(open, batch.len() as u64, size_max_bytes, step);
        // In a reused file, zeros after the batch (a header's worth, or up to the file's
        // end) end its records: what follows is the earlier use's.
        let room = open
            .file
            .allocated()
            .saturating_sub(valid_len + batch.len() as u64);
        let mark = room.min(NUMBERED_HEADER_LEN as u64) as usize;
        let written = match open.reused && mark > 0 {
            true => open
                .file
                .write_with_trailer(batch, &[0; NUMBERED_HEADER_LEN][..mark]),
            false => open.file.write_all(batch),
        };
        if let Err(e) = written {
            let error = Error::io(format!("writing log segment {}", open.path.display()), e);
            if !error.is_no_space() {
                return Err(Failure::Fatal(error));
            }
            return match self.abandon(valid_len) {
                Err(Failure::Fatal(cut)) => Err(Failure::Fatal(cut)),
                Ok(()) | Err(Failure::Refused(_)) => Err(Failure::Refused(error)),
            };
        }
        let synced = open.file.sync_data().and_then(|()| match open.unsynced {
            true => self.fs.sync_dir(&self.dir),
            false => Ok(()),
        });
        if let Err(source) = synced {
            // Never `Error::io`: even a full disk makes a failed sync fatal (see above).
            return Err(Failure::Fatal(Error::Io {
                context: format!("syncing log segment {}", open.path.display()),
                source,
            }));
        }
        open.unsynced = false;
        // A sealed folder means crash recovery took this log over: what was just synced
        // may be past the recorded end, so it must not be acknowledged.
        match self.fs.log_sealed(&self.dir) {
            Ok(false) => {}
            Ok(true) => {
                return Err(Failure::Fatal(Error::Poisoned(format!(
                    "the log folder {} was sealed by crash recovery: this server was declared \
                     dead and no longer owns its log; nothing more is acknowledged",
                    self.dir.display()
                ))))
            }
            Err(source) => {
                return Err(Failure::Fatal(Error::Io {
                    context: format!("checking whether {} was sealed", self.dir.display()),
                    source,
                }))
            }
        }
        for (region, &seq_id) in regions {
            match open.regions.get_mut(region.as_str()) {
                Some(max) => *max = (*max).max(seq_id),
                None => {
                    open.regions.insert(region.clone(), seq_id);
                }
            }
        }
        Ok(())
    }

    /// The segments closed (rolled away from, or abandoned and cut) since the last call.
    pub fn take_closed(&mut self) -> Vec<ClosedSegment> {
        std::mem::take(&mut self.closed)
    }

    /// Makes sure there is a segment with room to append to.
    fn make_ready(&mut self) -> std::result::Result<(), Failure> {
        self.cut_torn()?;
        let full = match &self.current {
            None => true,
            Some(open) => {
                let len = open.file.len();
                len > segment::SEGMENT_HEADER_LEN as u64 && len >= self.size_max_bytes
            }
        };
        if !full {
            return Ok(());
        }
        let next = self.create_next(true)?;
        let to = next.path.clone();
        match self.current.replace(next) {
            Some(old) => {
                info!(from = %old.path.display(), to = %to.display(), bytes = old.file.len(),
                    "rolled the log");
                self.closed.push((old.id, old.regions));
            }
            None => info!("the log can write again: a new segment was started"),
        }
        Ok(())
    }

    fn path_of(&self, id: u64) -> PathBuf {
        self.dir.join(segment::file_name(id))
    }

    /// Creates segment `next_id`, durably when `sync` (else the first batch's sync makes
    /// it so); on a full disk removes what was created of it, so that the next attempt
    /// starts it again.
    fn create_next(&mut self, sync: bool) -> std::result::Result<Open, Failure> {
        let id = self.next_id;
        let after = id.checked_add(1).ok_or_else(|| {
            Failure::Fatal(Error::Poisoned("log segment ids are exhausted".into()))
        })?;
        let path = self.path_of(id);
        if sync {
            if let Some(file) = self.reuse(id, &path)? {
                self.next_id = after;
                return Ok(Open {
                    id,
                    path,
                    file,
                    regions: HashMap::new(),
                    unsynced: false,
                    reused: true,
                });
            }
        }
        let step = self.preallocate_step_bytes.min(self.size_max_bytes);
        match create_file(self.fs.as_ref(), &self.dir, &path, id, sync, step) {
            Ok(file) => {
                self.next_id = after;
                info!(file = %path.display(), "started a log segment");
                Ok(Open {
                    id,
                    path,
                    file,
                    regions: HashMap::new(),
                    unsynced: !sync,
                    reused: false,
                })
            }
            Err(error) => {
                if error.is_no_space() {
                    remove_partial(self.fs.as_ref(), &path);
                }
                Err(Failure::from_error(error))
            }
        }
    }

    /// Starts segment `id` at `path` in a free file, if there is one and it can be reused:
    /// renamed (durably, before its new header is written, so that no crash leaves that
    /// header under the old name), then its header overwritten and synced. A free file
    /// that cannot be renamed is kept for later and a new file is created instead.
    fn reuse(
        &mut self,
        id: u64,
        path: &Path,
    ) -> std::result::Result<Option<Box<dyn WritableFile>>, Failure> {
        let Some(from) = self.free.take() else {
            return Ok(None);
        };
        let mut file = match self.fs.reuse(&from, path) {
            Ok(Some(file)) => file,
            Ok(None) => return Ok(None),
            Err(e) => {
                warn!(file = %from.display(), error = %e, "could not reuse a free log segment");
                self.free.give_back(from);
                return Ok(None);
            }
        };
        let context = || {
            format!(
                "reusing {} as log segment {}",
                from.display(),
                path.display()
            )
        };
        self.fs
            .sync_dir(&self.dir)
            .and_then(|()| file.write_all(&segment::encode_header(id)))
            .and_then(|()| file.sync_data())
            .map_err(|e| Failure::Fatal(Error::io(context(), e)))?;
        info!(from = %from.display(), file = %path.display(), bytes = file.allocated(),
            "started a log segment in a reused file");
        Ok(Some(file))
    }

    /// Gives up the current segment after a write that failed for lack of space, and cuts
    /// it back to `valid_len` if it can.
    fn abandon(&mut self, valid_len: u64) -> std::result::Result<(), Failure> {
        let Some(open) = self.current.take() else {
            return Ok(());
        };
        warn!(
            file = %open.path.display(),
            valid_len,
            "the disk is full: abandoning the log segment, cut back to its last synced record; \
             the next write starts a new one"
        );
        self.torn = Some(Torn {
            id: open.id,
            path: open.path,
            valid_len,
            regions: open.regions,
        });
        self.cut_torn()
    }

    /// Cuts an abandoned segment back to its synced records; it is closed once cut.
    fn cut_torn(&mut self) -> std::result::Result<(), Failure> {
        let Some(torn) = &self.torn else {
            return Ok(());
        };
        if let Err(e) = self.fs.truncate(&torn.path, torn.valid_len) {
            let context = format!(
                "cutting log segment {} back to {} bytes",
                torn.path.display(),
                torn.valid_len
            );
            return Err(Failure::from_error(Error::io(context, e)));
        }
        if let Some(torn) = self.torn.take() {
            self.closed.push((torn.id, torn.regions));
        }
        Ok(())
    }
}

/// Makes room in `open` for a batch of `len` bytes and the end mark after it, `step`
/// bytes of zeros at a time up to `size_max_bytes`; a batch that ends past that (the last
/// before a roll) grows the file as it is written. Zeros are no log data: a failure to
/// write them (a full disk) leaves the batch to grow the file itself.
fn allocate(open: &mut Open, len: u64, size_max_bytes: u64, step: u64) {
    let needed = open.file.len() + len + NUMBERED_HEADER_LEN as u64;
    let allocated = open.file.allocated();
    if step == 0 || needed <= allocated || needed > size_max_bytes {
        return;
    }
    let up_to = allocated
        .saturating_add(step)
        .min(size_max_bytes)
        .max(needed);
    preallocate(open.file.as_mut(), &open.path, up_to);
}

/// Writes zeros up to `up_to` bytes of `file`; a failure is logged (see [`allocate`]).
fn preallocate(file: &mut dyn WritableFile, path: &Path, up_to: u64) {
    if let Err(e) = file.preallocate(up_to) {
        warn!(file = %path.display(), error = %e, up_to,
            "could not preallocate log segment space: its appends grow the file");
    }
}

fn create_file(
    fs: &dyn FileSystem,
    dir: &Path,
    path: &Path,
    id: u64,
    sync: bool,
    preallocate_bytes: u64,
) -> Result<Box<dyn WritableFile>> {
    let context = || format!("creating log segment {}", path.display());
    let mut file = fs.create(path).map_err(|e| Error::io(context(), e))?;
    file.write_all(&segment::encode_header(id))
        .map_err(|e| Error::io(context(), e))?;
    if preallocate_bytes > 0 {
        let up_to = segment::SEGMENT_HEADER_LEN as u64 + preallocate_bytes;
        preallocate(file.as_mut(), path, up_to);
    }
    if sync {
        file.sync_data()
            .and_then(|()| fs.sync_dir(dir))
            .map_err(|e| Error::io(context(), e))?;
    }
    Ok(file)
}

/// Removes a segment file whose creation failed (it holds no record). If it cannot be
/// removed it is harmless: it stays the newest segment, and the next attempt recreates it.
fn remove_partial(fs: &dyn FileSystem, path: &Path) {
    match fs.remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            warn!(file = %path.display(), error = %e, "could not remove a partly created log segment")
        }
    }
}
