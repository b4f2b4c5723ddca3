//! [`FileSystem`] on the local disk.

use super::write_behind::WriteBehind;
use super::{FileSystem, ReadableFile, WritableFile};
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;

#[derive(Debug, Default, Clone, Copy)]
pub struct LocalFs;

#[derive(Debug)]
struct LocalWritable {
    file: File,
    /// Where the next write goes (writes are positioned: a reused file is overwritten).
    len: u64,
    /// The file's size: `len` or more (preallocated zeros, or a reused file's old bytes).
    allocated: u64,
    /// Started by the first [`WritableFile::start_sync`]; stopped by the next sync.
    write_behind: Option<WriteBehind>,
}

impl WritableFile for LocalWritable {
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.file.write_all_at(buf, self.len)?;
        self.len += buf.len() as u64;
        self.allocated = self.allocated.max(self.len);
        Ok(())
    }

    fn allocated(&self) -> u64 {
        self.allocated
    }

    fn preallocate(&mut self, up_to: u64) -> io::Result<bool> {
        // Zeros really written: `set_len` alone leaves a sparse file whose later writes
        // still allocate blocks, a metadata change every sync would have to commit.
        const CHUNK: usize = 256 * 1024;
        let zeros = vec![0u8; CHUNK];
        while self.allocated < up_to {
            let n = (up_to - self.allocated).min(CHUNK as u64) as usize;
            self.file.write_all_at(&zeros[..n], self.allocated)?;
            self.allocated += n as u64;
        }
        Ok(true)
    }

    fn write_with_trailer(&mut self, buf: &[u8], trailer: &[u8]) -> io::Result<()> {
        self.write_all(buf)?;
        self.file.write_all_at(trailer, self.len)?;
        self.allocated = self.allocated.max(self.len + trailer.len() as u64);
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
            allocated: 0,
            write_behind: None,
        }))
    }

    fn reuse(&self, from: &Path, to: &Path) -> io::Result<Option<Box<dyn WritableFile>>> {
        fs::rename(from, to)?;
        let file = OpenOptions::new().write(true).open(to)?;
        let allocated = file.metadata()?.len();
        Ok(Some(Box::new(LocalWritable {
            file,
            len: 0,
            allocated,
            write_behind: None,
        })))
    }

    fn can_reuse(&self) -> bool {
        true
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
