//! Server errors: what stops the server from starting or running, and the statuses calls
//! fail with.

use basalt_api::{ApiError, ErrorKind};
use basalt_proto::status::{to_status, SERVER_BUSY};
use tonic::Status;

/// Why the server could not start or stopped abnormally.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: String,
        source: std::io::Error,
    },
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error("gRPC transport failed: {0}")]
    Transport(#[from] tonic::transport::Error),
    #[error("the server task failed: {0}")]
    Task(String),
    #[error(transparent)]
    Api(#[from] ApiError),
}

/// The status of a failed call.
pub(crate) fn status(e: impl Into<ApiError>) -> Status {
    to_status(&e.into())
}

/// "Server busy": the caller backs off and retries.
pub(crate) fn busy(message: impl Into<String>) -> Status {
    status(ApiError::new(ErrorKind::Busy, SERVER_BUSY, message))
}

/// An invalid request.
pub(crate) fn invalid(message: impl Into<String>) -> Status {
    status(ApiError::invalid(message))
}
