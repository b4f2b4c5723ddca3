//! What can go wrong serving a page, and the HTTP status each failure answers with.

use axum::http::StatusCode;

#[derive(Debug, thiserror::Error)]
pub enum WebError {
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: String,
        source: std::io::Error,
    },
    #[error("the web UI must be started inside a tokio runtime")]
    NoRuntime,
    /// The request asked for something malformed (a parameter, a table name).
    #[error("bad request: {0}")]
    BadRequest(String),
    #[error("the query string is {length} bytes; at most {max} are accepted")]
    QueryTooLong { length: usize, max: usize },
    #[error("the request target is {length} bytes; at most {max} are accepted")]
    UriTooLong { length: usize, max: usize },
    #[error("the request headers are {length} bytes; at most {max} are accepted")]
    HeadersTooLarge { length: usize, max: usize },
    #[error("not found: {0}")]
    NotFound(String),
    /// No valid credentials or session (authentication required).
    #[error("authentication required: {0}")]
    Unauthorized(String),
    /// Authenticated, or not, and refused (cross-site request, CSRF token, not a superuser).
    #[error("forbidden: {0}")]
    Forbidden(String),
    /// The request names a host this server does not serve (DNS rebinding).
    #[error("misdirected request: {0}")]
    Misdirected(String),
    /// The database refused or failed a call.
    #[error("{0}")]
    Database(#[from] basalt_api::ApiError),
    /// A cluster process's RPC did not answer (starting, stopped, unreachable, too slow).
    #[error("unavailable: {0}")]
    Unavailable(String),
    #[error("internal error: {0}")]
    Internal(String),
}

impl WebError {
    /// The status a request failing this way gets.
    pub fn status(&self) -> StatusCode {
        match self {
            WebError::BadRequest(_) => StatusCode::BAD_REQUEST,
            WebError::QueryTooLong { .. } | WebError::UriTooLong { .. } => StatusCode::URI_TOO_LONG,
            WebError::HeadersTooLarge { .. } => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            WebError::NotFound(_) => StatusCode::NOT_FOUND,
            WebError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            WebError::Forbidden(_) => StatusCode::FORBIDDEN,
            WebError::Misdirected(_) => StatusCode::MISDIRECTED_REQUEST,
            WebError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            WebError::Database(e) if e.kind == basalt_api::ErrorKind::NotFound => {
                StatusCode::NOT_FOUND
            }
            WebError::Database(e) if e.kind == basalt_api::ErrorKind::InvalidRequest => {
                StatusCode::BAD_REQUEST
            }
            WebError::Bind { .. }
            | WebError::NoRuntime
            | WebError::Database(_)
            | WebError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}
