//! The engine's error: rich inside, with a small [`ErrorKind`] that tells a caller what to do.

use std::path::PathBuf;

/// What a caller should do about an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The request is wrong; retrying it unchanged fails again.
    InvalidRequest,
    /// Stored data failed its checks; an operator must look.
    DataCorruption,
    /// The region or server cannot serve now (closed, poisoned, I/O failure, disk full).
    Unavailable,
    /// Temporarily overloaded: back off and retry.
    Busy,
    /// The row belongs to another region: look it up again and retry there.
    WrongRegion,
}

/// The kind of file a [`Error::Corruption`] is in: it decides what the damage costs
/// (a store file's region, the regions still needing a log segment, a region's manifest)
/// and the exception a client sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// An HFile: a region's store file, a bulk-loaded one or a split reference's source.
    StoreFile,
    /// A write-ahead log segment.
    WalSegment,
    /// A region's MANIFEST: its store files per family and flushed sequence ids.
    Manifest,
    /// The data folder's `VERSION` file.
    FolderVersion,
    /// A region's edits split out of a dead server's log (`recovered.edits/<server>`).
    RecoveredEdits,
}

impl std::fmt::Display for FileKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::StoreFile => "store file",
            Self::WalSegment => "WAL segment",
            Self::Manifest => "manifest",
            Self::FolderVersion => "data folder version file",
            Self::RecoveredEdits => "recovered edits",
        })
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    InvalidArgument(#[from] basalt_types::Error),

    /// HBase's `NoSuchColumnFamilyException`; the message lists the valid families.
    #[error("{0}")]
    NoSuchFamily(String),

    /// HBase's `DoNotRetryIOException` (for example incrementing a cell that is not 8 bytes).
    #[error("{0}")]
    DoNotRetry(String),

    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },

    /// The disk (or the user's quota) is full. Nothing the failed operation wrote is kept,
    /// and the operation can succeed once space is freed: the log refuses writes until then
    /// and flushes and compactions are retried. Built by [`Error::io`] from `ENOSPC` or
    /// `EDQUOT`.
    #[error("disk full: {context}: {source} (resumes by itself once space is freed)")]
    NoSpace {
        context: String,
        #[source]
        source: std::io::Error,
    },

    /// A checksum or structure check failed; names the kind of file, the file and the
    /// byte offset ("corrupt WAL segment /data/wal/wal-…1.log at offset 96: …").
    #[error("corrupt {kind} {} at offset {offset}: {reason}", file.display())]
    Corruption {
        kind: FileKind,
        file: PathBuf,
        offset: u64,
        reason: String,
    },

    /// A file written by a newer Basalt, in a format version this one does not know:
    /// refused, never guessed at. Running the newer Basalt again is the fix.
    #[error(
        "{what} format version {found} in {} is newer than this Basalt supports ({supported}); upgrade Basalt",
        file.display()
    )]
    NewerFormat {
        file: PathBuf,
        /// The kind of file: "HFile", "manifest", ...
        what: &'static str,
        found: u32,
        supported: u32,
    },

    /// A store file whose intact trailer names a data block encoding this Basalt does not
    /// know: refused by name, never read with another encoding's layout.
    #[error(
        "HFile {} uses data block encoding code {code}, which this Basalt does not know (it reads {known}); upgrade Basalt",
        file.display()
    )]
    UnknownEncoding {
        file: PathBuf,
        code: u8,
        /// The encodings this Basalt reads, by name.
        known: &'static str,
    },

    /// An earlier write or sync failed; nothing more is accepted until reopened.
    #[error("refusing writes: {0}")]
    Poisoned(String),

    /// The region (or store, or log) has been closed.
    #[error("{0} is closed")]
    Closed(String),

    /// Writes blocked too long behind the memstore limit.
    #[error("{0}")]
    Busy(String),

    /// The row is outside this region's key range.
    #[error("{0}")]
    WrongRegion(String),

    /// HBase's `OperationConflictException`: a retried operation (by its nonce) that was
    /// already applied; not applied again.
    #[error("{0}")]
    OperationConflict(String),
}

impl Error {
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::InvalidArgument(_)
            | Self::NoSuchFamily(_)
            | Self::DoNotRetry(_)
            | Self::OperationConflict(_) => ErrorKind::InvalidRequest,
            Self::Corruption { .. } => ErrorKind::DataCorruption,
            Self::Io { .. }
            | Self::NoSpace { .. }
            | Self::Poisoned(_)
            | Self::Closed(_)
            | Self::NewerFormat { .. }
            | Self::UnknownEncoding { .. } => ErrorKind::Unavailable,
            Self::Busy(_) => ErrorKind::Busy,
            Self::WrongRegion(_) => ErrorKind::WrongRegion,
        }
    }

    /// An I/O error with what was being done: [`Error::NoSpace`] when the disk is full,
    /// else [`Error::Io`].
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        let context = context.into();
        if is_no_space(&source) {
            Self::NoSpace { context, source }
        } else {
            Self::Io { context, source }
        }
    }

    /// Whether this is a full disk: nothing was kept of what failed, and it can succeed
    /// once space is freed.
    pub fn is_no_space(&self) -> bool {
        matches!(self, Self::NoSpace { .. })
    }

    pub fn corruption(
        kind: FileKind,
        file: impl Into<PathBuf>,
        offset: u64,
        reason: impl Into<String>,
    ) -> Self {
        Self::Corruption {
            kind,
            file: file.into(),
            offset,
            reason: reason.into(),
        }
    }

    /// `file`, a `what`, holds format version `found`; this code knows up to `supported`.
    pub fn newer_format(
        file: impl Into<PathBuf>,
        what: &'static str,
        found: u32,
        supported: u32,
    ) -> Self {
        Self::NewerFormat {
            file: file.into(),
            what,
            found,
            supported,
        }
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Self::InvalidArgument(basalt_types::Error::InvalidArgument(message.into()))
    }
}

pub type Result<T> = std::result::Result<T, Error>;

/// Whether an I/O error says the disk (`ENOSPC`) or the user's quota (`EDQUOT`) is full.
pub fn is_no_space(error: &std::io::Error) -> bool {
    matches!(
        error.kind(),
        std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_disk_or_quota_is_told_apart_from_other_io_errors() {
        const ENOSPC: i32 = 28;
        const EDQUOT: i32 = 122;
        for code in [ENOSPC, EDQUOT] {
            let e = Error::io("writing f", std::io::Error::from_raw_os_error(code));
            assert!(e.is_no_space(), "{e}");
            assert_eq!(e.kind(), ErrorKind::Unavailable);
            assert!(e.to_string().starts_with("disk full: writing f: "), "{e}");
        }
        let other = Error::io("writing f", std::io::Error::other("EIO"));
        assert!(!other.is_no_space() && matches!(other, Error::Io { .. }));
    }
}
