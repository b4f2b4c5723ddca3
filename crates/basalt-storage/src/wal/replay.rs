//! Opening a log folder: read every segment, oldest first; repair a torn tail; report the
//! rest of the damage instead of refusing the whole log.
//!
//! | what a segment holds                                  | newest segment    | any other    |
//! |-------------------------------------------------------|-------------------|--------------|
//! | records to its end                                    | fine              | fine         |
//! | records, then unused space (format 3: zeros, or a reused file's old records) | fine | fine |
//! | damage with no readable record after it               | torn tail: cut    | damaged span |
//! | damage with readable records after it                 | damaged span      | damaged span |
//! | a sound header of a newer format version              | refused           | refused      |
//! | a sound header naming another segment id, or no log   | error             | error        |
//!
//! A torn tail is what a power loss leaves: zeros, garbage, a partial record, a short or
//! unreadable header. It is cut back to the last readable record and the cut bytes are kept
//! in `corrupt/`; a file whose header is gone is moved there whole.
//!
//! A crash can only tear the segment being written (a segment is synced completely before
//! the next one is created), so a torn tail anywhere else is damage. "No readable record
//! after it" is checked, not assumed: see `scan`.
//!
//! What a damaged span costs depends on [`RecoveryMode`]:
//! - `Refuse` ([`super::Wal::open`]): the log does not open; nothing on disk changes.
//! - `FailNeedingRegions` (the engine's default): the log opens with every readable edit;
//!   the damaged segments are returned, kept on disk and never handed to retention, and
//!   each region decides at open whether it needs them (`damage`).
//! - `SkipCorrupt` (`--skip-corrupt-wal`, HBase's `hbase.hlog.split.skip.errors`): each
//!   damaged segment is copied to `corrupt/` and rewritten with its readable records only,
//!   so those stay durable until flushed; regions open and log what they may have lost.
//!
//! Every segment is read and checked before anything is changed on disk.

use super::corrupt;
use super::damage::{attach_evidence, DamagedSegment, DamagedSpan};
use super::edit::WalEdit;
use super::scan::{scan, Scanned, Stretch};
use super::segment::{self, SEGMENT_HEADER_LEN};
use crate::error::{Error, FileKind, Result};
use crate::fs::{self, FileSystem};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use tracing::{info, warn};

/// What to do about damage that is not a torn tail.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RecoveryMode {
    /// Refuse to open the log.
    Refuse,
    /// Open, and report the damaged segments for each region to judge.
    #[default]
    FailNeedingRegions,
    /// Set each damaged segment aside, keep its readable records, open.
    SkipCorrupt,
}

/// What a log folder held.
#[derive(Debug)]
pub struct Replayed {
    /// Every readable edit, in log order.
    pub edits: Vec<WalEdit>,
    /// The undamaged segments (and, after `SkipCorrupt`, the rewritten ones), oldest first,
    /// with each one's highest sequence id per region: what retention tracks.
    pub segments: Vec<(u64, HashMap<String, u64>)>,
    pub damaged: Vec<DamagedSegment>,
    /// The id for the next segment: above every id ever seen in the folder.
    pub next_id: u64,
}

/// One segment as read.
struct Read {
    id: u64,
    path: PathBuf,
    /// Its bytes, if it is the newest or damaged (empty otherwise).
    bytes: Vec<u8>,
    scanned: Scanned,
}

