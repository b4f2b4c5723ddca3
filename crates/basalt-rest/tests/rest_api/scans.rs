//! The stateless scan `/<table>/<prefix>*` with its parameters and filter strings.

use crate::support::{b64, cells_of, Gateway};

fn rows_of(gw: &Gateway, path: &str) -> Vec<String> {
    let r = gw.get(path, "application/json");
    assert_eq!(r.status, 200, "{path}: {}", r.text());
    let mut rows: Vec<String> = cells_of(&r.json()).into_iter().map(|(r, _, _)| r).collect();
    rows.dedup();
    rows
}

#[test]
fn stateless_scans_take_prefix_range_limit_columns_and_filters() {
    let gw = Gateway::start();
    gw.create_table("t", &["cf"]);
    for row in ["a1", "a2", "a3", "b1", "b2", "c1"] {
        gw.put_cell("t", row, "cf:x", &format!("x-{row}"));
        gw.put_cell("t", row, "cf:y", &format!("y-{row}"));
    }
    assert_eq!(rows_of(&gw, "/t/*"), ["a1", "a2", "a3", "b1", "b2", "c1"]);
    assert_eq!(rows_of(&gw, "/t/a*"), ["a1", "a2", "a3"]);
    assert_eq!(
        rows_of(&gw, "/t/*?startrow=a2&endrow=b2"),
        ["a2", "a3", "b1"]
    );
    assert_eq!(rows_of(&gw, "/t/*?limit=2"), ["a1", "a2"]);
    assert_eq!(rows_of(&gw, "/t/*?reversed=true&limit=2"), ["c1", "b2"]);
    let filtered = rows_of(&gw, "/t/*?filter=PrefixFilter(%27b%27)");
    assert_eq!(filtered, ["b1", "b2"]);
    let value_filter = "/t/*?filter=ValueFilter(%3D%2C%27binary%3Ay-a2%27)";
    let cells = cells_of(&gw.get(value_filter, "application/json").json());
    assert_eq!(
        cells,
        [("a2".to_string(), "cf:y".to_string(), "y-a2".to_string())]
    );
    let column_only = cells_of(&gw.get("/t/b*?column=cf:y", "application/json").json());
    assert!(
        column_only.iter().all(|(_, c, _)| c == "cf:y"),
        "{column_only:?}"
    );
    assert_eq!(column_only.len(), 2);
    let xml = gw.get("/t/c*", "text/xml").text();
    assert!(
        xml.starts_with("<?xml") && xml.contains("<CellSet><Row key=\"YzE=\">"),
        "{xml}"
    );

    let bad = gw.get("/t/*?filter=NoSuchFilter()", "application/json");
    assert_eq!(bad.status, 400, "{}", bad.text());
    assert_eq!(gw.get("/t/*?limit=many", "application/json").status, 400);
    assert_eq!(gw.get("/missing/*", "application/json").status, 404);
}

#[test]
fn a_scan_over_the_cell_limit_is_refused_not_truncated() {
    let gw = Gateway::start_with(|c| c.response_cells_max = 3);
    gw.create_table("t", &["cf"]);
    for row in ["a", "b", "c", "d"] {
        gw.put_cell("t", row, "cf:x", row);
    }
    assert_eq!(rows_of(&gw, "/t/*?limit=3"), ["a", "b", "c"]);
    let r = gw.get("/t/*", "application/json");
    assert_eq!(r.status, 400);
    assert!(r.text().contains("more than 3 cells"), "{}", r.text());
}

/// Rows (as bytes) of a JSON cell set.
fn row_keys(set: &serde_json::Value) -> Vec<Vec<u8>> {
    set["Row"]
        .as_array()
        .expect("Row array")
        .iter()
        .map(|row| crate::support::unb64(&row["key"]))
        .collect()
}

#[test]
fn filter_strings_are_bytes_once_percent_decoded() {
    // HBase's filter language is read as bytes (`ParseFilter.parseFilterString(byte[])`):
    // a quoted argument keeps bytes that are not UTF-8, so `%82` compares with 0x82.
    let gw = Gateway::start();
    gw.create_table("t", &["cf"]);
    for (row, value) in [("r1", &b"\x82"[..]), ("r2", b"x"), ("r3", b"\x82\xff")] {
        let body = serde_json::json!({"Row": [{"key": b64(row.as_bytes()),
            "Cell": [{"column": b64(b"cf:v"), "$": b64(value)}]}]});
        let r = gw.send(
            "PUT",
            &format!("/t/{row}"),
            "application/json",
            body.to_string().as_bytes(),
        );
        assert_eq!(r.status, 200, "{}", r.text());
    }
    let exact = gw.get(
        "/t/*?filter=ValueFilter(%3D%2C%27binary%3A%82%27)",
        "application/json",
    );
    assert_eq!(exact.status, 200, "{}", exact.text());
    assert_eq!(row_keys(&exact.json()), [b"r1".to_vec()]);
    let prefix = gw.get(
        "/t/*?filter=ValueFilter(%3D%2C%27binaryprefix%3A%82%27)",
        "application/json",
    );
    assert_eq!(row_keys(&prefix.json()), [b"r1".to_vec(), b"r3".to_vec()]);
    // A byte that is not UTF-8 outside quotes is a 400 naming it.
    let bad = gw.get("/t/*?filter=%82KeyOnlyFilter()", "application/json");
    assert_eq!(bad.status, 400, "{}", bad.text());
    assert!(bad.text().contains("0x82"), "{}", bad.text());

    // The scanner's JSON filter model carries the operand as base64 bytes.
    let model = serde_json::json!({"type": "ValueFilter", "op": "EQUAL",
        "comparator": {"type": "BinaryComparator", "value": b64(b"\x82\xff")}});
    let body = serde_json::json!({ "filter": model.to_string() }).to_string();
    let r = gw.send("PUT", "/t/scanner", "application/json", body.as_bytes());
    assert_eq!(r.status, 201, "{}", r.text());
    let location = r.header("location").expect("Location").to_string();
    let path = &location[format!("http://{}", gw.addr).len()..];
    let batch = gw.get(path, "application/json");
    assert_eq!(batch.status, 200, "{}", batch.text());
    assert_eq!(row_keys(&batch.json()), [b"r3".to_vec()]);
}
