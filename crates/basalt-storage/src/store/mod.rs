//! A store: one column family's memstore and files inside a region.
//!
//! The store owns the family's data; the region decides when to flush and compact and
//! commits the results in its manifest. A store's file list is an immutable `Arc<Vec<_>>`
//! swapped whole, so a scanner keeps the files it started with while flushes and
//! compactions publish new ones.
//!
//! # Layout
//! - [`file`]: a published file and whether a scan needs it.
//! - [`reference`]: a file that is (part of) another region's file, after a split or merge.
//! - [`half`]: the cells of a reference, clamped at its split row.
//! - [`rewrite`]: writing a compaction's file from sorted files through the compaction
//!   matcher; [`flush`]: the same for a frozen memstore segment; [`new_file`]: the file
//!   being written, renamed into place when done.

pub mod file;
mod flush;
pub mod half;
mod new_file;
pub mod reference;
mod rewrite;

pub use file::StoreFile;
pub use rewrite::RewriteKind;

use crate::compaction::throttle::{Pace, ThroughputBounds};
use crate::context::Context;
use crate::hfile::reader::CacheOptions;
use crate::hfile::HFileReader;
use crate::memstore::{Memstore, Segment, SegmentCursor};
use crate::region::manifest::FileEntry;
use crate::scanner::visible::VisibleSource;
use crate::scanner::CellSource;
use crate::{Error, Result};
use basalt_types::{Cell, FamilyDescriptor, Scan};
use parking_lot::RwLock;
use reference::Reference;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Block-cache ids of open files: one per open reader in the process, so two regions' files
/// with the same manifest id (every region counts from 1), or a parent's file and its
/// daughters' references to it, never share cached blocks under one key.
static NEXT_CACHE_ID: AtomicU64 = AtomicU64::new(1);

/// The folder inside a family's folder where new files are written before they are
/// published; whatever it holds at open is a leftover of an interrupted write.
pub const STAGING_DIR: &str = ".tmp";

#[derive(Debug)]
pub struct Store {
    family: FamilyDescriptor,
    dir: PathBuf,
    ctx: Context,
    memstore: Memstore,
    /// Oldest first.
    files: RwLock<Arc<Vec<Arc<StoreFile>>>>,
}

/// The folder of a family inside its region: the name when it is plain UTF-8, else hex.
pub fn family_dir_name(family: &[u8]) -> String {
    match std::str::from_utf8(family) {
        Ok(name) if !name.starts_with("_x") => name.to_string(),
        _ => {
            let hex: String = family.iter().map(|b| format!("{b:02x}")).collect();
            format!("_x{hex}")
        }
    }
}

impl Store {
    /// Opens the store in `dir` (`<region>/<family>`) with the files the manifest names;
    /// references are resolved against the region folder's siblings.
    pub fn open(
        ctx: Context,
        family: FamilyDescriptor,
        dir: PathBuf,
        entries: &[FileEntry],
    ) -> Result<Self> {
        ctx.fs
            .create_dir_all(&dir)
            .map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
        let mut files = Vec::with_capacity(entries.len());
        for entry in entries {
            let file = match &entry.reference {
                None => open_file(&ctx, &family, &dir, entry.id)?,
                Some(reference) => open_reference(&ctx, &family, &dir, entry.id, reference)?,
            };
            files.push(Arc::new(file));
        }
        Ok(Self {
            family,
            dir,
            ctx,
            memstore: Memstore::new(),
            files: RwLock::new(Arc::new(files)),
        })
    }

