//! [`ApiError`] on the wire.
//!
//! A failed call is a gRPC status whose code follows the error's kind and whose details
//! hold a `basalt.v1.Error` message (kind, HBase exception name, message). A status without
//! such details (from the transport, a proxy, or tonic's own checks such as the message
//! size limit) is mapped from its code alone.
//!
//! | kind            | gRPC code          |
//! |-----------------|--------------------|
//! | InvalidRequest  | INVALID_ARGUMENT   |
//! | NotFound        | NOT_FOUND          |
//! | AlreadyExists   | ALREADY_EXISTS     |
//! | RetryElsewhere  | ABORTED            |
//! | Busy            | RESOURCE_EXHAUSTED |
//! | DataCorruption  | DATA_LOSS          |
//! | Unavailable     | UNAVAILABLE        |
//!
//! Two exceptions keep their own codes whatever their kind: a failed authentication
//! ([`ACCESS_CONTROL`]) is UNAUTHENTICATED, a refused operation ([`ACCESS_DENIED`])
//! PERMISSION_DENIED; without details both read as `InvalidRequest` (not retried).

use crate::pb;
use basalt_api::{ApiError, ErrorKind};
use prost::Message;
use tonic::{Code, Status};

/// The exception name of errors raised by the transport rather than the server.
pub const REMOTE_EXCEPTION: &str = "org.apache.hadoop.hbase.ipc.RemoteWithExtrasException";
/// HBase's name for a server refusing work because it is overloaded.
pub const SERVER_BUSY: &str = "org.apache.hadoop.hbase.ipc.ServerTooBusyException";
/// HBase's name for a scanner the server no longer knows.
pub const UNKNOWN_SCANNER: &str = "org.apache.hadoop.hbase.UnknownScannerException";
/// HBase's name for a ScannerNext whose call number is neither the next nor a retry.
pub const OUT_OF_ORDER_SCANNER_NEXT: &str =
    "org.apache.hadoop.hbase.exceptions.OutOfOrderScannerNextException";
/// HBase's name for an operation already applied under the same nonce that is still running.
pub const OPERATION_CONFLICT: &str =
    "org.apache.hadoop.hbase.exceptions.OperationConflictException";

/// Hadoop's name for a caller that did not prove who it is (authentication required, wrong
/// credentials); sent with gRPC's UNAUTHENTICATED.
pub const ACCESS_CONTROL: &str = "org.apache.hadoop.security.AccessControlException";
/// HBase's name for an authenticated caller refused an operation; sent with gRPC's
/// PERMISSION_DENIED.
pub const ACCESS_DENIED: &str = "org.apache.hadoop.hbase.security.AccessDeniedException";

fn encode_kind(kind: ErrorKind) -> pb::ErrorKind {
    match kind {
        ErrorKind::InvalidRequest => pb::ErrorKind::InvalidRequest,
        ErrorKind::NotFound => pb::ErrorKind::NotFound,
        ErrorKind::AlreadyExists => pb::ErrorKind::AlreadyExists,
        ErrorKind::RetryElsewhere => pb::ErrorKind::RetryElsewhere,
        ErrorKind::Busy => pb::ErrorKind::Busy,
        ErrorKind::DataCorruption => pb::ErrorKind::DataCorruption,
        ErrorKind::Unavailable => pb::ErrorKind::Unavailable,
    }
}

fn decode_kind(kind: i32) -> ErrorKind {
    match pb::ErrorKind::try_from(kind) {
        Ok(pb::ErrorKind::InvalidRequest) => ErrorKind::InvalidRequest,
        Ok(pb::ErrorKind::NotFound) => ErrorKind::NotFound,
        Ok(pb::ErrorKind::AlreadyExists) => ErrorKind::AlreadyExists,
        Ok(pb::ErrorKind::RetryElsewhere) => ErrorKind::RetryElsewhere,
        Ok(pb::ErrorKind::Busy) => ErrorKind::Busy,
        Ok(pb::ErrorKind::DataCorruption) => ErrorKind::DataCorruption,
        // An unknown kind from a newer server: treat it as "cannot serve now".
        Ok(pb::ErrorKind::Unavailable | pb::ErrorKind::Unspecified) | Err(_) => {
            ErrorKind::Unavailable
        }
    }
}

