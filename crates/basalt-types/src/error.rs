//! The error of plain-data validation: what was wrong, in words a user can act on.

/// A request or descriptor that breaks a rule of the data model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The input breaks a documented rule; the message names the rule and the value.
    #[error("{0}")]
    InvalidArgument(String),
}

pub type Result<T> = std::result::Result<T, Error>;

/// Shorthand for building an [`Error::InvalidArgument`].
pub fn invalid(message: impl Into<String>) -> Error {
    Error::InvalidArgument(message.into())
}
