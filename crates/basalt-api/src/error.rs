//! Errors as a caller sees them: what to do about it, and HBase's name for it.

/// What a caller should do about an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The request is wrong; retrying it unchanged fails again.
    InvalidRequest,
    /// The data asked for does not exist (table, namespace, scanner).
    NotFound,
    /// It already exists (table, namespace).
    AlreadyExists,
    /// The row's region moved or is splitting: look it up again and retry.
    RetryElsewhere,
    /// Overloaded: back off and retry.
    Busy,
    /// Stored data failed its checks.
    DataCorruption,
    /// The server cannot serve now.
    Unavailable,
}

/// HBase's exception for a call whose answer did not come back in time: its outcome is
/// unknown (see [`ApiError::outcome_unknown`]).
pub const CALL_TIMEOUT: &str = "org.apache.hadoop.hbase.ipc.CallTimeoutException";

/// An error from any Basalt connection.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{exception}: {message}")]
pub struct ApiError {
    pub kind: ErrorKind,
    /// HBase's exception class name, e.g. `org.apache.hadoop.hbase.TableNotFoundException`.
    pub exception: String,
    pub message: String,
}

impl ApiError {
    pub fn new(kind: ErrorKind, exception: &str, message: impl Into<String>) -> Self {
        Self {
            kind,
            exception: exception.to_string(),
            message: message.into(),
        }
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(
            ErrorKind::InvalidRequest,
            "java.lang.IllegalArgumentException",
            message,
        )
    }

    pub fn table_not_found(table: &str) -> Self {
        Self::new(
            ErrorKind::NotFound,
            "org.apache.hadoop.hbase.TableNotFoundException",
            table,
        )
    }

    /// A call whose outcome is unknown: the server may or may not have applied it (a
    /// write it logged but could not acknowledge in time). HBase's client sees such a call
    /// as [`CALL_TIMEOUT`] and retries it, elsewhere if need be; so does Basalt's
    /// ([`ErrorKind::Unavailable`]). A client that gives up must not conclude the write
    /// did not happen.
    pub fn outcome_unknown(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unavailable, CALL_TIMEOUT, message)
    }

    /// Whether this is [`ApiError::outcome_unknown`]: the call may have been applied.
    pub fn is_outcome_unknown(&self) -> bool {
        self.exception == CALL_TIMEOUT
    }

    /// The exception's short name (`TableNotFoundException`).
    pub fn short_name(&self) -> &str {
        self.exception.rsplit('.').next().unwrap_or(&self.exception)
    }
}

impl From<basalt_types::Error> for ApiError {
    fn from(e: basalt_types::Error) -> Self {
        Self::invalid(e.to_string())
    }
}

pub type Result<T> = std::result::Result<T, ApiError>;
