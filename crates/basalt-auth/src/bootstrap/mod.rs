//! The one-time bootstrap token: how the first superuser is made through a running
//! server without trusting whoever first reaches its port.
//!
//! When a server with authentication required becomes the active master and the store
//! holds no superuser user (one made with `--superuser`; names in `[security] superusers`
//! do not count, they cannot sign in without a user), it makes a random token, keeps only
//! its SHA-256 digest under [`KEY`] (put-if-absent, so two masters agree on one) and prints
//! it once, with the command that uses it. `AddUser` of a superuser carrying that token is
//! the one call allowed without authentication; it creates the user and deletes the record
//! in one transaction, so the token works once. It expires after [`TTL`] (24 h); a master
//! that activates later makes a new one if none is pending and no superuser exists.
//!
//! ```text
//! security/bootstrap   {"digest":"<sha256 hex>","issued_ms":…,"expires_ms":…,"by":"host:16000"}
//! ```
//!
//! What a master does at activation is decided by [`decide`], a pure function:
//!
//! | superuser user exists | record             | decision            |
//! |-----------------------|--------------------|---------------------|
//! | yes                   | none               | `NotNeeded`         |
//! | yes                   | any                | `Retire` (delete it: a superuser exists, it must not make another) |
//! | no                    | none               | `Issue` (put-if-absent) |
//! | no                    | expired            | `Replace` (compare its revision) |
//! | no                    | live               | `Pending` (printed earlier; say until when) |
//!
//! # Layout
//! - this file: the record, the metadata key, the decision.
//! - [`store`]: the coordinator side: issue, check, and the add that uses the token.

pub mod store;

use crate::AuthError;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Where the digest of the pending token lives, beside the users.
pub const KEY: &str = "security/bootstrap";
/// How long a bootstrap token is valid.
pub const TTL: Duration = Duration::from_secs(24 * 3600);
/// The gRPC metadata key a client sends the token in (`AddUser` only).
pub const HEADER: &str = "basalt-bootstrap-token";

/// The pending token, as the coordinator keeps it (never the token itself).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BootstrapRecord {
    /// SHA-256 of the token, lowercase hex.
    pub digest: String,
    pub issued_ms: u64,
    pub expires_ms: u64,
    /// The master that made (and printed) it.
    pub by: String,
}

impl BootstrapRecord {
    pub fn encode(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    pub fn decode(value: &[u8]) -> Result<Self, AuthError> {
        serde_json::from_slice(value).map_err(|e| AuthError::Damaged(format!("{KEY}: {e}")))
    }

    pub fn expired(&self, now_ms: u64) -> bool {
        now_ms >= self.expires_ms
    }
}

/// What a master does about the bootstrap token when it becomes active.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// A superuser exists and no record is left: nothing to do.
    NotNeeded,
    /// A superuser exists: the leftover record goes (its token must not make another).
    Retire,
    /// No superuser, no record: make and print a token.
    Issue,
    /// No superuser, the record expired: make and print a new one in its place.
    Replace,
    /// No superuser, a live token was printed earlier: say so, make none.
    Pending,
}

/// The decision: see the table in the module doc.
pub fn decide(superuser_exists: bool, record: Option<&BootstrapRecord>, now_ms: u64) -> Decision {
    match (superuser_exists, record) {
        (true, None) => Decision::NotNeeded,
        (true, Some(_)) => Decision::Retire,
        (false, None) => Decision::Issue,
        (false, Some(r)) if r.expired(now_ms) => Decision::Replace,
        (false, Some(_)) => Decision::Pending,
    }
}

/// The command a printed token is used with.
pub fn command(address: &str, token: &str) -> String {
    format!("basalt user add admin --superuser --connect {address} --bootstrap-token {token}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_decision_follows_its_table() {
        let record = |expires_ms| BootstrapRecord {
            digest: "d".into(),
            issued_ms: 0,
            expires_ms,
            by: "m:1".into(),
        };
        let (live, expired) = (record(2_000), record(1_000));
        let golden = [
            (true, None, Decision::NotNeeded),
            (true, Some(&live), Decision::Retire),
            (true, Some(&expired), Decision::Retire),
            (false, None, Decision::Issue),
            (false, Some(&expired), Decision::Replace),
            (false, Some(&live), Decision::Pending),
        ];
        for (superuser, rec, want) in golden {
            assert_eq!(decide(superuser, rec, 1_000), want, "{superuser} {rec:?}");
        }
    }

    #[test]
    fn a_damaged_record_names_its_key() {
        let err = BootstrapRecord::decode(b"{").expect_err("damaged");
        assert!(err.to_string().contains(KEY), "{err}");
    }
}
