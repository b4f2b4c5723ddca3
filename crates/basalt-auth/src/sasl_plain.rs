//! SASL PLAIN (RFC 4616): the one message a client sends, parsed into [`Credentials`].
//!
//! The message is `authzid NUL authcid NUL passwd`, each part UTF-8 without NUL:
//!
//! | bytes | means |
//! |---|---|
//! | `\0alice\0s3cret` | alice, password `s3cret` (no authorization identity) |
//! | `alice\0alice\0s3cret` | the same: acting as oneself |
//! | `bob\0alice\0s3cret` | alice asking to act as bob: refused (no impersonation) |
//!
//! A `basalt user token` may stand in for the password with the user name `_token`
//! (what programs holding a token send). Thrift's SASL transport and the native RPC's
//! SASL exchange both hand their PLAIN message here; checking is the authenticator's.

use crate::{AuthError, Credentials};

/// The SASL mechanism's name.
pub const MECHANISM: &str = "PLAIN";
/// The longest PLAIN message read (RFC 4616 allows 255 bytes per part).
pub const MESSAGE_MAX_BYTES: usize = 4096;
/// The user name that presents a token as the password.
pub const TOKEN_USER: &str = "_token";

/// Parses one PLAIN message; the error says what is wrong with it.
pub fn parse(message: &[u8]) -> Result<Credentials, AuthError> {
    if message.len() > MESSAGE_MAX_BYTES {
        return Err(AuthError::BadCredentials(format!(
            "the SASL PLAIN message is {} bytes; at most {MESSAGE_MAX_BYTES} are read",
            message.len()
        )));
    }
    let parts: Vec<&[u8]> = message.split(|b| *b == 0).collect();
    let [authzid, authcid, password] = parts.as_slice() else {
        return Err(AuthError::BadCredentials(format!(
            "a SASL PLAIN message is 'authzid NUL authcid NUL password' (3 parts), not {} parts",
            parts.len()
        )));
    };
    let text = |part: &[u8], what: &str| {
        String::from_utf8(part.to_vec())
            .map_err(|_| AuthError::BadCredentials(format!("the SASL PLAIN {what} is not UTF-8")))
    };
    let (authzid, user, password) = (
        text(authzid, "authorization identity")?,
        text(authcid, "user name")?,
        text(password, "password")?,
    );
    if user.is_empty() {
        return Err(AuthError::BadCredentials(
            "the SASL PLAIN user name is empty".into(),
        ));
    }
    if !authzid.is_empty() && authzid != user {
        return Err(AuthError::BadCredentials(format!(
            "'{user}' asks to act as '{authzid}': acting as another user is not supported"
        )));
    }
    Ok(match user.as_str() {
        TOKEN_USER => Credentials::Token(password),
        _ => Credentials::Password { user, password },
    })
}

/// The PLAIN message presenting `user`'s `password` (clients and tests).
pub fn message(user: &str, password: &str) -> Vec<u8> {
    format!("\0{user}\0{password}").into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn password(user: &str, password: &str) -> Credentials {
        Credentials::Password {
            user: user.into(),
            password: password.into(),
        }
    }

    #[test]
    fn each_form_of_the_table_parses() {
        assert_eq!(
            parse(b"\0alice\0s3cret").expect("plain"),
            password("alice", "s3cret")
        );
        assert_eq!(
            parse(b"alice\0alice\0s3cret").expect("as oneself"),
            password("alice", "s3cret")
        );
        assert_eq!(
            parse(&message("bob", "")).expect("empty password"),
            password("bob", "")
        );
        assert_eq!(
            parse(b"\0_token\0bst_abc").expect("token"),
            Credentials::Token("bst_abc".into())
        );
    }

    #[test]
    fn malformed_messages_say_what_is_wrong() {
        for (bytes, says) in [
            (&b"alice\0s3cret"[..], "not 2 parts"),
            (b"\0a\0b\0c", "not 4 parts"),
            (b"", "not 1 parts"),
            (b"\0\0pw", "user name is empty"),
            (b"bob\0alice\0pw", "acting as another user"),
            (b"\0al\xffice\0pw", "user name is not UTF-8"),
        ] {
            let err = parse(bytes).expect_err(says).to_string();
            assert!(err.contains(says), "{bytes:?}: {err}");
        }
        assert!(parse(&vec![b'a'; MESSAGE_MAX_BYTES + 1]).is_err());
    }
}
