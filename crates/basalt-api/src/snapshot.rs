//! Snapshots (HBase's `snapshot`, `list_snapshots`, `clone_snapshot`, `restore_snapshot`):
//! what one is, how to take one, and the errors a connection without them answers.

use basalt_types::TableName;

/// HBase's exception for a snapshot that does not exist.
pub const SNAPSHOT_DOES_NOT_EXIST: &str =
    "org.apache.hadoop.hbase.snapshot.SnapshotDoesNotExistException";
/// HBase's exception for a snapshot name already taken.
pub const SNAPSHOT_EXISTS: &str = "org.apache.hadoop.hbase.snapshot.SnapshotExistsException";
/// HBase's exception for a snapshot that could not be taken.
pub const SNAPSHOT_CREATION: &str = "org.apache.hadoop.hbase.snapshot.SnapshotCreationException";
/// HBase's exception for a snapshot that could not be restored or cloned.
pub const RESTORE_SNAPSHOT: &str = "org.apache.hadoop.hbase.snapshot.RestoreSnapshotException";

/// A completed snapshot, as `list_snapshots` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotDescription {
    pub name: String,
    pub table: TableName,
    /// When it was taken, in milliseconds since the epoch.
    pub creation_time_ms: i64,
    /// Seconds after its creation the cleaner may drop it; `None` keeps it until deleted.
    pub ttl_secs: Option<u64>,
    /// The manifest's format version.
    pub version: u32,
}

/// How `snapshot 't', 's', {...}` takes it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SnapshotOptions {
    /// `SKIP_FLUSH => true`: what is only in the memstores is left out.
    pub skip_flush: bool,
    /// `TTL => seconds`.
    pub ttl_secs: Option<u64>,
}

/// The answer of a connection that keeps no snapshots.
pub fn snapshots_unsupported(command: &str) -> crate::ApiError {
    crate::ApiError::new(
        crate::ErrorKind::InvalidRequest,
        "org.apache.hadoop.hbase.DoNotRetryIOException",
        format!("{command} is not supported by this connection yet"),
    )
}
