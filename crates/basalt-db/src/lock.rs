//! The data directory lock: one process at a time opens a data directory.

use basalt_api::{ApiError, Result};
use std::fs::{File, OpenOptions};
use std::path::Path;

/// Held while the database is open; the operating system releases it when the process
/// exits, however it exits.
#[derive(Debug)]
pub struct DataDirLock {
    _file: File,
}

impl DataDirLock {
    pub fn acquire(root: &Path) -> Result<Self> {
        let path = root.join("LOCK");
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| crate::error::io(format!("cannot open {}: {e}", path.display())))?;
        match file.try_lock() {
            Ok(()) => Ok(Self { _file: file }),
            Err(std::fs::TryLockError::WouldBlock) => Err(ApiError::new(
                basalt_api::ErrorKind::Unavailable,
                crate::error::IO,
                format!(
                    "data directory {} is in use by another process",
                    root.display()
                ),
            )),
            Err(std::fs::TryLockError::Error(e)) => Err(crate::error::io(format!(
                "cannot lock {}: {e}",
                path.display()
            ))),
        }
    }
}