pub fn replay(fs: &dyn FileSystem, dir: &Path, mode: RecoveryMode) -> Result<Replayed> {
    fs.create_dir_all(dir)
        .map_err(|e| Error::io(format!("creating log folder {}", dir.display()), e))?;
    let ids = segment_ids(fs, dir)?;
    // Above the free files' ids too: a reused file's old records and header must name an
    // earlier segment than the one it becomes.
    let highest = ids
        .last()
        .copied()
        .max(corrupt::highest_id(fs, dir)?)
        .max(highest_free_id(fs, dir)?);
    let next_id = highest
        .map_or(Some(1), |id| id.checked_add(1))
        .ok_or_else(|| {
            Error::corruption(
                FileKind::WalSegment,
                dir,
                0,
                "log segment ids are exhausted",
            )
        })?;
    let sealed = sealed_record(fs, dir)?;
    let ids: Vec<u64> = match &sealed {
        None => ids,
        Some(sealed) => ids
            .into_iter()
            .filter(|&id| {
                let name = segment::file_name(id);
                let kept = sealed.names(&name);
                if !kept {
                    warn!(dir = %dir.display(), segment = %name,
                        "a segment written after the log was sealed is not replayed: nothing in it was acknowledged");
                }
                kept
            })
            .collect(),
    };
    let mut read = Vec::with_capacity(ids.len());
    let newest = ids.last().copied();
    for id in ids {
        let path = dir.join(segment::file_name(id));
        let mut bytes = fs::read_all(fs, &path)
            .map_err(|e| Error::io(format!("reading log segment {}", path.display()), e))?;
        if let Some(end) = sealed
            .as_ref()
            .and_then(|s| s.length_of(&segment::file_name(id)))
        {
            if (bytes.len() as u64) > end {
                info!(segment = %path.display(), sealed = end, found = bytes.len(),
                    "reading a sealed segment to its sealed length: the rest was never acknowledged");
                bytes.truncate(end as usize);
            }
            if bytes.len() < SEGMENT_HEADER_LEN {
                info!(segment = %path.display(), "a sealed segment without a whole header holds no edit");
                continue;
            }
        }
        let header = bytes
            .get(..SEGMENT_HEADER_LEN)
            .and_then(|h| h.try_into().ok());
        if let Some(found) = header.and_then(segment::newer_version) {
            let what = "write-ahead log segment";
            return Err(Error::newer_format(
                &path,
                what,
                found,
                segment::SEGMENT_VERSION,
            ));
        }
        let scanned = scan(&bytes, id)
            .map_err(|reason| Error::corruption(FileKind::WalSegment, &path, 0, reason))?;
        // Only a damaged segment, or the newest (its tail may be cut), is acted on later:
        // the others' bytes are not kept in memory meanwhile.
        if scanned.stretches.is_empty() && Some(id) != newest {
            bytes = Vec::new();
        }
        read.push(Read {
            id,
            path,
            bytes,
            scanned,
        });
    }
    let torn = read.last_mut().and_then(|last| {
        let is_tail = last.scanned.stretches.last().is_some_and(|s| s.tail);
        is_tail.then(|| last.scanned.stretches.pop()).flatten()
    });
    if mode == RecoveryMode::Refuse {
        if let Some(r) = read.iter().find(|r| !r.scanned.stretches.is_empty()) {
            let s = &r.scanned.stretches[0];
            return Err(Error::corruption(
                FileKind::WalSegment,
                &r.path,
                s.offset as u64,
                format!("{} bytes cannot be read: {}", s.len, s.reason),
            ));
        }
    }
    if let (Some(stretch), Some(last)) = (&torn, read.last()) {
        // A sealed folder belongs to crash recovery: its torn tail (a record its writer
        // never synced before the seal) is left as it is, and simply not replayed.
        if sealed.is_some() {
            info!(segment = %last.path.display(), offset = stretch.offset,
                "a sealed segment ends in a partial record: not replayed, left as it is");
        } else if drop_torn_tail(fs, dir, last, stretch)? == Tail::WholeFile {
            read.pop();
        }
    }
    let replayed = collect(fs, dir, read, mode, next_id)?;
    info!(
        dir = %dir.display(),
        segments = replayed.segments.len(),
        damaged = replayed.damaged.len(),
        edits = replayed.edits.len(),
        "replayed the write-ahead log"
    );
    Ok(replayed)
}

