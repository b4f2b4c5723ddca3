//! The configuration page (`/conf`): the effective settings, as the server resolved them
//! from its file, environment and flags.

use crate::layout::{note, page_in, section, Section};
use crate::server::AppState;

pub fn render(state: &AppState) -> String {
    page_in(state.role(), "Configuration", Section::Configuration, |h| {
        section(h, "Effective configuration", |h| {
            if state.info.config_text.is_empty() {
                note(h, "The server did not provide its configuration.");
            } else {
                h.el_text("pre", &[], &state.info.config_text);
            }
        });
    })
}
