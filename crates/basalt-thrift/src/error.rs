//! The crate's error type.

/// Why the gateway failed to start, or why a connection is being dropped.
#[derive(Debug, thiserror::Error)]
pub enum ThriftError {
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: String,
        source: std::io::Error,
    },
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// The peer sent bytes that are not a valid message of the configured protocol.
    #[error("protocol error: {0}")]
    Protocol(String),
    /// The peer announced something larger than a limit allows.
    #[error("{what} {len} exceeds the limit of {max}")]
    Limit {
        what: &'static str,
        len: usize,
        max: usize,
    },
    /// A call's head was read but its arguments were malformed.
    #[error("malformed arguments of {}: {source}", header.name)]
    BadArguments {
        header: crate::protocol::MessageHeader,
        source: Box<ThriftError>,
    },
    #[error("invalid configuration: {0}")]
    Config(String),
}

impl ThriftError {
    pub fn limit(what: &'static str, len: usize, max: usize) -> Self {
        Self::Limit { what, len, max }
    }

    /// Whether the peer simply went away (end of stream, reset, timeout).
    pub fn is_disconnect(&self) -> bool {
        matches!(self, Self::Io(e) if matches!(
            e.kind(),
            std::io::ErrorKind::UnexpectedEof
                | std::io::ErrorKind::ConnectionReset
                | std::io::ErrorKind::ConnectionAborted
                | std::io::ErrorKind::BrokenPipe
                | std::io::ErrorKind::WouldBlock
                | std::io::ErrorKind::TimedOut
        ))
    }
}
