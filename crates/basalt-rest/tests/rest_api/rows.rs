//! Rows: put, get and delete in JSON, XML, protobuf and octet-stream; versions and
//! timestamps from the row spec; many rows in one body; multi-get.

use crate::support::{b64, cell_set_json, cells_of, triples, unb64, Gateway};
use basalt_rest::repr::proto;
use prost::Message;

#[test]
fn json_put_then_get_in_every_representation() {
    let gw = Gateway::start();
    gw.create_table("t", &["cf"]);
    gw.put_cell("t", "row1", "cf:a", "value1");
    let r = gw.get("/t/row1", "application/json");
    assert_eq!(r.status, 200);
    let json = r.json();
    assert_eq!(json["Row"][0]["key"], "cm93MQ==");
    assert_eq!(json["Row"][0]["Cell"][0]["column"], "Y2Y6YQ==");
    assert_eq!(json["Row"][0]["Cell"][0]["$"], "dmFsdWUx");
    assert!(json["Row"][0]["Cell"][0]["timestamp"].as_i64().expect("ts") > 0);

    let xml = gw.get("/t/row1/cf:a", "text/xml").text();
    assert!(
        xml.contains(r#"<CellSet><Row key="cm93MQ=="><Cell column="Y2Y6YQ==" timestamp=""#),
        "{xml}"
    );
    assert!(xml.contains(">dmFsdWUx</Cell></Row></CellSet>"), "{xml}");

    let pb = gw.get("/t/row1", "application/x-protobuf");
    let set = proto::CellSet::decode(pb.body.as_slice()).expect("protobuf cell set");
    assert_eq!(set.rows[0].key, b"row1");
    assert_eq!(set.rows[0].values[0].column.as_deref(), Some(&b"cf:a"[..]));
    assert_eq!(set.rows[0].values[0].data.as_deref(), Some(&b"value1"[..]));

    let raw = gw.get("/t/row1/cf:a", "application/octet-stream");
    assert_eq!(raw.status, 200);
    assert_eq!(raw.body, b"value1");
    assert_eq!(raw.header("content-type"), Some("application/octet-stream"));
    assert!(raw
        .header("x-timestamp")
        .expect("X-Timestamp")
        .parse::<i64>()
        .is_ok());

    assert_eq!(gw.get("/t/nosuchrow", "application/json").status, 404);
    let two_columns = gw.get("/t/row1/cf:a,cf:b", "application/octet-stream");
    assert_eq!(two_columns.status, 400);
}

#[test]
fn xml_protobuf_and_octet_stream_writes() {
    let gw = Gateway::start();
    gw.create_table("t", &["cf"]);
    let xml = format!(
        r#"<CellSet><Row key="{}"><Cell column="{}" timestamp="100">{}</Cell></Row></CellSet>"#,
        b64(b"x1"),
        b64(b"cf:q"),
        b64(b"from xml")
    );
    let r = gw.send("PUT", "/t/x1", "text/xml", xml.as_bytes());
    assert_eq!(r.status, 200, "{}", r.text());

    // CellSet { rows: [Row { key: "p1", values: [Cell { column: "cf:q", timestamp: 7, data: "pb" }] }] },
    // encoded by hand to pin HBase's field numbers.
    let cell = [&[0x12, 4][..], b"cf:q", &[0x18, 7], &[0x22, 2], b"pb"].concat();
    let row = [&[0x0a, 2][..], b"p1", &[0x12, cell.len() as u8], &cell].concat();
    let set = [&[0x0a, row.len() as u8][..], &row].concat();
    let r = gw.send("POST", "/t/p1", "application/x-protobuf", &set);
    assert_eq!(r.status, 200, "{}", r.text());

    let r = gw.call(
        "PUT",
        "/t/ignored",
        &[
            ("Content-Type", "application/octet-stream"),
            ("X-Row", "o1"),
            ("X-Column", "cf:raw"),
            ("X-Timestamp", "42"),
        ],
        b"\x00\x01binary",
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let r = gw.call(
        "PUT",
        "/t/o2/cf:raw",
        &[("Content-Type", "application/octet-stream")],
        b"path names it",
    );
    assert_eq!(r.status, 200, "{}", r.text());

    let all = gw.get("/t/*", "application/json").json();
    assert_eq!(
        cells_of(&all),
        triples(&[
            ("o1", "cf:raw", "\u{0}\u{1}binary"),
            ("o2", "cf:raw", "path names it"),
            ("p1", "cf:q", "pb"),
            ("x1", "cf:q", "from xml"),
        ])
    );
    let o1 = gw.get("/t/o1/cf:raw", "application/octet-stream");
    assert_eq!(o1.header("x-timestamp"), Some("42"));
    let p1 = gw.get("/t/p1", "application/json").json();
    assert_eq!(p1["Row"][0]["Cell"][0]["timestamp"], 7);
}

#[test]
fn versions_timestamps_and_ranges_follow_the_row_spec() {
    let gw = Gateway::start();
    gw.create_table("t", &["cf"]);
    for ts in [10, 20, 30] {
        let r = gw.send(
            "PUT",
            &format!("/t/r/cf:a/{ts}"),
            "application/json",
            cell_set_json(&[("r", &[("cf:a", &format!("v{ts}"))])]).as_bytes(),
        );
        assert_eq!(r.status, 200, "{}", r.text());
    }
    let values = |path: &str| -> Vec<String> {
        let r = gw.get(path, "application/json");
        assert_eq!(r.status, 200, "{path}: {}", r.text());
        cells_of(&r.json()).into_iter().map(|(_, _, v)| v).collect()
    };
    assert_eq!(values("/t/r"), ["v30"]);
    assert_eq!(values("/t/r?v=2"), ["v30", "v20"]);
    assert_eq!(values("/t/r/cf:a?v=5"), ["v30", "v20", "v10"]);
    // One timestamp is an end time: HBase's RowSpec reads [0, ts), so the version at ts
    // itself is not read and a timestamp between versions finds the one below it.
    assert_eq!(values("/t/r/cf:a/20"), ["v10"]);
    assert_eq!(values("/t/r/cf:a/25"), ["v20"]);
    assert_eq!(values("/t/r/cf:a/31?v=5"), ["v30", "v20", "v10"]);
    assert_eq!(values("/t/r/cf:a/10,30?v=5"), ["v20", "v10"]);
    assert_eq!(gw.get("/t/r/cf:a/10", "application/json").status, 404);

    for row in ["a", "b", "c", "ca", "d"] {
        gw.put_cell("t", row, "cf:x", row);
    }
    let rows = |path: &str| -> Vec<String> {
        cells_of(&gw.get(path, "application/json").json())
            .into_iter()
            .map(|(r, _, _)| r)
            .collect()
    };
    assert_eq!(rows("/t/b,d/cf:x"), ["b", "c", "ca"]);
    assert_eq!(rows("/t/c*/cf:x"), ["c", "ca"]);
}

#[test]
fn many_rows_in_one_body_and_deletes() {
    let gw = Gateway::start();
    gw.create_table("t", &["cf", "cg"]);
    let body = cell_set_json(&[
        ("r1", &[("cf:a", "1"), ("cf:b", "2"), ("cg:c", "3")]),
        ("r2", &[("cf:a", "4")]),
    ]);
    let r = gw.send(
        "PUT",
        "/t/false-row-key",
        "application/json",
        body.as_bytes(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        cells_of(&gw.get("/t/r2", "application/json").json()),
        triples(&[("r2", "cf:a", "4")])
    );

    assert_eq!(gw.call("DELETE", "/t/r1/cf:a", &[], b"").status, 200);
    assert_eq!(
        cells_of(&gw.get("/t/r1", "application/json").json()),
        triples(&[("r1", "cf:b", "2"), ("r1", "cg:c", "3")])
    );
    assert_eq!(gw.call("DELETE", "/t/r1/cg", &[], b"").status, 200);
    assert_eq!(
        cells_of(&gw.get("/t/r1", "application/json").json()),
        triples(&[("r1", "cf:b", "2")])
    );
    assert_eq!(gw.call("DELETE", "/t/r1", &[], b"").status, 200);
    assert_eq!(gw.get("/t/r1", "application/json").status, 404);
    assert_eq!(gw.get("/t/r2", "application/json").status, 200);
}

#[test]
fn multiget_returns_the_rows_found() {
    let gw = Gateway::start();
    gw.create_table("t", &["cf"]);
    gw.put_cell("t", "a", "cf:x", "1");
    gw.put_cell("t", "a", "cf:y", "2");
    gw.put_cell("t", "b", "cf:x", "3");
    let r = gw.get("/t/multiget?row=a&row=missing&row=b", "application/json");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        cells_of(&r.json()),
        triples(&[("a", "cf:x", "1"), ("a", "cf:y", "2"), ("b", "cf:x", "3")])
    );
    let r = gw.get("/t/multiget?row=a/cf:y&row=b", "application/json");
    assert_eq!(
        cells_of(&r.json()),
        triples(&[("a", "cf:y", "2"), ("b", "cf:x", "3")])
    );
    let r = gw.get("/t/multiget/cf:x?row=a", "text/xml");
    assert!(
        r.text().contains(&b64(b"cf:x")) && !r.text().contains(&b64(b"cf:y")),
        "{}",
        r.text()
    );
    let none = gw.get("/t/multiget?row=zz", "application/json");
    assert_eq!(none.status, 404);
    assert!(none.text().contains("No rows found."), "{}", none.text());
    let key = unb64(&gw.get("/t/multiget?row=b", "application/json").json()["Row"][0]["key"]);
    assert_eq!(key, b"b");
}