    pub fn family(&self) -> &FamilyDescriptor {
        &self.family
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Adds a written cell to the memstore; returns the bytes added.
    pub fn add(&self, cell: Cell) -> u64 {
        debug_assert_eq!(cell.family(), self.family.name);
        self.memstore.insert(cell)
    }

    pub fn memstore_size_bytes(&self) -> u64 {
        self.memstore.size_bytes()
    }

    /// Cells in the memstore (its snapshot included).
    pub fn memstore_cell_count(&self) -> usize {
        self.memstore.segments().iter().map(|s| s.len()).sum()
    }

    pub fn files(&self) -> Arc<Vec<Arc<StoreFile>>> {
        self.files.read().clone()
    }

    pub fn file_size_bytes(&self) -> u64 {
        self.files().iter().map(|f| f.size_bytes()).sum()
    }

    /// Whether any file is a reference to another region's file.
    pub fn has_references(&self) -> bool {
        self.files().iter().any(|f| f.is_reference())
    }

    /// The sources a scan merges: the memstore's segments at `read_point`, then the files
    /// that may hold what the scan asks for (those holding newer cells, which only a scan
    /// asking for an older read point meets, through [`VisibleSource`]).
    pub fn sources(
        &self,
        scan: &Scan,
        read_point: u64,
        single_row: bool,
    ) -> Vec<Box<dyn CellSource>> {
        let mut sources: Vec<Box<dyn CellSource>> = Vec::new();
        for segment in self.memstore.segments() {
            if !segment.is_empty() {
                sources.push(Box::new(SegmentCursor::new(segment, read_point)));
            }
        }
        let cache_blocks = scan.cache_blocks && self.family.block_cache;
        let qualifiers = scan
            .columns
            .qualifiers(&self.family.name)
            .filter(|q| q.len() == 1);
        let column = qualifiers
            .and_then(|q| q.iter().next())
            .map(|q| (self.family.name.as_ref(), q.as_ref()));
        for file in self.files().iter().rev() {
            if !file.may_serve(scan, single_row, column) {
                continue;
            }
            let source = file.source(cache_blocks);
            if file.reader.info().max_seq_id <= read_point {
                sources.push(source);
                continue;
            }
            // The region takes a scan's read point and sources between flush snapshots, so
            // a file holds cells newer than the read point only when the scan asked for an
            // older point (a scanner reopened after its region moved): hide them.
            debug_assert!(
                scan.read_point.is_some(),
                "file {} holds cells newer than the scan's read point {read_point}",
                file.id
            );
            sources.push(Box::new(VisibleSource::new(source, read_point)));
        }
        sources
    }

    /// Freezes the memstore for a flush.
    pub fn snapshot(&self) -> Arc<Segment> {
        self.memstore.snapshot()
    }

    /// Writes a frozen memstore to file `id` (not yet published); `None` when nothing
    /// survives the flush rules.
    pub fn write_snapshot(
        &self,
        snapshot: &Arc<Segment>,
        id: u64,
    ) -> Result<Option<Arc<StoreFile>>> {
        let now_ms = self.ctx.clock.now_ms();
        let written = flush::write(&self.ctx, &self.family, &self.dir, snapshot, id, now_ms)?;
        self.opened(written, id)
    }

    /// Rewrites `inputs` into file `id` (not yet published).
    pub fn write_compaction(
        &self,
        inputs: &[Arc<StoreFile>],
        major: bool,
        id: u64,
    ) -> Result<Option<Arc<StoreFile>>> {
        let sources = inputs.iter().map(|f| f.source(false)).collect();
        let kind = if major {
            RewriteKind::Major
        } else {
            RewriteKind::Minor
        };
        let config = &self.ctx.config;
        let bounds = ThroughputBounds {
            lower: config.compaction_throughput_lower_bytes_per_sec,
            higher: config.compaction_throughput_higher_bytes_per_sec,
        };
        let limit = bounds.limit(
            self.files().len(),
            config.compaction_min_files,
            config.blocking_store_files,
        );
        let now_ms = self.ctx.clock.now_ms();
        let written = rewrite::rewrite(
            &self.ctx,
            &self.family,
            &self.dir,
            sources,
            (kind, Pace::new(limit)),
            id,
            now_ms,
        )?;
        self.opened(written, id)
    }

    /// Opens file `id` once written; `None` when nothing was.
    fn opened(&self, written: Option<u64>, id: u64) -> Result<Option<Arc<StoreFile>>> {
        match written {
            None => Ok(None),
            Some(_) => Ok(Some(Arc::new(open_file(
                &self.ctx,
                &self.family,
                &self.dir,
                id,
            )?))),
        }
    }

    /// Publishes a flush: adds its file and drops the snapshot it came from; returns the
    /// memstore bytes freed.
    pub fn publish_flush(&self, file: Option<Arc<StoreFile>>) -> u64 {
        self.publish_new(file.into_iter().collect());
        self.memstore.clear_snapshot()
    }

    /// Publishes the files of a bulk load, newest last, as a flush publishes its file.
    pub fn publish_bulk_load(&self, files: Vec<Arc<StoreFile>>) {
        self.publish_new(files);
    }

    /// Appends newly committed files to the file list (one swap: readers see all or none).
    fn publish_new(&self, new_files: Vec<Arc<StoreFile>>) {
        if new_files.is_empty() {
            return;
        }
        let mut files = self.files.write();
        let mut next = files.as_ref().clone();
        next.extend(new_files);
        *files = Arc::new(next);
    }

    /// Where files are written before they are published (removed whole at open).
    pub fn staging_dir(&self) -> PathBuf {
        self.dir.join(STAGING_DIR)
    }

    /// Opens this store's own file `id` (already in the store's folder, not yet published).
    pub fn open_own_file(&self, id: u64) -> Result<Arc<StoreFile>> {
        open_file(&self.ctx, &self.family, &self.dir, id).map(Arc::new)
    }

    /// Publishes a compaction: replaces `inputs` by `output` (kept in the inputs' place in
    /// age order) and deletes the inputs' own files (a reference's source file belongs to
    /// another region).
    pub fn publish_compaction(&self, inputs: &[Arc<StoreFile>], output: Option<Arc<StoreFile>>) {
        {
            let mut files = self.files.write();
            let position = files
                .iter()
                .position(|f| inputs.iter().any(|i| i.id == f.id));
            let mut next: Vec<Arc<StoreFile>> = files
                .iter()
                .filter(|f| !inputs.iter().any(|i| i.id == f.id))
                .cloned()
                .collect();
            if let Some(output) = output {
                next.insert(position.unwrap_or(0).min(next.len()), output);
            }
            *files = Arc::new(next);
        }
        for input in inputs {
            input.reader.evict_from_cache();
            if input.is_reference() {
                continue;
            }
            if let Err(e) = self.ctx.fs.remove_file(&input.path) {
                tracing::warn!(file = %input.path.display(), error = %e, "could not delete a compacted file");
            }
        }
    }

    /// File ids in age order, as the manifest records them.
    pub fn file_ids(&self) -> Vec<u64> {
        self.files().iter().map(|f| f.id).collect()
    }

    /// The manifest entries of the files, in age order.
    pub fn file_entries(&self) -> Vec<FileEntry> {
        self.files()
            .iter()
            .map(|f| FileEntry {
                id: f.id,
                reference: f.reference.clone(),
            })
            .collect()
    }
}

fn open_file(ctx: &Context, family: &FamilyDescriptor, dir: &Path, id: u64) -> Result<StoreFile> {
    let path = dir.join(file::file_name(id));
    let reader = open_reader(ctx, family, &path)?;
    Ok(StoreFile::new(id, &path, reader))
}

/// Opens reference `id` of the store in `dir`: its source file in a sibling region folder.
fn open_reference(
    ctx: &Context,
    family: &FamilyDescriptor,
    dir: &Path,
    id: u64,
    reference: &Reference,
) -> Result<StoreFile> {
    let region_dir = dir.parent().unwrap_or(Path::new(""));
    let path = reference.source_path(region_dir, &family.name);
    let reader = open_reader(ctx, family, &path)?;
    Ok(StoreFile::referencing(id, reference.clone(), reader))
}

fn open_reader(ctx: &Context, family: &FamilyDescriptor, path: &Path) -> Result<Arc<HFileReader>> {
    HFileReader::open_with(
        ctx.fs.as_ref(),
        path,
        NEXT_CACHE_ID.fetch_add(1, Ordering::Relaxed),
        ctx.cache.clone(),
        CacheOptions::for_family(family),
    )
}
