//! XML in and out. Writing escapes every attribute and text; reading builds a small
//! element tree with limits on depth and size, and refuses DTDs (no entity expansion).

use crate::error::{RestError, Result};
use quick_xml::events::Event;
use quick_xml::Reader;

/// Deepest element nesting accepted (models nest at most four deep).
const DEPTH_MAX: usize = 16;
/// Most elements one document may hold.
const ELEMENTS_MAX: usize = 1_000_000;

/// The XML declaration every document starts with.
pub const DECLARATION: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#;

/// Escapes text for an attribute value or element content.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => {
                out.push_str(&format!("&#{};", c as u32))
            }
            c => out.push(c),
        }
    }
    out
}

/// `name="value"` pairs, escaped, each preceded by a space.
pub fn attrs(pairs: &[(&str, String)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!(" {k}=\"{}\"", escape(v)))
        .collect()
}

/// One element of a parsed document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Element {
    pub name: String,
    pub attributes: Vec<(String, String)>,
    pub children: Vec<Element>,
    pub text: String,
}

impl Element {
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }

    /// Fails unless the element is called `name`.
    pub fn expect_name(&self, name: &str) -> Result<()> {
        if self.name == name {
            Ok(())
        } else {
            Err(RestError::bad(format!(
                "malformed XML: expected a <{name}> element, found <{}>",
                self.name
            )))
        }
    }
}

fn malformed(e: impl std::fmt::Display) -> RestError {
    RestError::bad(format!("malformed XML: {e}"))
}

fn open(start: &quick_xml::events::BytesStart<'_>) -> Result<Element> {
    let name = String::from_utf8(start.local_name().as_ref().to_vec()).map_err(malformed)?;
    let mut attributes = Vec::new();
    for attr in start.attributes() {
        let attr = attr.map_err(malformed)?;
        let key = String::from_utf8(attr.key.local_name().as_ref().to_vec()).map_err(malformed)?;
        let value = attr.unescape_value().map_err(malformed)?.into_owned();
        attributes.push((key, value));
    }
    Ok(Element {
        name,
        attributes,
        ..Element::default()
    })
}

/// Parses a document into its root element.
pub fn parse(body: &[u8]) -> Result<Element> {
    let mut reader = Reader::from_reader(body);
    let mut stack: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    let mut elements = 0usize;
    let mut buf = Vec::new();
    loop {
        let event = reader.read_event_into(&mut buf).map_err(malformed)?;
        match event {
            Event::Start(start) => {
                let element = admit(&start, &stack, &root, &mut elements)?;
                stack.push(element);
            }
            Event::Empty(start) => {
                let element = admit(&start, &stack, &root, &mut elements)?;
                close(element, &mut stack, &mut root);
            }
            Event::End(_) => match stack.pop() {
                Some(element) => close(element, &mut stack, &mut root),
                None => return Err(malformed("a closing tag without an opening one")),
            },
            Event::Text(text) => {
                let text = text.unescape().map_err(malformed)?;
                match stack.last_mut() {
                    Some(top) => top.text.push_str(&text),
                    None if text.trim().is_empty() => {}
                    None => return Err(malformed("text outside the root element")),
                }
            }
            Event::CData(data) => {
                let text = std::str::from_utf8(&data).map_err(malformed)?.to_string();
                match stack.last_mut() {
                    Some(top) => top.text.push_str(&text),
                    None => return Err(malformed("CDATA outside the root element")),
                }
            }
            Event::DocType(_) => return Err(malformed("DTDs are not accepted")),
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    if !stack.is_empty() {
        return Err(malformed("the document ends inside an element"));
    }
    root.ok_or_else(|| malformed("the document has no root element"))
}

/// Opens an element after checking the document's limits.
fn admit(
    start: &quick_xml::events::BytesStart<'_>,
    stack: &[Element],
    root: &Option<Element>,
    elements: &mut usize,
) -> Result<Element> {
    *elements += 1;
    if *elements > ELEMENTS_MAX || stack.len() >= DEPTH_MAX {
        return Err(malformed("the document is too large or too deeply nested"));
    }
    if root.is_some() {
        return Err(malformed("content after the root element"));
    }
    open(start)
}

fn close(element: Element, stack: &mut [Element], root: &mut Option<Element>) {
    match stack.last_mut() {
        Some(parent) => parent.children.push(element),
        None => *root = Some(element),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_attributes_children_and_text() {
        let doc = br#"<?xml version="1.0"?><CellSet><Row key="a&amp;b"><Cell column="Y2Y6YQ==">dg==</Cell></Row></CellSet>"#;
        let root = parse(doc).expect("valid");
        assert_eq!(root.name, "CellSet");
        let row = &root.children[0];
        assert_eq!(row.attr("key"), Some("a&b"));
        assert_eq!(row.children[0].text, "dg==");
    }

    #[test]
    fn escaping_round_trips() {
        let text = "<a & \"b\" 'c'>\u{1}";
        let doc = format!("<x v=\"{}\">{}</x>", escape(text), escape(text));
        let root = parse(doc.as_bytes()).expect("valid");
        assert_eq!(root.attr("v"), Some(text));
        assert_eq!(root.text, text);
    }

    #[test]
    fn malformed_documents_fail() {
        for bad in [
            &b""[..],
            b"<a>",
            b"</a>",
            b"<a></b>",
            b"<a/><b/>",
            b"text",
            b"<!DOCTYPE a [<!ENTITY x \"y\">]><a>&x;</a>",
            b"<a x=\"1\" x=\"2\"/>",
            b"<a>&bogus;</a>",
        ] {
            assert!(parse(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
        let deep = "<a>".repeat(100) + &"</a>".repeat(100);
        assert!(parse(deep.as_bytes()).is_err());
    }
}
