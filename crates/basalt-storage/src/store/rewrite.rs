//! Writing a new store file from sorted cells, keeping what the compaction rules keep.
//!
//! Flushes and compactions are the same loop: merge the inputs, ask the compaction matcher
//! about each cell, append the survivors to a new HFile under a temporary name, and rename
//! it into the store's folder. The caller publishes it (manifest, then file list).

use crate::context::Context;
use crate::hfile::{HFileWriter, WriterOptions};
use crate::scanner::heap::MergeHeap;
use crate::scanner::matcher::{
    CompactionKind, CompactionMatcher, CompactionOptions, MatchCode, QueryMatcher,
};
use crate::scanner::CellSource;
use crate::{Error, Result};
use basalt_types::{Cell, FamilyDescriptor};
use bytes::Bytes;
use std::path::Path;

/// Why a file is being written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RewriteKind {
    Flush,
    Minor,
    Major,
}

/// Writes the surviving cells of `sources` as file `id` in `dir`; returns the number of
/// cells written, or `None` (and no file) when nothing survives.
pub fn rewrite(
    ctx: &Context,
    family: &FamilyDescriptor,
    dir: &Path,
    sources: Vec<Box<dyn CellSource>>,
    kind: RewriteKind,
    id: u64,
    now_ms: i64,
) -> Result<Option<u64>> {
    let mut heap = MergeHeap::new(sources, false);
    heap.position(&Bytes::new(), true)?;
    let matcher_kind = match kind {
        RewriteKind::Flush => CompactionKind::Flush,
        RewriteKind::Minor => CompactionKind::Minor,
        RewriteKind::Major => CompactionKind::Major,
    };
    let mut matcher = CompactionMatcher::new(family, CompactionOptions::new(matcher_kind, now_ms));
    let tmp_dir = dir.join(super::STAGING_DIR);
    ctx.fs
        .create_dir_all(&tmp_dir)
        .map_err(|e| Error::io(format!("creating {}", tmp_dir.display()), e))?;
    let name = super::file::file_name(id);
    let tmp = tmp_dir.join(&name);
    let options = WriterOptions::for_family(family, &ctx.config);
    let mut writer: Option<HFileWriter> = None;
    let mut written = 0u64;
    let mut row: Option<Bytes> = None;
    while let Some(cell) = heap.peek() {
        let cell = cell.clone();
        if row.as_ref() != Some(&cell.row) {
            row = Some(cell.row.clone());
            matcher.start_row(&cell.row);
        }
        let code = matcher.match_cell(&cell, None);
        if code.includes() {
            let out = match &mut writer {
                Some(w) => w,
                None => writer.insert(HFileWriter::create(ctx.fs.as_ref(), &tmp, options.clone())?),
            };
            out.append(&cell)?;
            written += 1;
        }
        match code {
            // The row was started above; a matcher that still disagrees gets the row again.
            MatchCode::DoneRow => row = None,
            MatchCode::Include | MatchCode::Skip | MatchCode::SeekNextUsingHint => {
                heap.advance()?
            }
            // DeleteFamily markers share the empty qualifier: step, do not jump.
            MatchCode::IncludeAndSeekNextCol | MatchCode::SeekNextCol
                if cell.qualifier.is_empty() =>
            {
                heap.advance()?
            }
            MatchCode::IncludeAndSeekNextCol | MatchCode::SeekNextCol => {
                heap.seek(&Cell::last_on_column(
                    cell.row.clone(),
                    cell.family.clone(),
                    cell.qualifier.clone(),
                ))?;
            }
            MatchCode::IncludeAndSeekNextRow | MatchCode::SeekNextRow => {
                heap.next_row(&cell.row)?
            }
        }
    }
    let Some(writer) = writer else {
        return Ok(None);
    };
    writer.finish()?;
    let path = dir.join(&name);
    ctx.fs
        .rename(&tmp, &path)
        .map_err(|e| Error::io(format!("publishing {}", path.display()), e))?;
    ctx.fs
        .sync_dir(dir)
        .map_err(|e| Error::io(format!("syncing {}", dir.display()), e))?;
    Ok(Some(written))
}
