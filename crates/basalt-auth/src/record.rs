//! What the coordinator keeps for users and tokens, and the rule for user names.
//!
//! ```text
//! security/users/<name>       {"hash":"pbkdf2-sha256$…","superuser":false,"created_ms":…}
//! security/tokens/<sha256>    {"user":"alice","issued_ms":…,"expires_ms":…}
//! ```
//! JSON, so that an operator reading etcd sees what is there (never a password or a token:
//! only their hashes).

use crate::password::PasswordHash;
use crate::AuthError;
use serde::{Deserialize, Serialize};

pub const USERS: &str = "security/users/";
pub const TOKENS: &str = "security/tokens/";
/// The longest user name.
pub const NAME_MAX_CHARS: usize = 128;

pub fn user_key(name: &str) -> Vec<u8> {
    format!("{USERS}{name}").into_bytes()
}

pub fn token_key(digest: &str) -> Vec<u8> {
    format!("{TOKENS}{digest}").into_bytes()
}

/// The user a verified TLS client certificate names (its first DNS name, else URI, else
/// CN: `basalt_net::tls::identity`): the name itself, or a URI's last path segment
/// (`spiffe://example.org/ns/prod/alice` is `alice`); it must be a valid user name.
pub fn certificate_user(identity: &str) -> Result<String, AuthError> {
    let name = match identity.split_once("://") {
        Some((_, rest)) => rest
            .split_once('/')
            .and_then(|(_, path)| path.trim_end_matches('/').rsplit('/').next())
            .unwrap_or(""),
        None => identity,
    };
    check_name(name).map_err(|e| {
        AuthError::Unauthenticated(format!("the client certificate's name '{identity}': {e}"))
    })?;
    Ok(name.to_string())
}

/// A user name: 1 to 128 of letters, digits, `.`, `_`, `-` and `@` (not first: HBase
/// writes groups as `@name`), not starting with `_` (kept for the cluster's own principal).
pub fn check_name(name: &str) -> Result<(), AuthError> {
    let bad = |why: &str| AuthError::invalid(format!("user name '{name}': {why}"));
    if name.is_empty() || name.chars().count() > NAME_MAX_CHARS {
        return Err(bad(&format!("must be 1 to {NAME_MAX_CHARS} characters")));
    }
    if name.starts_with('@') || name.starts_with('_') {
        return Err(bad(
            "may not start with '@' (a group) or '_' (kept for the cluster)",
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '@')))
    {
        return Err(bad(&format!(
            "'{c}' is not allowed (letters, digits, '.', '_', '-', '@')"
        )));
    }
    Ok(())
}

/// One user as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserRecord {
    pub hash: String,
    #[serde(default)]
    pub superuser: bool,
    #[serde(default)]
    pub created_ms: u64,
}

impl UserRecord {
    pub fn password(&self) -> Result<PasswordHash, AuthError> {
        PasswordHash::decode(&self.hash)
    }

    pub fn encode(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    pub fn decode(key: &[u8], value: &[u8]) -> Result<Self, AuthError> {
        serde_json::from_slice(value)
            .map_err(|e| AuthError::Damaged(format!("{}: {e}", String::from_utf8_lossy(key))))
    }
}

/// One issued token as stored (under its digest).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenRecord {
    pub user: String,
    pub issued_ms: u64,
    pub expires_ms: u64,
}

impl TokenRecord {
    pub fn encode(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    pub fn decode(key: &[u8], value: &[u8]) -> Result<Self, AuthError> {
        serde_json::from_slice(value)
            .map_err(|e| AuthError::Damaged(format!("{}: {e}", String::from_utf8_lossy(key))))
    }

    pub fn expired(&self, now_ms: u64) -> bool {
        now_ms >= self.expires_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_certificate_names_its_user() {
        assert_eq!(certificate_user("alice").as_deref(), Ok("alice"));
        assert_eq!(
            certificate_user("svc.example.com").as_deref(),
            Ok("svc.example.com")
        );
        assert_eq!(
            certificate_user("spiffe://example.org/ns/prod/alice").as_deref(),
            Ok("alice")
        );
        for bad in ["_cluster", "@ops", "a b", "spiffe://example.org/", ""] {
            assert!(certificate_user(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn names_follow_the_rule() {
        for ok in ["alice", "bob.smith", "svc-etl_2", "a@b"] {
            assert!(check_name(ok).is_ok(), "{ok}");
        }
        for (bad, says) in [
            ("", "1 to 128"),
            ("@admins", "'@'"),
            ("_cluster", "'_'"),
            ("a b", "' ' is not allowed"),
            ("a/b", "'/' is not allowed"),
        ] {
            let err = check_name(bad).expect_err(bad).to_string();
            assert!(err.contains(says), "{bad}: {err}");
        }
        assert!(check_name(&"a".repeat(129)).is_err());
    }

    #[test]
    fn a_damaged_record_names_its_key() {
        let err = UserRecord::decode(b"security/users/x", b"{").expect_err("damaged");
        assert!(err.to_string().contains("security/users/x"), "{err}");
    }
}
