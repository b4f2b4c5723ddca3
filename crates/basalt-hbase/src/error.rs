//! Errors: [`RpcError`] is what a call answers (an HBase exception class name, a message,
//! and whether the client may retry); [`HbaseError`] is what starting a server can fail with.

use basalt_api::{ApiError, ErrorKind};

/// `DoNotRetryIOException`: the request is wrong and retrying it fails again.
pub const DO_NOT_RETRY: &str = "org.apache.hadoop.hbase.DoNotRetryIOException";
/// A region named by a client is not (or no longer) here: look it up again.
pub const NOT_SERVING_REGION: &str = "org.apache.hadoop.hbase.NotServingRegionException";
/// A row sent to a region that does not hold it.
pub const WRONG_REGION: &str = "org.apache.hadoop.hbase.regionserver.WrongRegionException";
/// A scanner id that is unknown, closed or expired.
pub const UNKNOWN_SCANNER: &str = "org.apache.hadoop.hbase.UnknownScannerException";

/// An HBase exception, as a call's answer carries it (`ExceptionResponse`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{class}: {message}")]
pub struct RpcError {
    /// The Java class name, e.g. `org.apache.hadoop.hbase.TableNotFoundException`.
    pub class: String,
    pub message: String,
    /// Whether HBase would mark it so: the exception is a `DoNotRetryIOException`.
    pub do_not_retry: bool,
}

impl RpcError {
    pub fn new(class: &str, message: impl Into<String>, do_not_retry: bool) -> Self {
        Self {
            class: class.to_string(),
            message: message.into(),
            do_not_retry,
        }
    }

    /// A `DoNotRetryIOException`: a request Basalt refuses, whatever the retries.
    pub fn do_not_retry(message: impl Into<String>) -> Self {
        Self::new(DO_NOT_RETRY, message, true)
    }

    /// A request whose bytes do not decode as the method's message.
    pub fn bad_request(what: &str, cause: impl std::fmt::Display) -> Self {
        Self::do_not_retry(format!("cannot decode {what}: {cause}"))
    }

    /// A method of a service Basalt does not implement.
    pub fn unsupported(service: &str, method: &str) -> Self {
        Self::do_not_retry(format!("{service}.{method} is not supported by Basalt"))
    }

    pub fn not_serving(region: &str) -> Self {
        Self::new(
            NOT_SERVING_REGION,
            format!("region {region} is not online on this server"),
            false,
        )
    }

    pub fn unknown_scanner(id: u64) -> Self {
        Self::new(
            UNKNOWN_SCANNER,
            format!("unknown scanner {id}: it was closed, expired or never opened"),
            true,
        )
    }
}

/// Basalt's API errors carry HBase's class name already; HBase marks the
/// `DoNotRetryIOException` family, which is every kind a retry cannot fix.
impl From<ApiError> for RpcError {
    fn from(e: ApiError) -> Self {
        let do_not_retry = match e.kind {
            ErrorKind::InvalidRequest
            | ErrorKind::NotFound
            | ErrorKind::AlreadyExists
            | ErrorKind::DataCorruption => true,
            ErrorKind::RetryElsewhere | ErrorKind::Busy | ErrorKind::Unavailable => false,
        };
        match e.exception.as_str() {
            // Java's own exceptions reach an HBase client as DoNotRetryIOException.
            c if c.starts_with("java.lang.") => Self {
                class: DO_NOT_RETRY.to_string(),
                message: format!("{c}: {}", e.message),
                do_not_retry,
            },
            c => Self {
                class: c.to_string(),
                message: e.message,
                do_not_retry,
            },
        }
    }
}

/// Why a server could not start.
#[derive(Debug, thiserror::Error)]
pub enum HbaseError {
    #[error("invalid HBase settings: {0}")]
    Config(String),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Io(#[from] std::io::Error),
}
