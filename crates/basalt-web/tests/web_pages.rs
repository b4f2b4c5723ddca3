//! Every page over real HTTP: status, what it shows (tables, region counts, keys), the
//! security headers, and that names, keys and values full of HTML render as text.

use crate::support;

use basalt_types::TableName;
use basalt_web::logs::LogLine;
use support::{Fixture, TABLE};

/// The split keys and row as they must appear: shell-escaped, then HTML-escaped.
const ESCAPED_KEYS: [&str; 3] = [
    "&lt;script&gt;alert(1)&lt;/script&gt;",
    "m&amp;&quot;q",
    "x\\x00\\xFF",
];

fn assert_no_injected_markup(body: &str, what: &str) {
    for bad in ["<script", "<img", "<b>", "<i>"] {
        assert!(
            !body.contains(bad),
            "{what}: {bad} reached the page as markup"
        );
    }
}

#[test]
fn home_lists_the_table_with_its_regions_and_the_server() {
    let f = Fixture::start();
    for path in ["/", "/master-status"] {
        let r = f.get(path);
        assert_eq!(r.status, 200, "{path}");
        assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"));
        r.assert_security_headers(path);
        let row = r.row_with(&format!(">{TABLE}</a>"));
        assert!(row.contains("href=\"/table.jsp?name=web_t\""), "{row}");
        assert!(row.contains("<td class=\"num\">4</td>"), "4 regions: {row}");
        assert!(r.body.contains("0.1.0-test"), "version shown");
        assert!(r.body.contains(support::GRPC_ADDR), "gRPC address shown");
        assert!(
            r.body.contains(&f.info.data_dir.display().to_string()),
            "data dir shown"
        );
        assert!(
            r.row_with(">localhost,16020</a>")
                .contains("<td class=\"num\">5</td>"),
            "5 regions with hbase:meta"
        );
        assert!(r.body.contains("hbase:meta"));
        assert!(r.body.contains("Cache hit ratio"));
        assert!(r.body.contains("Compactions running"));
        assert_no_injected_markup(&r.body, path);
    }
}

#[test]
fn table_page_shows_schema_regions_keys_and_rows_as_text() {
    let f = Fixture::start();
    for path in ["/table.jsp?name=web_t", "/table?name=default%3Aweb_t"] {
        let r = f.get(path);
        assert_eq!(r.status, 200, "{path}: {}", r.body);
        r.assert_security_headers(path);
        assert!(r.body.contains("<h1>Table web_t</h1>"));
        assert!(r.body.contains("Regions (4)"));
        for key in ESCAPED_KEYS {
            assert!(
                r.body.contains(&format!("<td class=\"key\">{key}</td>")),
                "{key} missing"
            );
        }
        // Every family option is listed.
        for option in [
            "BLOOMFILTER",
            "KEEP_DELETED_CELLS",
            "DATA_BLOCK_ENCODING",
            "BLOCKSIZE",
            "TTL",
        ] {
            assert!(r.body.contains(option), "{option}");
        }
        assert!(
            r.body.contains("<th scope=\"col\">f</th>"),
            "family f is a column"
        );
        assert!(r
            .row_with(">TTL</th>")
            .contains("<td class=\"mono\">FOREVER</td>"));
        // The data browser: the HTML row and value as text.
        let row = r.row_with("&lt;img src=x onerror=alert(1)&gt;");
        assert!(row.contains("&quot;&amp;&lt;b&gt;bold&lt;/b&gt;"), "{row}");
        assert!(r.body.contains("<td class=\"key\">plain</td>"));
        assert_no_injected_markup(&r.body, path);
    }
}

#[test]
fn data_browser_starts_at_the_given_key_and_caps_rows() {
    let f = Fixture::start();
    let r = f.get("/table.jsp?name=web_t&start=p&rows=1");
    assert_eq!(r.status, 200);
    assert!(r.body.contains("<td class=\"key\">plain</td>"));
    assert!(
        !r.body.contains("onerror"),
        "rows before the start key are not shown"
    );
    assert!(
        r.body.contains("start=plain%5Cx00"),
        "a link continues after the last row"
    );
    // An escaped start key is decoded: \x3C is '<', so the HTML row comes first.
    let r = f.get("/table.jsp?name=web_t&start=%5Cx3C&rows=1");
    assert!(r.body.contains("onerror"));
    assert!(!r.body.contains("<td class=\"key\">plain</td>"));
    let r = f.get("/table.jsp?name=web_t&rows=999999");
    assert_eq!(r.status, 200);
    assert!(r.body.contains("max=\"100\""), "rows capped at 100");
    assert!(r.body.contains("value=\"100\""));
}

#[test]
fn html_in_a_table_name_is_refused_at_creation_and_rendered_as_text() {
    assert!(TableName::parse("<b>x</b>").is_err());
    assert!(TableName::new("default", "<script>").is_err());
    let f = Fixture::start();
    let r = f.get("/table.jsp?name=%3Cb%3Ex%3C%2Fb%3E");
    assert_eq!(r.status, 400);
    r.assert_security_headers("bad name");
    assert!(r.body.contains("&lt;b&gt;x&lt;/b&gt;"), "{}", r.body);
    assert_no_injected_markup(&r.body, "bad name");
    let r = f.get("/table.jsp?name=no_such_table");
    assert_eq!(r.status, 404);
    assert!(r.body.contains("no_such_table"));
    assert_eq!(f.get("/table.jsp").status, 400, "name is required");
}

#[test]
fn region_server_page_lists_every_region_and_request_kinds() {
    let f = Fixture::start();
    let r = f.get("/rs-status");
    assert_eq!(r.status, 200);
    r.assert_security_headers("/rs-status");
    assert!(r.body.contains("Regions (5)"), "4 of web_t and hbase:meta");
    for key in ESCAPED_KEYS {
        assert!(
            r.body.contains(&format!("<td class=\"key\">{key}</td>")),
            "{key}"
        );
    }
    assert!(
        r.row_with("<td>Put</td>")
            .contains("<td class=\"num\">2</td>"),
        "2 puts"
    );
    assert!(r.body.contains("<td>Get</td>"));
    assert!(r.body.contains("Block cache"));
    assert_no_injected_markup(&r.body, "/rs-status");
}

#[test]
fn conf_logs_and_recent_errors_escape_what_they_show() {
    let f = Fixture::start();
    f.info.logs.push(LogLine {
        time_ms: 1_795_255_442_000,
        level: tracing::Level::ERROR,
        target: "basalt_test".to_string(),
        message: "flush failed: <script>boom</script>".to_string(),
    });
    let r = f.get("/conf");
    assert_eq!(r.status, 200);
    r.assert_security_headers("/conf");
    assert!(
        r.body.contains("port = 0 # &lt;i&gt;not a tag&lt;/i&gt;"),
        "{}",
        r.body
    );
    for path in ["/logs", "/logs?level=warn", "/"] {
        let r = f.get(path);
        assert_eq!(r.status, 200, "{path}");
        let row = r.row_with("flush failed: &lt;script&gt;boom&lt;/script&gt;");
        assert!(row.contains("2026-11-21 10:04:02 UTC"), "{row}");
        assert!(row.contains("ERROR"));
        assert_no_injected_markup(&r.body, path);
    }
}

#[test]
fn stylesheet_is_served_and_pages_link_it() {
    let f = Fixture::start();
    let r = f.get("/static/basalt.css");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/css; charset=utf-8"));
    r.assert_security_headers("css");
    assert!(r.body.contains("font"));
    assert!(f
        .get("/")
        .body
        .contains("<link rel=\"stylesheet\" href=\"/static/basalt.css\">"));
}