/// The seal record of `dir`, if crash recovery sealed it (an empty one, from a seal that
/// did not finish, counts as none: nobody replays a folder before its seal is done).
fn sealed_record(fs: &dyn FileSystem, dir: &Path) -> Result<Option<fs::SealedLogs>> {
    let path = dir.join(fs::SEAL_RECORD);
    let present = fs
        .exists(&path)
        .map_err(|e| Error::io(format!("looking for {}", path.display()), e))?;
    if !present {
        return Ok(None);
    }
    let text =
        fs::read_all(fs, &path).map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
    if text.is_empty() {
        return Ok(None);
    }
    let text = String::from_utf8_lossy(&text);
    fs::SealedLogs::decode(&text).map(Some).ok_or_else(|| {
        Error::corruption(
            FileKind::WalSegment,
            &path,
            0,
            format!("not a seal record: {text:?}"),
        )
    })
}

/// The highest id among the free files (kept for reuse) in `dir`.
fn highest_free_id(fs: &dyn FileSystem, dir: &Path) -> Result<Option<u64>> {
    let names = fs
        .list(dir)
        .map_err(|e| Error::io(format!("listing log folder {}", dir.display()), e))?;
    Ok(names
        .iter()
        .filter_map(|n| super::recycle::parse_free_name(n))
        .max())
}

/// The ids of the segment files in `dir`, oldest first.
fn segment_ids(fs: &dyn FileSystem, dir: &Path) -> Result<Vec<u64>> {
    let names = fs
        .list(dir)
        .map_err(|e| Error::io(format!("listing log folder {}", dir.display()), e))?;
    let mut ids = Vec::new();
    for name in names {
        match segment::parse_file_name(&name) {
            Some(id) => ids.push(id),
            None if name == corrupt::CORRUPT_DIR || name == crate::fs::SEAL_RECORD => {}
            None if super::recycle::parse_free_name(&name).is_some() => {}
            None => {
                warn!(file = %name, dir = %dir.display(), "ignoring a file that is not a log segment")
            }
        }
    }
    ids.sort_unstable();
    Ok(ids)
}

/// Gathers the edits, the segments for retention and the damaged segments (setting them
/// aside in `SkipCorrupt`), and fills each span's evidence.
fn collect(
    fs: &dyn FileSystem,
    dir: &Path,
    read: Vec<Read>,
    mode: RecoveryMode,
    next_id: u64,
) -> Result<Replayed> {
    let mut replayed = Replayed {
        edits: Vec::new(),
        segments: Vec::new(),
        damaged: Vec::new(),
        next_id,
    };
    let mut at = Vec::new();
    for r in read {
        let mut regions: HashMap<String, u64> = HashMap::new();
        for (edit, _) in &r.scanned.edits {
            if edit.mark_ms().is_some() {
                continue;
            }
            let max = regions.entry(edit.region.clone()).or_insert(edit.seq_id);
            *max = (*max).max(edit.seq_id);
        }
        let before = replayed.edits.len();
        if r.scanned.stretches.is_empty() {
            replayed.segments.push((r.id, regions));
        } else {
            at.extend(r.scanned.stretches.iter().map(|s| before + s.edits_before));
            let mut damaged = damaged_segment(&r, regions);
            report(&damaged);
            if mode == RecoveryMode::SkipCorrupt {
                damaged.set_aside = Some(set_aside(fs, dir, &r)?);
                replayed.segments.push((r.id, damaged.regions.clone()));
            }
            replayed.damaged.push(damaged);
        }
        replayed
            .edits
            .extend(r.scanned.edits.into_iter().map(|(edit, _)| edit));
    }
    let edits: Vec<(&str, u64)> = replayed
        .edits
        .iter()
        .map(|e| (e.region.as_str(), e.seq_id))
        .collect();
    let mut spans: Vec<&mut DamagedSpan> = replayed
        .damaged
        .iter_mut()
        .flat_map(|d| d.spans.iter_mut())
        .collect();
    attach_evidence(&mut spans, &at, &edits);
    // Time marks are no region's edits (point-in-time restore reads them itself).
    replayed.edits.retain(|e| e.mark_ms().is_none());
    Ok(replayed)
}

