//! The gateway's errors and the HTTP answers they become (reference §6.3).
//!
//! | error | status | body starts with |
//! |---|---|---|
//! | table, row, family, namespace or scanner missing | 404 | `Not found` |
//! | malformed URL, body, header or parameter | 400 | `Bad request` |
//! | a write to a read-only gateway, an ACL refusal | 403 | `Forbidden` |
//! | the database cannot serve now | 503 | `Unavailable` |
//!
//! The first line is HBase's; the second names what was wrong. No stack traces.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use basalt_api::{ApiError, ErrorKind};

/// Why a request or the gateway failed.
#[derive(Debug, thiserror::Error)]
pub enum RestError {
    #[error("Not found: {0}")]
    NotFound(String),
    #[error("Bad request: {0}")]
    BadRequest(String),
    #[error("Forbidden: {0}")]
    Forbidden(String),
    #[error("Unavailable: {0}")]
    Unavailable(String),
    /// A body over the configured limit.
    #[error("request body larger than {limit_bytes} bytes")]
    BodyTooLarge { limit_bytes: usize },
    /// No representation the client accepts.
    #[error("Not acceptable: {0}")]
    NotAcceptable(String),
    /// A body in a media type this resource does not read.
    #[error("Unsupported media type: {0}")]
    UnsupportedMediaType(String),
    /// Over a scanner limit (per client or in all).
    #[error("Too many scanners: {0}")]
    TooManyScanners(String),
    #[error("method {method} not allowed on {path}")]
    MethodNotAllowed { method: String, path: String },
    /// The gateway could not listen.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: String,
        source: std::io::Error,
    },
}

impl RestError {
    pub fn bad(message: impl Into<String>) -> Self {
        Self::BadRequest(message.into())
    }

    pub fn status(&self) -> StatusCode {
        match self {
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::BadRequest(_) => StatusCode::BAD_REQUEST,
            Self::Forbidden(_) => StatusCode::FORBIDDEN,
            Self::Unavailable(_) | Self::Bind { .. } => StatusCode::SERVICE_UNAVAILABLE,
            Self::BodyTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            Self::NotAcceptable(_) => StatusCode::NOT_ACCEPTABLE,
            Self::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            Self::TooManyScanners(_) => StatusCode::TOO_MANY_REQUESTS,
        }
    }

    /// HBase's body: the status word, then what was wrong.
    pub fn body(&self) -> String {
        let (word, detail) = match self {
            Self::NotFound(d) => ("Not found", d.clone()),
            Self::BadRequest(d) => ("Bad request", d.clone()),
            Self::Forbidden(d) => ("Forbidden", d.clone()),
            Self::Unavailable(d) => ("Unavailable", d.clone()),
            Self::NotAcceptable(d) => ("Not acceptable", d.clone()),
            Self::UnsupportedMediaType(d) => ("Unsupported media type", d.clone()),
            Self::TooManyScanners(d) => ("Too many scanners", d.clone()),
            Self::MethodNotAllowed { .. } => ("Method not allowed", self.to_string()),
            other => ("Bad request", other.to_string()),
        };
        if detail.is_empty() {
            format!("{word}\r\n")
        } else {
            format!("{word}\r\n{detail}\r\n")
        }
    }
}

impl From<ApiError> for RestError {
    fn from(e: ApiError) -> Self {
        let detail = format!("{}: {}", e.short_name(), e.message);
        match e.kind {
            ErrorKind::NotFound => Self::NotFound(detail),
            _ if e.short_name() == "AccessDeniedException" => Self::Forbidden(detail),
            ErrorKind::InvalidRequest if e.short_name() == "NoSuchColumnFamilyException" => {
                Self::NotFound(detail)
            }
            ErrorKind::InvalidRequest | ErrorKind::AlreadyExists => Self::BadRequest(detail),
            ErrorKind::RetryElsewhere
            | ErrorKind::Busy
            | ErrorKind::DataCorruption
            | ErrorKind::Unavailable => Self::Unavailable(detail),
        }
    }
}

impl From<basalt_types::Error> for RestError {
    fn from(e: basalt_types::Error) -> Self {
        Self::BadRequest(e.to_string())
    }
}

impl IntoResponse for RestError {
    fn into_response(self) -> Response {
        let status = self.status();
        if status.is_server_error() {
            tracing::warn!(error = %self, "REST request failed");
        } else {
            tracing::debug!(error = %self, "REST request refused");
        }
        (
            status,
            [(axum::http::header::CONTENT_TYPE, "text/plain")],
            self.body(),
        )
            .into_response()
    }
}

pub type Result<T, E = RestError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_errors_map_to_hbase_statuses() {
        let missing: RestError = ApiError::table_not_found("t").into();
        assert_eq!(missing.status(), StatusCode::NOT_FOUND);
        assert!(missing.body().starts_with("Not found\r\n"));
        let family: RestError = ApiError::new(
            ErrorKind::InvalidRequest,
            "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException",
            "x",
        )
        .into();
        assert_eq!(family.status(), StatusCode::NOT_FOUND);
        let bad: RestError = ApiError::invalid("no").into();
        assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
        let busy: RestError =
            ApiError::new(ErrorKind::Busy, "x.RegionTooBusyException", "b").into();
        assert_eq!(busy.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert!(busy.body().starts_with("Unavailable\r\n"));
    }
}
