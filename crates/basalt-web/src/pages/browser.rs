//! The data browser of the table page: the first rows from a start key.
//!
//! `&start=KEY` takes the key as the shell prints it (`row\x00`, decoded with
//! `from_string_binary`); `&rows=N` asks for N rows, at most [`ROWS_MAX`]. Every row key,
//! column and value is shown as the shell prints it, then HTML-escaped; long values are cut
//! at [`VALUE_SHOWN_BYTES`]. A link continues after the last row shown.

use crate::html::Html;
use crate::layout::{grid, key, note};
use crate::query::{link, Query};
use crate::server::AppState;
use crate::WebError;
use basalt_types::escape::{from_string_binary, to_string_binary};
use basalt_types::{RowResult, Scan, TableName};

/// Rows shown when the request does not say.
pub const ROWS_DEFAULT: u64 = 10;
/// The most rows one page shows.
pub const ROWS_MAX: u64 = 100;
/// The most cells one page shows (wide rows stop the page early).
pub const CELLS_MAX: usize = 2000;
/// Bytes of a value shown; the rest is summarised.
pub const VALUE_SHOWN_BYTES: usize = 256;
/// The longest start key accepted, in its escaped form.
pub const START_MAX_BYTES: usize = 1024;

/// What the browser was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The start key as typed (escaped form).
    pub start_text: String,
    pub rows: u64,
}

impl Request {
    pub fn from_query(query: &Query) -> Result<Request, WebError> {
        let start_text = query.get("start").unwrap_or("").to_string();
        if start_text.len() > START_MAX_BYTES {
            return Err(WebError::BadRequest(format!(
                "the start key is {} bytes; at most {START_MAX_BYTES} are accepted",
                start_text.len()
            )));
        }
        let rows = match query.get("rows").filter(|r| !r.is_empty()) {
            None => ROWS_DEFAULT,
            Some(text) => text.parse::<u64>().map_err(|_| {
                WebError::BadRequest(format!(
                    "rows must be a whole number from 1 to {ROWS_MAX}, not '{text}'"
                ))
            })?,
        };
        Ok(Request {
            start_text,
            rows: rows.clamp(1, ROWS_MAX),
        })
    }
}

/// Rows read for the page; an error is shown in place of the rows.
pub type Rows = Result<Vec<RowResult>, String>;

pub fn read(state: &AppState, table: &TableName, request: &Request) -> Rows {
    let start = from_string_binary(&request.start_text);
    let scan = Scan::new().start(start).limit(request.rows);
    let conn = state.source.conn().map_err(|e| e.to_string())?;
    let read = || -> basalt_api::Result<Vec<RowResult>> {
        let table = conn.table(table)?;
        let mut rows = Vec::new();
        let mut cells = 0;
        for row in table.scan(&scan)? {
            let row = row?;
            cells += row.cells.len();
            rows.push(row);
            if cells >= CELLS_MAX {
                break;
            }
        }
        Ok(rows)
    };
    read().map_err(|e| e.to_string())
}

pub fn form(h: &mut Html, table: &TableName, request: &Request) {
    let rows = request.rows.to_string();
    let name = table.to_string();
    h.el(
        "form",
        &[
            ("class", "browse"),
            ("method", "get"),
            ("action", "/table.jsp"),
        ],
        |h| {
            h.void(
                "input",
                &[("type", "hidden"), ("name", "name"), ("value", &name)],
            );
            h.el("label", &[], |h| {
                h.text("Start row (as the shell prints it)");
                h.void(
                    "input",
                    &[
                        ("name", "start"),
                        ("value", &request.start_text),
                        ("size", "32"),
                    ],
                );
            });
            h.el("label", &[], |h| {
                h.text("Rows");
                let max = ROWS_MAX.to_string();
                h.void(
                    "input",
                    &[
                        ("name", "rows"),
                        ("type", "number"),
                        ("min", "1"),
                        ("max", &max),
                        ("value", &rows),
                    ],
                );
            });
            h.el_text("button", &[("type", "submit")], "Show");
        },
    );
}

pub fn results(h: &mut Html, table: &TableName, request: &Request, rows: &Rows) {
    let rows = match rows {
        Ok(rows) => rows,
        Err(message) => {
            note(h, &format!("Reading rows failed: {message}"));
            return;
        }
    };
    if rows.is_empty() {
        note(h, "No rows from this start key.");
        return;
    }
    grid(h, "cells", &["Row", "Column", "Timestamp", "Value"], |h| {
        for row in rows {
            for cell in &row.cells {
                h.el("tr", &[], |h| {
                    h.el_text("td", &[("class", "key")], &key(cell.row()));
                    let column = format!(
                        "{}:{}",
                        to_string_binary(cell.family()),
                        to_string_binary(cell.qualifier())
                    );
                    h.el_text("td", &[("class", "mono")], &column);
                    h.el_text("td", &[("class", "num")], &cell.timestamp().to_string());
                    h.el_text("td", &[("class", "mono")], &value_text(cell.value()));
                });
            }
        }
    });
    let last = rows.last().and_then(|r| r.row());
    if let (Some(last), true) = (last, rows.len() as u64 >= request.rows) {
        // The smallest key after the last row shown: the row with a zero byte appended.
        let mut next = last.to_vec();
        next.push(0);
        let href = link(
            "/table.jsp",
            &[
                ("name", &table.to_string()),
                ("start", &to_string_binary(&next)),
                ("rows", &request.rows.to_string()),
            ],
        );
        h.el("p", &[], |h| {
            h.el_text("a", &[("href", &href), ("class", "next")], "Next rows →");
        });
    }
}

fn value_text(value: &[u8]) -> String {
    if value.len() <= VALUE_SHOWN_BYTES {
        to_string_binary(value)
    } else {
        format!(
            "{}… ({} bytes)",
            to_string_binary(&value[..VALUE_SHOWN_BYTES]),
            value.len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_default_cap_and_refuse_garbage() {
        let q = |s: &str| Query::parse(Some(s)).expect("valid query");
        assert_eq!(Request::from_query(&q("")).expect("ok").rows, ROWS_DEFAULT);
        assert_eq!(
            Request::from_query(&q("rows=100000")).expect("ok").rows,
            ROWS_MAX
        );
        assert_eq!(Request::from_query(&q("rows=0")).expect("ok").rows, 1);
        assert!(Request::from_query(&q("rows=-1")).is_err());
        assert!(Request::from_query(&q("rows=1e9")).is_err());
        let long = format!("start={}", "a".repeat(START_MAX_BYTES + 1));
        assert!(Request::from_query(&q(&long)).is_err());
    }

    #[test]
    fn long_values_are_cut() {
        assert_eq!(value_text(b"a\x00"), "a\\x00");
        let long = vec![b'x'; VALUE_SHOWN_BYTES + 5];
        assert!(value_text(&long).ends_with(&format!("… ({} bytes)", VALUE_SHOWN_BYTES + 5)));
    }
}
