//! What a client presents, parsed from an HTTP `Authorization` header (gRPC metadata, REST).
//!
//! | header | means |
//! |---|---|
//! | `Basic base64(user:password)` | a user's password (RFC 7617) |
//! | `Bearer TOKEN` | a token `basalt user token` issued (RFC 6750) |
//! | `Basalt-Cluster SECRET` | another server of the same cluster |
//!
//! Parsing is pure and cheap; checking (hashing, lookups) is the authenticator's.

use crate::AuthError;
use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use std::fmt;

/// The scheme servers of one cluster present the cluster secret under.
pub const CLUSTER_SCHEME: &str = "Basalt-Cluster";
/// The longest header value looked at (longer is refused unread).
pub const HEADER_MAX_BYTES: usize = 4096;

/// Credentials as a client presents them.
#[derive(Clone, PartialEq, Eq)]
pub enum Credentials {
    Password { user: String, password: String },
    Token(String),
    ClusterSecret(String),
}

/// Never prints a secret.
impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Credentials::Password { user, .. } => write!(f, "Password({user}, ***)"),
            Credentials::Token(_) => write!(f, "Token(***)"),
            Credentials::ClusterSecret(_) => write!(f, "ClusterSecret(***)"),
        }
    }
}

impl Credentials {
    /// The user a client claims to be, for the audit log (tokens and secrets name none
    /// until checked).
    pub fn claimed_user(&self) -> &str {
        match self {
            Credentials::Password { user, .. } => user,
            Credentials::Token(_) => "(token)",
            Credentials::ClusterSecret(_) => "(cluster)",
        }
    }

    /// The `Authorization` header value that presents these credentials.
    pub fn header_value(&self) -> String {
        match self {
            Credentials::Password { user, password } => {
                format!("Basic {}", B64.encode(format!("{user}:{password}")))
            }
            Credentials::Token(token) => format!("Bearer {token}"),
            Credentials::ClusterSecret(secret) => format!("{CLUSTER_SCHEME} {secret}"),
        }
    }

    /// Parses an `Authorization` header value; the error says what is wrong with it.
    pub fn parse(header: &str) -> Result<Self, AuthError> {
        if header.len() > HEADER_MAX_BYTES {
            return Err(AuthError::BadCredentials(format!(
                "the authorization header is {} bytes; at most {HEADER_MAX_BYTES} are read",
                header.len()
            )));
        }
        let (scheme, rest) = header.trim().split_once(' ').ok_or_else(|| {
            AuthError::BadCredentials(
                "the authorization header is not 'SCHEME CREDENTIALS' (Basic or Bearer)".into(),
            )
        })?;
        let rest = rest.trim();
        if scheme.eq_ignore_ascii_case("basic") {
            let decoded = B64
                .decode(rest)
                .ok()
                .and_then(|d| String::from_utf8(d).ok())
                .ok_or_else(|| {
                    AuthError::BadCredentials("Basic credentials are not base64 of UTF-8".into())
                })?;
            let (user, password) = decoded.split_once(':').ok_or_else(|| {
                AuthError::BadCredentials("Basic credentials are not 'user:password'".into())
            })?;
            return Ok(Credentials::Password {
                user: user.to_string(),
                password: password.to_string(),
            });
        }
        if scheme.eq_ignore_ascii_case("bearer") {
            return Ok(Credentials::Token(rest.to_string()));
        }
        if scheme.eq_ignore_ascii_case(CLUSTER_SCHEME) {
            return Ok(Credentials::ClusterSecret(rest.to_string()));
        }
        Err(AuthError::BadCredentials(format!(
            "unknown authorization scheme '{scheme}' (Basic or Bearer)"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_form_round_trips_through_its_header() {
        for c in [
            Credentials::Password {
                user: "alice".into(),
                password: "pa:ss wörd".into(),
            },
            Credentials::Token("bst_abc".into()),
            Credentials::ClusterSecret("s".into()),
        ] {
            assert_eq!(Credentials::parse(&c.header_value()).expect("parses"), c);
        }
        assert_eq!(
            Credentials::parse("basic YWxpY2U6eA==").expect("case-insensitive scheme"),
            Credentials::Password {
                user: "alice".into(),
                password: "x".into()
            }
        );
    }

    #[test]
    fn malformed_headers_say_what_is_wrong() {
        for (header, says) in [
            ("Basic", "not 'SCHEME CREDENTIALS'"),
            ("Basic !!!", "not base64"),
            ("Basic YWxpY2U=", "not 'user:password'"),
            ("Digest x", "unknown authorization scheme 'Digest'"),
        ] {
            let err = Credentials::parse(header).expect_err(header).to_string();
            assert!(err.contains(says), "{header}: {err}");
        }
        let long = format!("Bearer {}", "x".repeat(HEADER_MAX_BYTES));
        assert!(Credentials::parse(&long).is_err());
    }

    #[test]
    fn debug_output_hides_secrets() {
        let c = Credentials::Password {
            user: "alice".into(),
            password: "hunter2".into(),
        };
        assert!(!format!("{c:?}").contains("hunter2"));
    }
}
