//! What goes wrong talking to a store, and how the engine (which speaks `std::io`) sees it.
//!
//! Every error names the store (its URL) and the object key it was about, so that a log
//! line or a refused start says where to look. [`StoreError::Failed`] carries the whole
//! chain of causes as text ("connection refused", "NoSuchBucket", …): the underlying
//! client's errors are not part of this crate's interface.

use std::io;

pub type Result<T> = std::result::Result<T, StoreError>;

/// What went wrong; each names the store and the key.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum StoreError {
    #[error("{url}: object {key} does not exist")]
    NotFound { url: String, key: String },
    /// A put-if-absent (or a copy onto a key that must be new) found the key taken.
    #[error("{url}: object {key} already exists")]
    AlreadyExists { url: String, key: String },
    /// A read pinned to the version seen at open found another version.
    #[error("{url}: object {key} changed since it was opened (was version {expected})")]
    Changed {
        url: String,
        key: String,
        expected: String,
    },
    /// The store refused for lack of permission or credentials.
    #[error("{url}: {op} of {key} was refused (permission or credentials): {cause}")]
    Denied {
        url: String,
        op: &'static str,
        key: String,
        cause: String,
    },
    /// A key that no store can hold (empty segment, `.` or `..`, not UTF-8).
    #[error("{url}: {key:?} is not a valid object key: {reason}")]
    BadKey {
        url: String,
        key: String,
        reason: String,
    },
    /// A store URL or option that cannot be used.
    #[error("store {url}: {reason}")]
    Config { url: String, reason: String },
    /// The store's own threads could not run the call.
    #[error("the store's I/O threads: {0}")]
    Runtime(String),
    /// Anything else: the operation, the key, and every cause.
    #[error("{url}: {op} of {key} failed: {cause}")]
    Failed {
        url: String,
        op: &'static str,
        key: String,
        cause: String,
    },
}

impl StoreError {
    pub fn is_not_found(&self) -> bool {
        matches!(self, StoreError::NotFound { .. })
    }

    /// Whether trying again may succeed: a failure of the store or of the way to it, not
    /// a refusal, a bad key or a missing object.
    pub fn is_transient(&self) -> bool {
        matches!(self, StoreError::Failed { .. })
    }

    pub fn is_already_exists(&self) -> bool {
        matches!(self, StoreError::AlreadyExists { .. })
    }

    fn io_kind(&self) -> io::ErrorKind {
        match self {
            StoreError::NotFound { .. } => io::ErrorKind::NotFound,
            StoreError::AlreadyExists { .. } => io::ErrorKind::AlreadyExists,
            StoreError::Denied { .. } => io::ErrorKind::PermissionDenied,
            StoreError::BadKey { .. } | StoreError::Config { .. } => io::ErrorKind::InvalidInput,
            StoreError::Changed { .. } | StoreError::Failed { .. } | StoreError::Runtime(_) => {
                io::ErrorKind::Other
            }
        }
    }
}

impl From<StoreError> for io::Error {
    fn from(e: StoreError) -> Self {
        io::Error::new(e.io_kind(), e)
    }
}

/// An error and all its sources, as one line ("a: b: c"), skipping a source whose text
/// the previous one already holds.
pub fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let more = cause.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("outer")]
    struct Outer(#[source] io::Error);

    #[test]
    fn a_chain_names_every_cause_once() {
        let e = Outer(io::Error::new(io::ErrorKind::ConnectionRefused, "refused"));
        assert_eq!(chain(&e), "outer: refused");
    }

    #[test]
    fn io_kinds_follow_the_error() {
        let url = "memory://".to_string();
        let key = "k".to_string();
        let missing: io::Error = StoreError::NotFound {
            url: url.clone(),
            key: key.clone(),
        }
        .into();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        let taken: io::Error = StoreError::AlreadyExists { url, key }.into();
        assert_eq!(taken.kind(), io::ErrorKind::AlreadyExists);
        assert!(taken
            .to_string()
            .contains("memory://: object k already exists"));
    }
}
