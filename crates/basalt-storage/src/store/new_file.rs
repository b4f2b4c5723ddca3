//! A store file being written: created under `.tmp/` at its first cell, renamed into the
//! store's folder when finished, so a crash never leaves a partial file where readers look.

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
        })
    }

    /// Appends `cell` (in cell order), creating the file at the first one.
    pub fn append(&mut self, cell: &Cell) -> Result<()> {
        let writer = match &mut self.writer {
            Some(w) => w,
            None => self.writer.insert(HFileWriter::create(
                self.ctx.fs.as_ref(),
                &self.tmp,
                self.options.clone(),
            )?),
        };
        writer.append(cell)?;
        self.written += 1;
        Ok(())
    }

    /// Finishes and publishes the file in the store's folder; returns the cells written,
    /// or `None` (and no file) when nothing was appended.
    pub fn finish(self) -> Result<Option<u64>> {
        let Some(writer) = self.writer else {
            return Ok(None);
        };
        writer.finish()?;
        let path = self.dir.join(&self.name);
        self.ctx
            .fs
            .rename(&self.tmp, &path)
            .map_err(|e| Error::io(format!("publishing {}", path.display()), e))?;
        self.ctx
            .fs
            .sync_dir(self.dir)
            .map_err(|e| Error::io(format!("syncing {}", self.dir.display()), e))?;
        Ok(Some(self.written))
    }
}
