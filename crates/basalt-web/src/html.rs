//! A tiny typed HTML builder in which every piece of text is escaped.
//!
//! Tags and attribute names are `&'static str` — written in this crate, never taken from a
//! request or the database — while text and attribute values go through [`escape`]. There
//! is no way to append raw markup, so a row key `<script>` can only ever become the text
//! `&lt;script&gt;`.
//!
//! ```text
//! h.el("td", &[("class", "key")], |h| h.text("a<b"));   =>   <td class="key">a&lt;b</td>
//! ```

/// HTML with every text and attribute value escaped.
#[derive(Debug, Default)]
pub struct Html {
    out: String,
}

/// Attributes of an element: static names, values escaped when written.
pub type Attrs<'a> = &'a [(&'static str, &'a str)];

impl Html {
    /// A document: the doctype, then whatever `body` writes.
    pub fn document(body: impl FnOnce(&mut Html)) -> String {
        let mut h = Html {
            out: String::from("<!DOCTYPE html>\n"),
        };
        body(&mut h);
        h.out
    }

    /// What was written (a fragment, without a doctype unless [`Html::document`] began it).
    pub fn into_string(self) -> String {
        self.out
    }

    /// Escaped text.
    pub fn text(&mut self, text: &str) -> &mut Self {
        escape_into(text, &mut self.out);
        self
    }

    /// An element with children written by `body`.
    pub fn el(
        &mut self,
        tag: &'static str,
        attrs: Attrs,
        body: impl FnOnce(&mut Html),
    ) -> &mut Self {
        self.open(tag, attrs);
        body(self);
        self.out.push_str("</");
        self.out.push_str(tag);
        self.out.push('>');
        self
    }

    /// An element holding only escaped text.
    pub fn el_text(&mut self, tag: &'static str, attrs: Attrs, text: &str) -> &mut Self {
        self.el(tag, attrs, |h| {
            h.text(text);
        })
    }

    /// An element without content or end tag (`meta`, `link`, `input`).
    pub fn void(&mut self, tag: &'static str, attrs: Attrs) -> &mut Self {
        self.open(tag, attrs);
        self
    }

    fn open(&mut self, tag: &'static str, attrs: Attrs) {
        self.out.push('<');
        self.out.push_str(tag);
        for (name, value) in attrs {
            self.out.push(' ');
            self.out.push_str(name);
            self.out.push_str("=\"");
            escape_into(value, &mut self.out);
            self.out.push('"');
        }
        self.out.push('>');
    }
}

/// Escapes text for HTML content and quoted attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_into(text, &mut out);
    out
}

fn escape_into(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_attribute_values_are_escaped() {
        let page = Html::document(|h| {
            h.el("p", &[("title", "\"><script>x</script>")], |h| {
                h.text("<b>&'");
            });
        });
        assert_eq!(
            page,
            "<!DOCTYPE html>\n<p title=\"&quot;&gt;&lt;script&gt;x&lt;/script&gt;\">&lt;b&gt;&amp;&#39;</p>"
        );
    }

    #[test]
    fn void_elements_have_no_end_tag() {
        let page = Html::document(|h| {
            h.void("input", &[("name", "start"), ("value", "a&b")]);
        });
        assert!(page.ends_with("<input name=\"start\" value=\"a&amp;b\">"));
        assert_eq!(escape("plain"), "plain");
    }
}
