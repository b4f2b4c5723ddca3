//! [`PeError`]: why a benchmark could not run or stopped.

use basalt_api::ApiError;

#[derive(Debug, thiserror::Error)]
pub enum PeError {
    /// An option's value is out of range or does not fit with the others.
    #[error("invalid value for {option}: {message}")]
    Option {
        option: &'static str,
        message: String,
    },
    /// The command is not one `basalt pe` knows.
    #[error("unknown command '{given}': expected one of {known}")]
    UnknownCommand { given: String, known: String },
    /// The table could not be created or opened.
    #[error("cannot prepare table {table}: {source}")]
    Table { table: String, source: ApiError },
    /// An operation failed; the run stops at the first failure, as HBase's PE does.
    #[error("{command} failed: {source}")]
    Operation {
        command: &'static str,
        source: ApiError,
    },
    /// A client thread could not start.
    #[error("cannot start client thread: {0}")]
    Spawn(std::io::Error),
    /// A client thread panicked.
    #[error("client {0} panicked")]
    ClientPanicked(u32),
}

pub type Result<T> = std::result::Result<T, PeError>;
