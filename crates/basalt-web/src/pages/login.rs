//! The sign-in and sign-out pages (authentication required): a form posting a user and
//! password back to `/login`, and one posting the session's CSRF token to `/logout`.

use crate::layout::{note, page_in, section, Section};
use crate::source::Role;

/// The sign-in form; `problem` says why the last attempt failed; `next` is where to go
/// after signing in (a local path).
pub fn render(role: Role, problem: Option<&str>, next: &str) -> String {
    page_in(role, "Sign in", Section::Other, |h| {
        section(h, "Sign in", |h| {
            if let Some(problem) = problem {
                h.el_text("p", &[("class", "problem")], problem);
            }
            h.el("form", &[("method", "post"), ("action", "/login")], |h| {
                h.void(
                    "input",
                    &[("type", "hidden"), ("name", "next"), ("value", next)],
                );
                h.el("p", &[], |h| {
                    h.el_text("label", &[("for", "user")], "User ");
                    h.void(
                        "input",
                        &[
                            ("id", "user"),
                            ("name", "user"),
                            ("autocomplete", "username"),
                            ("required", "required"),
                        ],
                    );
                });
                h.el("p", &[], |h| {
                    h.el_text("label", &[("for", "password")], "Password ");
                    h.void(
                        "input",
                        &[
                            ("id", "password"),
                            ("name", "password"),
                            ("type", "password"),
                            ("autocomplete", "current-password"),
                            ("required", "required"),
                        ],
                    );
                });
                h.el_text("button", &[("type", "submit")], "Sign in");
            });
            note(
                h,
                "Users are managed with `basalt user`; the pages are for superusers.",
            );
        });
    })
}

/// The sign-out form of a signed-in `user`, carrying the session's CSRF token.
pub fn logout(role: Role, user: &str, csrf: &str) -> String {
    page_in(role, "Sign out", Section::Other, |h| {
        section(h, &format!("Signed in as {user}"), |h| {
            h.el("form", &[("method", "post"), ("action", "/logout")], |h| {
                h.void(
                    "input",
                    &[("type", "hidden"), ("name", "csrf"), ("value", csrf)],
                );
                h.el_text("button", &[("type", "submit")], "Sign out");
            });
        });
    })
}