fn damaged_segment(r: &Read, regions: HashMap<String, u64>) -> DamagedSegment {
    let spans = r
        .scanned
        .stretches
        .iter()
        .map(|s: &Stretch| DamagedSpan {
            offset: s.offset as u64,
            len: s.len as u64,
            reason: s.reason.clone(),
            hint: s.hint.clone(),
            single_record: s.single_record,
            owner: None,
            last_before: Default::default(),
            first_after: Default::default(),
        })
        .collect();
    DamagedSegment {
        id: r.id,
        file: r.path.clone(),
        regions,
        spans,
        set_aside: None,
    }
}

fn report(damaged: &DamagedSegment) {
    for span in &damaged.spans {
        let hint = span
            .hint
            .as_ref()
            .map(|h| format!("{} seq {}", h.region, h.seq_id));
        warn!(
            file = %damaged.file.display(),
            offset = span.offset,
            bytes = span.len,
            reason = %span.reason,
            record_hint = hint.as_deref().unwrap_or("none"),
            "corrupt WAL segment: damaged bytes that are not a torn tail"
        );
    }
}

/// Copies a damaged segment into the corrupt folder, then replaces it with its readable
/// records (atomically), so that those stay in the log until flushed. A crash in between
/// leaves the original in place, to be set aside again.
fn set_aside(fs: &dyn FileSystem, dir: &Path, r: &Read) -> Result<PathBuf> {
    let name = segment::file_name(r.id);
    let kept = corrupt::keep_copy(fs, dir, &name, &r.bytes)?;
    let mut rewritten = segment::encode_header_version(r.id, r.scanned.version).to_vec();
    for (_, range) in &r.scanned.edits {
        rewritten.extend_from_slice(&r.bytes[range.clone()]);
    }
    fs::write_atomic(fs, &r.path, &rewritten)
        .map_err(|e| Error::io(format!("rewriting log segment {}", r.path.display()), e))?;
    warn!(
        file = %r.path.display(),
        kept = %kept.display(),
        records = r.scanned.edits.len(),
        "--skip-corrupt-wal: set a damaged log segment aside and kept only its readable records"
    );
    Ok(kept)
}

#[derive(Debug, PartialEq, Eq)]
enum Tail {
    Cut,
    WholeFile,
}

/// Cuts the newest segment back to its last readable record, keeping the cut bytes in the
/// corrupt folder; a segment whose header is gone is moved there whole.
fn drop_torn_tail(fs: &dyn FileSystem, dir: &Path, r: &Read, tail: &Stretch) -> Result<Tail> {
    if tail.offset < SEGMENT_HEADER_LEN {
        let to = corrupt::move_aside(fs, dir, &r.path)?;
        warn!(
            file = %r.path.display(),
            moved_to = %to.display(),
            bytes = r.bytes.len(),
            reason = %tail.reason,
            "the newest log segment has no readable header nor record: moved aside"
        );
        return Ok(Tail::WholeFile);
    }
    let name = format!("{}.tail-at-{}", segment::file_name(r.id), tail.offset);
    let kept = corrupt::keep_copy(fs, dir, &name, &r.bytes[tail.offset..])?;
    fs.truncate(&r.path, tail.offset as u64)
        .map_err(|e| Error::io(format!("truncating torn tail of {}", r.path.display()), e))?;
    warn!(
        file = %r.path.display(),
        offset = tail.offset,
        bytes_dropped = tail.len,
        kept = %kept.display(),
        reason = %tail.reason,
        "cut a torn tail off the newest log segment: no readable record follows"
    );
    Ok(Tail::Cut)
}
