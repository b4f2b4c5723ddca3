//! The frame around every page: head, stylesheet, navigation, footer; and the small
//! pieces pages share (key/value lists, tables with headers, shell-escaped keys).

use crate::html::Html;
use crate::source::Role;

/// The stylesheet, served at [`STYLESHEET_PATH`] from the binary.
pub const STYLESHEET: &str = include_str!("basalt.css");
pub const STYLESHEET_PATH: &str = "/static/basalt.css";

/// The sections of the navigation bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    Home,
    Table,
    RegionServer,
    Configuration,
    Logs,
    Other,
}

/// A link of the navigation bar: the section it leads to, where, and its label.
type NavLink = (Section, &'static str, &'static str);

const NAV: [NavLink; 5] = [
    (Section::Home, "/master-status", "Home"),
    (Section::RegionServer, "/rs-status", "Region server"),
    (Section::Configuration, "/conf", "Configuration"),
    (Section::Logs, "/logs", "Logs"),
    (Section::Other, "/metrics", "Metrics"),
];

/// A cluster's master serves no region; its region servers have their own pages.
const NAV_MASTER: [NavLink; 4] = [
    (Section::Home, "/master-status", "Home"),
    (Section::Configuration, "/conf", "Configuration"),
    (Section::Logs, "/logs", "Logs"),
    (Section::Other, "/metrics", "Metrics"),
];

/// A region server's home is its status page.
const NAV_REGION_SERVER: [NavLink; 4] = [
    (Section::RegionServer, "/rs-status", "Home"),
    (Section::Configuration, "/conf", "Configuration"),
    (Section::Logs, "/logs", "Logs"),
    (Section::Other, "/metrics", "Metrics"),
];

fn nav(role: Role) -> &'static [NavLink] {
    match role {
        Role::Standalone => &NAV,
        Role::Master => &NAV_MASTER,
        Role::RegionServer => &NAV_REGION_SERVER,
    }
}

/// A whole page of a standalone server: `title` in the head and as the heading, `body` in
/// `<main>`.
pub fn page(title: &str, section: Section, body: impl FnOnce(&mut Html)) -> String {
    page_in(Role::Standalone, title, section, body)
}

/// A whole page, with the navigation of the kind of process serving it.
pub fn page_in(role: Role, title: &str, section: Section, body: impl FnOnce(&mut Html)) -> String {
    Html::document(|h| {
        h.el("html", &[("lang", "en")], |h| {
            h.el("head", &[], |h| {
                h.void("meta", &[("charset", "utf-8")]);
                h.void(
                    "meta",
                    &[
                        ("name", "viewport"),
                        ("content", "width=device-width, initial-scale=1"),
                    ],
                );
                h.el_text("title", &[], &format!("{title} · Basalt"));
                h.void("link", &[("rel", "stylesheet"), ("href", STYLESHEET_PATH)]);
            });
            h.el("body", &[], |h| {
                h.el("header", &[], |h| {
                    h.el("a", &[("class", "brand"), ("href", "/")], |h| {
                        h.el_text("span", &[("class", "logo")], "◆");
                        h.text(" Basalt");
                    });
                    h.el("nav", &[], |h| {
                        for &(s, href, label) in nav(role) {
                            if s == section && s != Section::Other {
                                h.el_text("a", &[("href", href), ("class", "active")], label);
                            } else {
                                h.el_text("a", &[("href", href)], label);
                            }
                        }
                    });
                });
                h.el("main", &[], |h| {
                    h.el_text("h1", &[], title);
                    body(h);
                });
                h.el("footer", &[], |h| {
                    h.text("Basalt — Apache HBase rebuilt in Rust · ");
                    if role != Role::Master {
                        h.el_text("a", &[("href", "/jmx")], "JMX");
                        h.text(" · ");
                    }
                    h.el_text("a", &[("href", "/prometheus")], "Prometheus");
                });
            });
        });
    })
}

/// A section with a heading.
pub fn section(h: &mut Html, title: &str, body: impl FnOnce(&mut Html)) {
    h.el("section", &[], |h| {
        h.el_text("h2", &[], title);
        body(h);
    });
}

/// A two-column table of names and values.
pub fn facts(h: &mut Html, rows: &[(&str, String)]) {
    h.el("table", &[("class", "facts")], |h| {
        h.el("tbody", &[], |h| {
            for (name, value) in rows {
                h.el("tr", &[], |h| {
                    h.el_text("th", &[("scope", "row")], name);
                    h.el_text("td", &[], value);
                });
            }
        });
    });
}

/// A table with a header row; `rows` writes the body rows.
pub fn grid(h: &mut Html, class: &'static str, headers: &[&str], rows: impl FnOnce(&mut Html)) {
    h.el("div", &[("class", "scroll")], |h| {
        h.el("table", &[("class", class)], |h| {
            h.el("thead", &[], |h| {
                h.el("tr", &[], |h| {
                    for header in headers {
                        h.el_text("th", &[("scope", "col")], header);
                    }
                });
            });
            h.el("tbody", &[], rows);
        });
    });
}

/// Bytes as the shell prints them (`\x00` for the unprintable), empty shown as a dash.
pub fn key(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        String::new()
    } else {
        basalt_types::escape::to_string_binary(bytes)
    }
}

/// A message in a box, for empty lists and notes.
pub fn note(h: &mut Html, text: &str) {
    h.el_text("p", &[("class", "note")], text);
}
