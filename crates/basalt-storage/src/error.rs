//! The engine's error: rich inside, with a small [`ErrorKind`] that tells a caller what to do.

use std::path::PathBuf;

/// What a caller should do about an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The request is wrong; retrying it unchanged fails again.
    InvalidRequest,
    /// Stored data failed its checks; an operator must look.
    DataCorruption,
    /// The region or server cannot serve now (closed, poisoned, I/O failure).
    Unavailable,
    /// Temporarily overloaded: back off and retry.
    Busy,
    /// The row belongs to another region: look it up again and retry there.
    WrongRegion,
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

    /// A checksum or structure check failed; names the file and the byte offset.
    #[error("corrupt data in {} at offset {offset}: {reason}", file.display())]
    Corruption {
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
}

impl Error {
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::InvalidArgument(_) | Self::NoSuchFamily(_) | Self::DoNotRetry(_) => {
                ErrorKind::InvalidRequest
            }
            Self::Corruption { .. } => ErrorKind::DataCorruption,
            Self::Io { .. } | Self::Poisoned(_) | Self::Closed(_) | Self::NewerFormat { .. } => {
                ErrorKind::Unavailable
            }
            Self::Busy(_) => ErrorKind::Busy,
            Self::WrongRegion(_) => ErrorKind::WrongRegion,
        }
    }

    /// An I/O error with what was being done.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Self::Io {
            context: context.into(),
            source,
        }
    }

    pub fn corruption(file: impl Into<PathBuf>, offset: u64, reason: impl Into<String>) -> Self {
        Self::Corruption {
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
