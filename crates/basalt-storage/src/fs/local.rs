//! [`FileSystem`] on the local disk.

use super::write_behind::WriteBehind;
use super::{FileSystem, ReadableFile, WritableFile};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;

#[derive(Debug, Default, Clone, Copy)]
pub struct LocalFs;

#[derive(Debug)]
struct LocalWritable {
    file: File,
    len: u64,
    /// Started by the first [`WritableFile::start_sync`]; stopped by the next sync.
    write_behind: Option<WriteBehind>,
}

impl WritableFile for LocalWritable {
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.file.write_all(buf)?;
        self.len += buf.len() as u64;
        Ok(())
    }

    fn sync_data(&mut self) -> io::Result<()> {
        if let Some(error) = self.write_behind.take().and_then(WriteBehind::finish) {
            return Err(error);
        }
        self.file.sync_data()
    }

    fn start_sync(&mut self) -> io::Result<()> {
        if self.write_behind.is_none() {
            self.write_behind = Some(WriteBehind::start(self.file.try_clone()?)?);
        }
        if let Some(helper) = &self.write_behind {
            helper.request();
        }
        Ok(())
    }

    fn len(&self) -> u64 {
        self.len
    }
}

#[derive(Debug)]
struct LocalReadable {
    file: File,
    len: u64,
}

impl ReadableFile for LocalReadable {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.file.read_exact_at(buf, offset)
    }

    fn len(&self) -> u64 {
        self.len
    }
}

impl FileSystem for LocalFs {
    fn create(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)?;
        Ok(Box::new(LocalWritable {
            file,
            len: 0,
            write_behind: None,
        }))
    }

    fn open(&self, path: &Path) -> io::Result<Arc<dyn ReadableFile>> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        Ok(Arc::new(LocalReadable { file, len }))
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        fs::rename(from, to)
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        fs::remove_file(path)
    }

    fn hard_link(&self, from: &Path, to: &Path) -> io::Result<()> {
        fs::hard_link(from, to)
    }

    fn remove_dir_all(&self, path: &Path) -> io::Result<()> {
        match fs::remove_dir_all(path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            other => other,
        }
    }

    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        fs::create_dir_all(path)
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        let entries = match fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut names = Vec::new();
        for entry in entries {
            names.push(entry?.file_name().to_string_lossy().into_owned());
        }
        names.sort();
        Ok(names)
    }

    fn exists(&self, path: &Path) -> io::Result<bool> {
        path.try_exists()
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        File::open(dir)?.sync_all()
    }

    fn truncate(&self, path: &Path, len: u64) -> io::Result<()> {
        let file = OpenOptions::new().write(true).open(path)?;
        file.set_len(len)?;
        file.sync_all()
    }

    fn seal_logs(&self, dir: &Path) -> io::Result<Option<super::SealedLogs>> {
        super::seal::seal_folder(self, dir).map(Some)
    }
}
