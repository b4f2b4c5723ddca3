//! Password hashes: PBKDF2-HMAC-SHA256 with a per-user random salt and iteration count.
//!
//! This is what SCRAM-SHA-256 (RFC 7677) stores for a user, so a later SASL SCRAM
//! mechanism (Thrift, the native protocol) can verify against the same record. A stored
//! hash reads `pbkdf2-sha256$ITERATIONS$SALT$HASH` (salt and hash in unpadded base64):
//!
//! | part | example | why |
//! |---|---|---|
//! | scheme | `pbkdf2-sha256` | a later scheme (argon2) can sit beside it |
//! | iterations | `600000` | kept per user: raising the default rehashes nobody |
//! | salt | 16 random bytes | equal passwords hash differently |
//! | hash | 32 bytes | PBKDF2's output, compared in constant time |

use crate::AuthError;
use base64::engine::general_purpose::STANDARD_NO_PAD as B64;
use base64::Engine;

/// The iteration count new hashes get (OWASP's 2023 figure for PBKDF2-HMAC-SHA256).
pub const ITERATIONS_DEFAULT: u32 = 600_000;
/// Fewer iterations than this is refused: a hash that cheap is no protection.
pub const ITERATIONS_MIN: u32 = 1_000;
/// More than this is refused: a stored record must not be a CPU bomb.
pub const ITERATIONS_MAX: u32 = 10_000_000;
/// The longest password accepted (longer ones are refused, not cut).
pub const PASSWORD_MAX_BYTES: usize = 1024;

const SCHEME: &str = "pbkdf2-sha256";
const SALT_BYTES: usize = 16;
const HASH_BYTES: usize = 32;

/// One user's stored password hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PasswordHash {
    iterations: u32,
    salt: [u8; SALT_BYTES],
    hash: [u8; HASH_BYTES],
}

fn derive(password: &[u8], salt: &[u8], iterations: u32) -> [u8; HASH_BYTES] {
    let mut out = [0u8; HASH_BYTES];
    pbkdf2::pbkdf2_hmac::<sha2::Sha256>(password, salt, iterations, &mut out);
    out
}

/// Whether `a` and `b` are equal, in time independent of where they differ.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A password a user may set: not empty, at most [`PASSWORD_MAX_BYTES`].
pub fn check_password(password: &str) -> Result<(), AuthError> {
    if password.is_empty() {
        return Err(AuthError::invalid("the password is empty"));
    }
    if password.len() > PASSWORD_MAX_BYTES {
        return Err(AuthError::invalid(format!(
            "the password is {} bytes; at most {PASSWORD_MAX_BYTES} are accepted",
            password.len()
        )));
    }
    Ok(())
}

impl PasswordHash {
    /// Hashes `password` under a fresh random salt.
    pub fn new(password: &str, iterations: u32) -> Result<Self, AuthError> {
        check_password(password)?;
        check_iterations(iterations)?;
        let mut salt = [0u8; SALT_BYTES];
        crate::random::fill(&mut salt)?;
        Ok(Self {
            iterations,
            salt,
            hash: derive(password.as_bytes(), &salt, iterations),
        })
    }

    /// Whether `password` is the one hashed (costs `iterations` HMACs).
    pub fn verify(&self, password: &str) -> bool {
        password.len() <= PASSWORD_MAX_BYTES
            && constant_time_eq(
                &derive(password.as_bytes(), &self.salt, self.iterations),
                &self.hash,
            )
    }

    pub fn iterations(&self) -> u32 {
        self.iterations
    }

    /// The stored form, `pbkdf2-sha256$ITERATIONS$SALT$HASH`.
    pub fn encode(&self) -> String {
        format!(
            "{SCHEME}${}${}${}",
            self.iterations,
            B64.encode(self.salt),
            B64.encode(self.hash)
        )
    }

    /// Reads the stored form back; a damaged one is an error naming what is wrong.
    pub fn decode(text: &str) -> Result<Self, AuthError> {
        let bad = |why: &str| AuthError::Damaged(format!("password hash '{text}': {why}"));
        let parts: Vec<&str> = text.split('$').collect();
        let [scheme, iterations, salt, hash] = parts[..] else {
            return Err(bad("expected SCHEME$ITERATIONS$SALT$HASH"));
        };
        if scheme != SCHEME {
            return Err(bad(&format!("unknown scheme '{scheme}' (known: {SCHEME})")));
        }
        let iterations: u32 = iterations
            .parse()
            .map_err(|_| bad("the iteration count is not a number"))?;
        check_iterations(iterations).map_err(|e| bad(&e.to_string()))?;
        let salt = B64
            .decode(salt)
            .ok()
            .and_then(|s| <[u8; SALT_BYTES]>::try_from(s).ok())
            .ok_or_else(|| bad("the salt is not 16 bytes of base64"))?;
        let hash = B64
            .decode(hash)
            .ok()
            .and_then(|h| <[u8; HASH_BYTES]>::try_from(h).ok())
            .ok_or_else(|| bad("the hash is not 32 bytes of base64"))?;
        Ok(Self {
            iterations,
            salt,
            hash,
        })
    }
}

fn check_iterations(iterations: u32) -> Result<(), AuthError> {
    if !(ITERATIONS_MIN..=ITERATIONS_MAX).contains(&iterations) {
        return Err(AuthError::invalid(format!(
            "password_iterations is {iterations}; it must be between {ITERATIONS_MIN} and {ITERATIONS_MAX}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_verifies_its_password_only_and_survives_encoding() {
        let h = PasswordHash::new("s3cret", ITERATIONS_MIN).expect("hash");
        assert!(h.verify("s3cret"));
        assert!(!h.verify("s3cret "));
        assert!(!h.verify(""));
        let back = PasswordHash::decode(&h.encode()).expect("decode");
        assert_eq!(back, h);
        assert!(back.verify("s3cret"));
    }

    #[test]
    fn equal_passwords_get_different_salts() {
        let a = PasswordHash::new("same", ITERATIONS_MIN).expect("hash");
        let b = PasswordHash::new("same", ITERATIONS_MIN).expect("hash");
        assert_ne!(a.encode(), b.encode());
    }

    #[test]
    fn the_rfc_6070_style_vector_holds_for_sha256() {
        // PBKDF2-HMAC-SHA256("password", "salt", 1 iteration), a published test vector.
        let out = derive(b"password", b"salt", 1);
        assert_eq!(out[..8], [0x12, 0x0f, 0xb6, 0xcf, 0xfc, 0xf8, 0xb3, 0x2c]);
    }

    #[test]
    fn damaged_and_unsafe_records_are_refused_by_name() {
        for (text, says) in [
            ("nope", "expected SCHEME"),
            ("md5$1000$AAAA$AAAA", "unknown scheme 'md5'"),
            ("pbkdf2-sha256$x$AAAA$AAAA", "not a number"),
            ("pbkdf2-sha256$1$AAAAAAAAAAAAAAAAAAAAAA$AAAA", "between"),
            ("pbkdf2-sha256$4096$AAAA$AAAA", "salt"),
        ] {
            let err = PasswordHash::decode(text).expect_err(text).to_string();
            assert!(err.contains(says), "{text}: {err}");
        }
        assert!(PasswordHash::new("", ITERATIONS_MIN).is_err());
        assert!(PasswordHash::new(&"x".repeat(2000), ITERATIONS_MIN).is_err());
    }
}
