//! Base64 (standard alphabet, padded) for binary fields of JSON and XML models.

use crate::error::{RestError, Result};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use bytes::Bytes;

pub fn encode(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// Decodes `text`; the error names `field`.
pub fn decode(text: &str, field: &str) -> Result<Bytes> {
    STANDARD
        .decode(text.trim())
        .map(Bytes::from)
        .map_err(|e| RestError::bad(format!("field '{field}' is not valid base64: {e}")))
}
