//! A store file being written: created under `.tmp/` at its first cell, renamed into the
//! store's folder when finished, so a crash never leaves a partial file where readers look.
//! A write that fails (a full disk, say) removes what it wrote: the file is this job's own
//! output, which nothing else names yet.

use crate::context::Context;
use crate::hfile::{HFileWriter, WriterOptions};
use crate::{Error, Result};
use basalt_types::{Cell, FamilyDescriptor};
use std::path::{Path, PathBuf};

/// File `id` of a store, written cell by cell.
pub struct NewFile<'a> {
    ctx: &'a Context,
    dir: &'a Path,
    name: String,
    tmp: PathBuf,
    options: WriterOptions,
    writer: Option<HFileWriter>,
    written: u64,
    /// Where a file of ours may be lying that no one will use if we fail now.
    leftover: Option<PathBuf>,
}

impl<'a> NewFile<'a> {
    /// Prepares file `id` in `dir` (creating `dir/.tmp`); nothing is written yet.
    pub fn new(
        ctx: &'a Context,
        family: &FamilyDescriptor,
        dir: &'a Path,
        id: u64,
    ) -> Result<Self> {
        let tmp_dir = dir.join(super::STAGING_DIR);
        ctx.fs
            .create_dir_all(&tmp_dir)
            .map_err(|e| Error::io(format!("creating {}", tmp_dir.display()), e))?;
        let name = super::file::file_name(id);
        Ok(Self {
            ctx,
            dir,
            tmp: tmp_dir.join(&name),
            name,
            options: WriterOptions::for_family(family, &ctx.config),
            writer: None,
            written: 0,
            leftover: None,
        })
    }

    /// Appends `cell` (in cell order), creating the file at the first one.
    pub fn append(&mut self, cell: &Cell) -> Result<()> {
        let writer = match &mut self.writer {
            Some(w) => w,
            None => {
                self.leftover = Some(self.tmp.clone());
                self.writer.insert(HFileWriter::create(
                    self.ctx.fs.as_ref(),
                    &self.tmp,
                    self.options.clone(),
                )?)
            }
        };
        writer.append(cell)?;
        self.written += 1;
        Ok(())
    }

    /// Finishes and publishes the file in the store's folder; returns the cells written,
    /// or `None` (and no file) when nothing was appended.
    pub fn finish(mut self) -> Result<Option<u64>> {
        let Some(writer) = self.writer.take() else {
            return Ok(None);
        };
        writer.finish()?;
        let path = self.dir.join(&self.name);
        self.ctx
            .fs
            .rename(&self.tmp, &path)
            .map_err(|e| Error::io(format!("publishing {}", path.display()), e))?;
        self.leftover = Some(path);
        self.ctx
            .fs
            .sync_dir(self.dir)
            .map_err(|e| Error::io(format!("syncing {}", self.dir.display()), e))?;
        self.leftover = None;
        Ok(Some(self.written))
    }
}

impl Drop for NewFile<'_> {
    /// Removes the file of a write that failed (or was given up) before it finished.
    fn drop(&mut self) {
        drop(self.writer.take());
        let Some(path) = self.leftover.take() else {
            return;
        };
        match self.ctx.fs.remove_file(&path) {
            Ok(()) => {
                tracing::info!(file = %path.display(), "removed the file of a write that failed")
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => tracing::warn!(file = %path.display(), error = %e,
                "could not remove the file of a write that failed (removed at the next open)"),
        }
    }
}
