//! Bearer tokens: 32 random bytes shown once as `bst_` and URL-safe base64, stored only as
//! their SHA-256 digest (a leaked coordinator dump yields no usable token). A token is
//! looked up by its digest: checking one costs a hash, not a password derivation.

use crate::AuthError;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use sha2::{Digest, Sha256};

/// What every token starts with, so a leaked one is recognisable (secret scanners).
pub const PREFIX: &str = "bst_";
const TOKEN_BYTES: usize = 32;

/// A fresh token's text.
pub fn generate() -> Result<String, AuthError> {
    let mut bytes = [0u8; TOKEN_BYTES];
    crate::random::fill(&mut bytes)?;
    Ok(format!("{PREFIX}{}", B64.encode(bytes)))
}

/// `bytes` random bytes in lowercase hex: session ids and CSRF tokens of the web UI.
pub fn secret_hex(bytes: usize) -> Result<String, AuthError> {
    let mut buf = vec![0u8; bytes];
    crate::random::fill(&mut buf)?;
    Ok(hex(&buf))
}

/// The stored name of `token`: SHA-256, in lowercase hex.
pub fn digest(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_prefixed_and_stored_by_digest() {
        let a = generate().expect("token");
        let b = generate().expect("token");
        assert_ne!(a, b);
        assert!(a.starts_with(PREFIX));
        assert_eq!(a.len(), PREFIX.len() + 43);
        assert_eq!(digest(&a).len(), 64);
        assert_ne!(digest(&a), digest(&b));
        assert_eq!(
            digest("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
