//! Limits on what a peer may make the server read, checked before allocating.

use crate::ThriftError;
use serde::{Deserialize, Serialize};

/// Per-message limits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// The largest message (a frame, or a whole buffered message) in bytes.
    pub message_max_bytes: usize,
    /// The longest string or binary.
    pub string_max_bytes: usize,
    /// The most elements in one list, set or map.
    pub container_max_len: usize,
    /// The most values in one message (bounds the decoded tree's memory).
    pub values_max: usize,
    /// The deepest nesting of structs and containers.
    pub depth_max: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            message_max_bytes: 16 * 1024 * 1024,
            string_max_bytes: 8 * 1024 * 1024,
            container_max_len: 100_000,
            values_max: 1_000_000,
            depth_max: 32,
        }
    }
}

/// What a reader has spent of one message's limits.
#[derive(Debug)]
pub struct Budget<'a> {
    pub limits: &'a Limits,
    bytes: usize,
    values: usize,
}

impl<'a> Budget<'a> {
    pub fn new(limits: &'a Limits) -> Self {
        Self {
            limits,
            bytes: 0,
            values: 0,
        }
    }

    /// Accounts for `n` more bytes read.
    pub fn spend_bytes(&mut self, n: usize) -> Result<(), ThriftError> {
        self.bytes = self.bytes.saturating_add(n);
        if self.bytes > self.limits.message_max_bytes {
            return Err(ThriftError::limit(
                "message size",
                self.bytes,
                self.limits.message_max_bytes,
            ));
        }
        Ok(())
    }

    /// Accounts for one more decoded value.
    pub fn spend_value(&mut self) -> Result<(), ThriftError> {
        self.values += 1;
        if self.values > self.limits.values_max {
            return Err(ThriftError::limit(
                "values in a message",
                self.values,
                self.limits.values_max,
            ));
        }
        Ok(())
    }

    /// Checks a string length read from the wire.
    pub fn check_string(&self, len: i64) -> Result<usize, ThriftError> {
        checked_len("string length", len, self.limits.string_max_bytes)
    }

    /// Checks a container length read from the wire.
    pub fn check_container(&self, len: i64) -> Result<usize, ThriftError> {
        checked_len("container length", len, self.limits.container_max_len)
    }
}

pub(crate) fn checked_len(what: &'static str, len: i64, max: usize) -> Result<usize, ThriftError> {
    if len < 0 {
        return Err(ThriftError::Protocol(format!("negative {what} {len}")));
    }
    let len = usize::try_from(len).unwrap_or(usize::MAX);
    if len > max {
        return Err(ThriftError::limit(what, len, max));
    }
    Ok(len)
}
