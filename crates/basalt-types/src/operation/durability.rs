//! Durability levels of a write (HBase's `Durability`).

/// How durable a write is before it is acknowledged.
///
/// On a local disk both `SyncWal` and `FsyncWal` mean `fdatasync` before the ack — stricter
/// than HBase, whose `SYNC_WAL` only reaches the DataNodes' OS buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, PartialOrd, Ord)]
pub enum Durability {
    /// The table's (or, failing that, the server's) default, normally `SyncWal`.
    #[default]
    UseDefault,
    /// Not logged: lost on a crash before the next flush.
    SkipWal,
    /// Logged, synced in the background within a bounded window (default 1 s).
    AsyncWal,
    /// Logged and synced before the ack.
    SyncWal,
    /// Logged and synced before the ack.
    FsyncWal,
}

impl Durability {
    pub fn name(self) -> &'static str {
        match self {
            Self::UseDefault => "USE_DEFAULT",
            Self::SkipWal => "SKIP_WAL",
            Self::AsyncWal => "ASYNC_WAL",
            Self::SyncWal => "SYNC_WAL",
            Self::FsyncWal => "FSYNC_WAL",
        }
    }

    pub fn parse(text: &str) -> crate::Result<Self> {
        [
            Self::UseDefault,
            Self::SkipWal,
            Self::AsyncWal,
            Self::SyncWal,
            Self::FsyncWal,
        ]
        .into_iter()
        .find(|d| d.name().eq_ignore_ascii_case(text))
        .ok_or_else(|| {
            crate::error::invalid(format!(
                "unknown DURABILITY '{text}': expected USE_DEFAULT, SKIP_WAL, ASYNC_WAL, SYNC_WAL or FSYNC_WAL"
            ))
        })
    }

    /// Resolves `UseDefault` against a fallback (a table's setting, then `SyncWal`).
    pub fn or(self, fallback: Durability) -> Durability {
        match self {
            Self::UseDefault => fallback,
            other => other,
        }
    }
}
