//! Bytes from the operating system's random source, for salts and tokens.

use crate::AuthError;

pub fn fill(buf: &mut [u8]) -> Result<(), AuthError> {
    getrandom::fill(buf).map_err(|e| AuthError::Unavailable(format!("no randomness: {e}")))
}
