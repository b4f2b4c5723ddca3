//! Engine errors as API errors, with HBase's exception names.

use basalt_api::{ApiError, ErrorKind};
use basalt_storage::Error as StorageError;

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
        StorageError::Corruption { .. } => ApiError::new(
            ErrorKind::DataCorruption,
            "org.apache.hadoop.hbase.io.hfile.CorruptHFileException",
            message,
        ),
        StorageError::NewerFormat { .. } => {
            ApiError::new(ErrorKind::Unavailable, DO_NOT_RETRY, message)
        }
        // A full disk: the message says so and that it resumes; clients may retry.
        StorageError::Io { .. } | StorageError::NoSpace { .. } | StorageError::Poisoned(_) => {
            ApiError::new(ErrorKind::Unavailable, IO, message)
        }
        StorageError::Closed(_) | StorageError::WrongRegion(_) => {
            ApiError::new(ErrorKind::RetryElsewhere, NOT_SERVING, message)
        }
        StorageError::Busy(_) => ApiError::new(
            ErrorKind::Busy,
            "org.apache.hadoop.hbase.RegionTooBusyException",
            message,
        ),
    }
}
