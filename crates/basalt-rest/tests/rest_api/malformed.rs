//! Malformed input of every kind gets a 400 naming what was wrong, and the gateway keeps
//! serving: JSON, XML, protobuf and base64 in every body, octet-stream headers, URLs and
//! raw bytes that are not HTTP.

use crate::support::{raw_exchange, Gateway};

const BODIES: &[(&str, &str)] = &[
    ("/t/r", "CellSet"),
    ("/t/schema", "TableSchema"),
    ("/t/scanner", "Scanner"),
    ("/namespaces/ns", "NamespaceProperties"),
];

fn assert_400(
    gw: &Gateway,
    method: &str,
    path: &str,
    content_type: &str,
    body: &[u8],
    needle: &str,
) {
    let r = gw.send(method, path, content_type, body);
    assert_eq!(
        r.status,
        400,
        "{method} {path} {content_type} {:?}: {}",
        String::from_utf8_lossy(body),
        r.text()
    );
    assert!(r.text().starts_with("Bad request\r\n"), "{}", r.text());
    assert!(
        r.text().contains(needle),
        "{path} expected '{needle}' in {}",
        r.text()
    );
}

#[test]
fn malformed_json_xml_and_protobuf_bodies_are_400() {
    let gw = Gateway::start();
    gw.create_table("t", &["cf"]);
    for (path, model) in BODIES {
        let method = if path.starts_with("/namespaces") {
            "POST"
        } else {
            "PUT"
        };
        for body in [&b"{"[..], b"[1,2", b"\xff\xfe", b"{\"Row\": tru}"] {
            assert_400(
                &gw,
                method,
                path,
                "application/json",
                body,
                "malformed JSON",
            );
        }
        for body in [
            &b"<"[..],
            b"<a><b></a>",
            b"<?xml version=\"1.0\"?>",
            b"<!DOCTYPE x [<!ENTITY e \"e\">]><x>&e;</x>",
        ] {
            assert_400(&gw, method, path, "text/xml", body, "malformed XML");
        }
        let wrong_root = b"<Nonsense/>";
        assert_400(&gw, method, path, "text/xml", wrong_root, model);
        for body in [&b"\xff\xff\xff\xff"[..], b"\x0a\x05ab", b"\x08"] {
            assert_400(
                &gw,
                method,
                path,
                "application/x-protobuf",
                body,
                "malformed protobuf",
            );
        }
    }
    assert_eq!(gw.get("/version", "application/json").status, 200);
}

#[test]
fn malformed_base64_and_fields_are_400_naming_the_field() {
    let gw = Gateway::start();
    gw.create_table("t", &["cf"]);
    let bad_key = br#"{"Row":[{"key":"not base64!","Cell":[{"column":"Y2Y6YQ==","$":"dg=="}]}]}"#;
    assert_400(&gw, "PUT", "/t/r", "application/json", bad_key, "Row.key");
    let bad_column = br#"{"Row":[{"key":"cg==","Cell":[{"column":"@@","$":"dg=="}]}]}"#;
    assert_400(
        &gw,
        "PUT",
        "/t/r",
        "application/json",
        bad_column,
        "Cell.column",
    );
    let bad_value = br#"{"Row":[{"key":"cg==","Cell":[{"column":"Y2Y6YQ==","$":"d"}]}]}"#;
    assert_400(&gw, "PUT", "/t/r", "application/json", bad_value, "Cell.$");
    let bad_ts =
        br#"{"Row":[{"key":"cg==","Cell":[{"column":"Y2Y6YQ==","timestamp":"soon","$":"dg=="}]}]}"#;
    assert_400(&gw, "PUT", "/t/r", "application/json", bad_ts, "timestamp");
    let xml_value =
        br#"<CellSet><Row key="cg=="><Cell column="Y2Y6YQ==">***</Cell></Row></CellSet>"#;
    assert_400(&gw, "PUT", "/t/r", "text/xml", xml_value, "Cell value");
    let no_qualifier = br#"{"Row":[{"key":"cg==","Cell":[{"column":"Y2Y=","$":"dg=="}]}]}"#;
    assert_400(
        &gw,
        "PUT",
        "/t/r",
        "application/json",
        no_qualifier,
        "qualifier",
    );
    let no_rows = br#"{"Row":[]}"#;
    assert_400(&gw, "PUT", "/t/r", "application/json", no_rows, "no rows");
    assert_400(
        &gw,
        "PUT",
        "/t/scanner",
        "application/json",
        br#"{"startRow":"!!"}"#,
        "startRow",
    );
    assert_400(
        &gw,
        "PUT",
        "/t/scanner",
        "application/json",
        br#"{"batch":-1}"#,
        "batch",
    );
    assert_400(
        &gw,
        "PUT",
        "/t/scanner",
        "application/json",
        br#"{"filter":"{\"type\":\"Bogus\"}"}"#,
        "Bogus",
    );
    let bad_versions = br#"{"name":"t","ColumnSchema":[{"name":"cf","VERSIONS":"lots"}]}"#;
    assert_400(
        &gw,
        "PUT",
        "/t/schema",
        "application/json",
        bad_versions,
        "VERSIONS",
    );
    let bad_family = br#"{"name":"t","ColumnSchema":[{"name":"a:b"}]}"#;
    assert_400(&gw, "PUT", "/t/schema", "application/json", bad_family, "");
    assert_400(
        &gw,
        "POST",
        "/namespaces/n",
        "application/json",
        br#"{"properties":[1]}"#,
        "properties",
    );
}