pub fn encode_error(e: &ApiError) -> pb::Error {
    pb::Error {
        kind: encode_kind(e.kind) as i32,
        exception: e.exception.clone(),
        message: e.message.clone(),
    }
}

pub fn decode_error(e: pb::Error) -> ApiError {
    ApiError {
        kind: decode_kind(e.kind),
        exception: e.exception,
        message: e.message,
    }
}

fn code_of(kind: ErrorKind) -> Code {
    match kind {
        ErrorKind::InvalidRequest => Code::InvalidArgument,
        ErrorKind::NotFound => Code::NotFound,
        ErrorKind::AlreadyExists => Code::AlreadyExists,
        ErrorKind::RetryElsewhere => Code::Aborted,
        ErrorKind::Busy => Code::ResourceExhausted,
        ErrorKind::DataCorruption => Code::DataLoss,
        ErrorKind::Unavailable => Code::Unavailable,
    }
}

/// The status a server returns for `e`.
pub fn to_status(e: &ApiError) -> Status {
    let details = encode_error(e).encode_to_vec();
    let code = match e.exception.as_str() {
        ACCESS_CONTROL => Code::Unauthenticated,
        ACCESS_DENIED => Code::PermissionDenied,
        _ => code_of(e.kind),
    };
    Status::with_details(code, e.to_string(), details.into())
}

/// The error a client sees for `status`.
pub fn from_status(status: &Status) -> ApiError {
    if let Ok(e) = pb::Error::decode(status.details()) {
        if !e.exception.is_empty() {
            return decode_error(e);
        }
    }
    let kind = match status.code() {
        Code::InvalidArgument
        | Code::OutOfRange
        | Code::Unimplemented
        | Code::FailedPrecondition
        | Code::Unauthenticated
        | Code::PermissionDenied => ErrorKind::InvalidRequest,
        Code::NotFound => ErrorKind::NotFound,
        Code::AlreadyExists => ErrorKind::AlreadyExists,
        Code::Aborted => ErrorKind::RetryElsewhere,
        Code::ResourceExhausted => ErrorKind::Busy,
        Code::DataLoss => ErrorKind::DataCorruption,
        _ => ErrorKind::Unavailable,
    };
    // tonic reports a message over the size limit as OUT_OF_RANGE (decoding) or
    // RESOURCE_EXHAUSTED; the latter is not "busy": retrying the same message fails again.
    let kind = if status.message().contains("message length too large") {
        ErrorKind::InvalidRequest
    } else {
        kind
    };
    ApiError::new(
        kind,
        REMOTE_EXCEPTION,
        format!("{:?}: {}", status.code(), status.message()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_survive_a_status() {
        let e = ApiError::table_not_found("t1");
        let back = from_status(&to_status(&e));
        assert_eq!(back, e);
    }

    #[test]
    fn an_outcome_unknown_crosses_a_status_as_unavailable_and_stays_unknown() {
        let e = ApiError::outcome_unknown("logged, not acknowledged");
        let status = to_status(&e);
        assert_eq!(status.code(), Code::Unavailable, "clients retry it");
        let back = from_status(&status);
        assert!(back.is_outcome_unknown(), "{back}");
        assert_eq!(back, e);
    }

    #[test]
    fn bare_statuses_map_by_code() {
        let e = from_status(&Status::unavailable("connection refused"));
        assert_eq!(e.kind, ErrorKind::Unavailable);
        let e = from_status(&Status::resource_exhausted("busy"));
        assert_eq!(e.kind, ErrorKind::Busy);
        let e = from_status(&Status::out_of_range("message length too large"));
        assert_eq!(e.kind, ErrorKind::InvalidRequest);
    }
}
