//! Writing a new store file from sorted files, keeping what the compaction rules keep.
//!
//! A compaction merges its input files, asks the compaction matcher about each cell, and
//! appends the survivors to a [`NewFile`]. The caller publishes it (manifest, then file
//! list). Flushes take the same decisions over a memstore segment in [`super::flush`].

use super::new_file::NewFile;
use crate::compaction::throttle::Pace;
use crate::context::Context;
use crate::scanner::heap::MergeHeap;
use crate::scanner::matcher::{
    CompactionKind, CompactionMatcher, CompactionOptions, MatchCode, QueryMatcher,
};
use crate::scanner::CellSource;
use crate::Result;
use basalt_types::{Cell, FamilyDescriptor};
use bytes::Bytes;
use std::path::Path;
use std::time::Instant;

/// Cells stepped over before a skip to the next column or row becomes a seek.
const STEPS_BEFORE_SEEK_MAX: usize = 8;

/// Which compaction a file is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RewriteKind {
    Minor,
    Major,
}

/// Writes the surviving cells of `sources` as file `id` in `dir`, keeping to `pace`;
/// returns the number of cells written, or `None` (and no file) when nothing survives.
pub fn rewrite(
    ctx: &Context,
    family: &FamilyDescriptor,
    dir: &Path,
    sources: Vec<Box<dyn CellSource>>,
    (kind, mut pace): (RewriteKind, Pace),
    id: u64,
    now_ms: i64,
) -> Result<Option<u64>> {
    let started = Instant::now();
    let mut written_bytes = 0u64;
    let mut heap = MergeHeap::new(sources, false);
    heap.position(&Bytes::new(), true)?;
    let matcher_kind = match kind {
        RewriteKind::Minor => CompactionKind::Minor,
        RewriteKind::Major => CompactionKind::Major,
    };
    let mut matcher = CompactionMatcher::new(family, CompactionOptions::new(matcher_kind, now_ms));
    let mut out = NewFile::new(ctx, family, dir, id)?;
    let mut row: Option<Bytes> = None;
    while let Some(cell) = heap.peek() {
        let cell = cell.clone();
        if row.as_deref() != Some(cell.row()) {
            row = Some(cell.row_bytes());
            matcher.start_row(cell.row());
        }
        let code = matcher.match_cell(&cell, None);
        if code.includes() {
            out.append(&cell)?;
            written_bytes += (cell.row().len()
                + cell.family().len()
                + cell.qualifier().len()
                + cell.value().len()) as u64;
            let pause = pace.wait(written_bytes, started.elapsed());
            if !pause.is_zero() {
                ctx.jobs.pace_compaction(pause);
            }
        }
        match code {
            // The row was started above; a matcher that still disagrees gets the row again.
            MatchCode::DoneRow => row = None,
            MatchCode::Include | MatchCode::Skip | MatchCode::SeekNextUsingHint => {
                heap.advance()?
            }
            // DeleteFamily markers share the empty qualifier: step, do not jump.
            MatchCode::IncludeAndSeekNextCol | MatchCode::SeekNextCol
                if cell.qualifier().is_empty() =>
            {
                heap.advance()?
            }
            MatchCode::IncludeAndSeekNextCol | MatchCode::SeekNextCol => {
                if !step_past(&mut heap, |next| next.same_column(&cell))? {
                    heap.seek(&Cell::last_on_column(
                        cell.row_bytes(),
                        cell.family_bytes(),
                        cell.qualifier_bytes(),
                    ))?;
                }
            }
            MatchCode::IncludeAndSeekNextRow | MatchCode::SeekNextRow => {
                if !step_past(&mut heap, |next| next.row() == cell.row())? {
                    heap.next_row(&cell.row_bytes())?
                }
            }
        }
    }
    if let Some(limit) = pace.limit() {
        tracing::debug!(
            family = %String::from_utf8_lossy(&family.name),
            bytes = written_bytes,
            secs = started.elapsed().as_secs_f64(),
            limit_mib_s = limit as f64 / 1048576.0,
            "compaction paced"
        );
    }
    out.finish()
}

/// Steps `heap` past the cell it stands on and the cells after it that `within` holds
/// for, at most [`STEPS_BEFORE_SEEK_MAX`] steps; false if it gave up before getting past.
///
/// A compaction that keeps one version per column is told to seek after almost every cell, yet the next column is nearly always the very next cell: stepping there
/// costs one comparison where a seek repositions every source (HBase's StoreScanner
/// tries the same before seeking).
fn step_past(heap: &mut MergeHeap, within: impl Fn(&Cell) -> bool) -> Result<bool> {
    for _ in 0..STEPS_BEFORE_SEEK_MAX {
        heap.advance()?;
        match heap.peek() {
            Some(next) if within(next) => {}
            _ => return Ok(true),
        }
    }
    Ok(false)
}