#[test]
fn malformed_octet_stream_headers_are_400() {
    let gw = Gateway::start();
    gw.create_table("t", &["cf"]);
    for (headers, needle) in [
        (
            vec![("X-Column", "cf:q"), ("X-Timestamp", "yesterday")],
            "X-Timestamp",
        ),
        (
            vec![("X-Column", "cf:q"), ("X-Timestamp", "-1")],
            "X-Timestamp",
        ),
        (vec![("X-Column", "cf")], "qualifier"),
        (vec![("X-Column", ":q")], "empty family"),
        (vec![], "no column"),
    ] {
        let mut all = vec![("Content-Type", "application/octet-stream")];
        all.extend(headers);
        let r = gw.call("PUT", "/t/r", &all, b"value");
        assert_eq!(r.status, 400, "{all:?}: {}", r.text());
        assert!(
            r.text().contains(needle),
            "{all:?}: expected {needle} in {}",
            r.text()
        );
    }
}

#[test]
fn malformed_urls_are_400() {
    let gw = Gateway::start();
    gw.create_table("t", &["cf"]);
    for (path, needle) in [
        ("/t/r%G0", "percent"),
        ("/t/r%", "percent"),
        ("/t/r/cf:a/notanumber", "timestamp"),
        ("/t/r/cf:a/30,10", "empty"),
        ("/t/r/:q", "empty family"),
        ("/t/r/cf/1/2", "extra path"),
        ("/t/z,a", "sorts before"),
        ("/t/r?v=-1", "positive"),
        ("/t/multiget", "at least one row"),
        ("/t/multiget?row=a,b", "single row"),
        ("/t/*?startrow=%zz", "percent"),
        ("/t/*?maxversions=0", "positive"),
        ("/t/a/b*", "prefix"),
        ("/t/", "row spec"),
    ] {
        let r = gw.get(path, "application/json");
        assert_eq!(r.status, 400, "{path}: {}", r.text());
        assert!(
            r.text().contains(needle),
            "{path}: expected {needle} in {}",
            r.text()
        );
    }
}

#[test]
fn garbage_on_the_socket_does_not_hurt_the_gateway() {
    let gw = Gateway::start();
    for raw in [
        &b"\x00\x01\x02\x03\r\n\r\n"[..],
        b"GET / HTTP/9.9\r\n\r\n",
        b"GET /version HTTP/1.1\r\nContent-Length: nope\r\n\r\n",
        b"PUT /t/r HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n",
    ] {
        let r = raw_exchange(gw.addr, raw);
        assert!(r.status >= 400, "{:?} got {}", String::from_utf8_lossy(raw), r.status);
    }
    assert_eq!(gw.get("/version", "application/json").status, 200);
}
