//! Engine errors as API errors, with HBase's exception names.

use basalt_api::{ApiError, ErrorKind};
use basalt_storage::{Error as StorageError, FileKind};

pub const TABLE_NOT_FOUND: &str = "org.apache.hadoop.hbase.TableNotFoundException";
pub const TABLE_EXISTS: &str = "org.apache.hadoop.hbase.TableExistsException";
pub const TABLE_NOT_ENABLED: &str = "org.apache.hadoop.hbase.TableNotEnabledException";
pub const TABLE_NOT_DISABLED: &str = "org.apache.hadoop.hbase.TableNotDisabledException";
pub const NAMESPACE_NOT_FOUND: &str = "org.apache.hadoop.hbase.NamespaceNotFoundException";
pub const NAMESPACE_EXISTS: &str = "org.apache.hadoop.hbase.NamespaceExistException";
pub const CONSTRAINT: &str = "org.apache.hadoop.hbase.constraint.ConstraintException";
pub const NO_SUCH_FAMILY: &str = "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException";
pub const DO_NOT_RETRY: &str = "org.apache.hadoop.hbase.DoNotRetryIOException";
pub const NOT_SERVING: &str = "org.apache.hadoop.hbase.NotServingRegionException";
pub const UNKNOWN_REGION: &str = "org.apache.hadoop.hbase.UnknownRegionException";
pub const IO: &str = "java.io.IOException";
/// A retried operation (by its nonce) that was already applied.
pub const OPERATION_CONFLICT: &str =
    "org.apache.hadoop.hbase.exceptions.OperationConflictException";
pub const CORRUPT_HFILE: &str = "org.apache.hadoop.hbase.io.hfile.CorruptHFileException";
pub const DAMAGED_WAL: &str = "org.apache.hadoop.hbase.regionserver.wal.DamagedWALException";
/// HBase's failure to parse a stored descriptor (`.regioninfo`, `.tableinfo`): the nearest
/// match for a manifest, which holds a region's file list and flushed sequence ids.
pub const DESERIALIZATION: &str = "org.apache.hadoop.hbase.exceptions.DeserializationException";
/// HBase's refusal of a root folder whose `hbase.version` file it cannot use.
pub const FILE_SYSTEM_VERSION: &str = "org.apache.hadoop.hbase.util.FileSystemVersionException";

pub fn table_not_found(table: &impl std::fmt::Display) -> ApiError {
    ApiError::new(ErrorKind::NotFound, TABLE_NOT_FOUND, table.to_string())
}

pub fn table_disabled(table: &impl std::fmt::Display) -> ApiError {
    ApiError::new(
        ErrorKind::InvalidRequest,
        TABLE_NOT_ENABLED,
        format!("{table} is disabled."),
    )
}

pub fn io(message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorKind::Unavailable, IO, message)
}

/// The HBase exception class for damage in a file of `kind`.
pub fn corruption_class(kind: FileKind) -> &'static str {
    match kind {
        FileKind::StoreFile => CORRUPT_HFILE,
        FileKind::WalSegment | FileKind::RecoveredEdits => DAMAGED_WAL,
        FileKind::Manifest => DESERIALIZATION,
        FileKind::FolderVersion => FILE_SYSTEM_VERSION,
    }
}

/// Maps an engine error to what a client sees.
pub fn from_storage(e: StorageError) -> ApiError {
    let message = e.to_string();
    match e {
        StorageError::InvalidArgument(_) => ApiError::invalid(message),
        StorageError::NoSuchFamily(_) => {
            ApiError::new(ErrorKind::InvalidRequest, NO_SUCH_FAMILY, message)
        }
        StorageError::DoNotRetry(_) => {
            ApiError::new(ErrorKind::InvalidRequest, DO_NOT_RETRY, message)
        }
        StorageError::Corruption { kind, .. } => {
            ApiError::new(ErrorKind::DataCorruption, corruption_class(kind), message)
        }
        StorageError::NewerFormat { .. } | StorageError::UnknownEncoding { .. } => {
            ApiError::new(ErrorKind::Unavailable, DO_NOT_RETRY, message)
        }
        // A full disk: the message says so and that it resumes; clients may retry.
        StorageError::Io { .. } | StorageError::NoSpace { .. } | StorageError::Poisoned(_) => {
            ApiError::new(ErrorKind::Unavailable, IO, message)
        }
        StorageError::Closed(_) | StorageError::WrongRegion(_) => {
            ApiError::new(ErrorKind::RetryElsewhere, NOT_SERVING, message)
        }
        StorageError::OperationConflict(_) => {
            ApiError::new(ErrorKind::InvalidRequest, OPERATION_CONFLICT, message)
        }
        StorageError::Busy(_) => ApiError::new(
            ErrorKind::Busy,
            "org.apache.hadoop.hbase.RegionTooBusyException",
            message,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corruption_names_the_file_kind_and_its_hbase_class() {
        let cases = [
            (
                FileKind::StoreFile,
                CORRUPT_HFILE,
                "corrupt store file /d/f at offset 7",
            ),
            (
                FileKind::WalSegment,
                DAMAGED_WAL,
                "corrupt WAL segment /d/f at offset 7",
            ),
            (
                FileKind::Manifest,
                DESERIALIZATION,
                "corrupt manifest /d/f at offset 7",
            ),
        ];
        for (kind, class, message) in cases {
            let e = from_storage(StorageError::corruption(kind, "/d/f", 7, "bad checksum"));
            assert_eq!(e.kind, ErrorKind::DataCorruption, "{kind}");
            assert_eq!(e.exception, class, "{kind}");
            assert_eq!(e.message, format!("{message}: bad checksum"));
        }
    }
}
