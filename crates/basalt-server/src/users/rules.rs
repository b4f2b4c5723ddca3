//! Who may manage which user, a pure decision over the caller and the call.
//!
//! | call           | superuser | the user itself (target = caller) | anyone else |
//! |----------------|-----------|-----------------------------------|-------------|
//! | `AddUser`      | yes       | —                                 | denied      |
//! | `Passwd`       | yes       | yes                               | denied      |
//! | `RemoveUser`   | yes       | denied                            | denied      |
//! | `ListUsers`    | yes       | —                                 | denied      |
//! | `IssueToken`   | yes       | yes                               | denied      |
//! | `RevokeTokens` | yes       | yes                               | denied      |
//!
//! A user may not remove itself: removing a user is an administrator's act (and a
//! superuser removing the last superuser is its own business, as with `--data-dir`).

/// A `UserService` call, by the user it is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call<'a> {
    Add(&'a str),
    Passwd(&'a str),
    Remove(&'a str),
    List,
    IssueToken(&'a str),
    RevokeTokens(&'a str),
}

impl Call<'_> {
    /// The method's name, for messages and the audit log.
    pub fn method(&self) -> &'static str {
        match self {
            Call::Add(_) => "AddUser",
            Call::Passwd(_) => "Passwd",
            Call::Remove(_) => "RemoveUser",
            Call::List => "ListUsers",
            Call::IssueToken(_) => "IssueToken",
            Call::RevokeTokens(_) => "RevokeTokens",
        }
    }

    /// The user the call is about ("*" for a listing).
    pub fn target(&self) -> &str {
        match self {
            Call::Add(n)
            | Call::Passwd(n)
            | Call::Remove(n)
            | Call::IssueToken(n)
            | Call::RevokeTokens(n) => n,
            Call::List => "*",
        }
    }

    /// Whether a user may make this call about itself.
    fn on_oneself(&self) -> bool {
        matches!(
            self,
            Call::Passwd(_) | Call::IssueToken(_) | Call::RevokeTokens(_)
        )
    }
}

/// Allowed, or why not (the text of HBase's `AccessDeniedException`).
pub fn decide(caller: &str, superuser: bool, call: Call<'_>) -> Result<(), String> {
    if superuser || (call.on_oneself() && call.target() == caller) {
        return Ok(());
    }
    let who = match call.on_oneself() {
        true => "superusers, or the user itself",
        false => "superusers only",
    };
    Err(format!(
        "Insufficient permissions for user '{caller}' ({} of user '{}': {who})",
        call.method(),
        call.target()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn who_may_do_what_follows_the_table() {
        // (caller, superuser, call, allowed)
        let golden = [
            ("admin", true, Call::Add("bob"), true),
            ("admin", true, Call::Passwd("alice"), true),
            ("admin", true, Call::Remove("alice"), true),
            ("admin", true, Call::List, true),
            ("admin", true, Call::IssueToken("alice"), true),
            ("admin", true, Call::RevokeTokens("alice"), true),
            ("alice", false, Call::Add("bob"), false),
            ("alice", false, Call::Add("alice"), false),
            ("alice", false, Call::Passwd("alice"), true),
            ("alice", false, Call::Passwd("admin"), false),
            ("alice", false, Call::Remove("alice"), false),
            ("alice", false, Call::Remove("bob"), false),
            ("alice", false, Call::List, false),
            ("alice", false, Call::IssueToken("alice"), true),
            ("alice", false, Call::IssueToken("admin"), false),
            ("alice", false, Call::RevokeTokens("alice"), true),
            ("alice", false, Call::RevokeTokens("bob"), false),
        ];
        for (caller, superuser, call, allowed) in golden {
            assert_eq!(
                decide(caller, superuser, call).is_ok(),
                allowed,
                "{caller} {superuser} {call:?}"
            );
        }
    }

    #[test]
    fn a_refusal_names_the_user_the_call_and_who_may() {
        let e = decide("alice", false, Call::Passwd("admin")).expect_err("denied");
        assert_eq!(
            e,
            "Insufficient permissions for user 'alice' (Passwd of user 'admin': superusers, or the user itself)"
        );
        let e = decide("alice", false, Call::Add("bob")).expect_err("denied");
        assert!(e.ends_with("superusers only)"), "{e}");
    }
}
