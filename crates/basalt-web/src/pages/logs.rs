//! The logs page (`/logs`): the most recent log lines, newest first; `?level=warn` keeps
//! warnings and errors only.

use crate::html::Html;
use crate::layout::{grid, note, page_in, section, Section};
use crate::logs::LogLine;
use crate::query::Query;
use crate::server::AppState;
use crate::{units, WebError};

pub fn render(state: &AppState, query: &Query) -> Result<String, WebError> {
    let (lines, title) = match query.get("level").unwrap_or("") {
        "" | "all" => (state.info.logs.lines(), "Recent log lines"),
        "warn" => (state.info.logs.problems(), "Recent warnings and errors"),
        other => {
            return Err(WebError::BadRequest(format!(
                "level must be 'all' or 'warn', not '{other}'"
            )))
        }
    };
    Ok(page_in(state.role(), "Logs", Section::Logs, |h| {
        h.el("p", &[], |h| {
            h.el_text("a", &[("href", "/logs")], "All lines");
            h.text(" · ");
            h.el_text("a", &[("href", "/logs?level=warn")], "Warnings and errors");
        });
        section(h, title, |h| {
            if lines.is_empty() {
                note(h, "Nothing logged yet.");
            } else {
                log_grid(h, lines.iter().rev());
            }
        });
    }))
}

/// Log lines as a table: time, level, target, message.
pub(crate) fn log_grid<'a>(h: &mut Html, lines: impl Iterator<Item = &'a LogLine>) {
    grid(h, "logs", &["Time", "Level", "Target", "Message"], |h| {
        for line in lines {
            let level = line.level.as_str();
            let class = match level {
                "WARN" => "level-WARN",
                "ERROR" => "level-ERROR",
                _ => "",
            };
            h.el("tr", &[], |h| {
                h.el_text(
                    "td",
                    &[("class", "mono")],
                    &units::timestamp_ms(line.time_ms),
                );
                h.el_text("td", &[("class", class)], level);
                h.el_text("td", &[("class", "mono")], &line.target);
                h.el_text("td", &[("class", "mono")], &line.message);
            });
        }
    });
}
