//! Error pages: the status, and what was wrong, escaped like everything else.

use crate::layout::{page_in, section, Section};
use crate::source::Role;
use crate::WebError;

pub fn render(role: Role, error: &WebError) -> String {
    let status = error.status();
    let title = format!(
        "{} {}",
        status.as_u16(),
        status.canonical_reason().unwrap_or("Error")
    );
    page_in(role, &title, Section::Other, |h| {
        section(h, "What went wrong", |h| {
            h.el_text("p", &[("class", "problem")], &error.to_string());
            h.el("p", &[], |h| {
                h.el_text("a", &[("href", "/")], "Back to the home page");
            });
        });
    })
}
