//! Stateful scanners: open (201 + Location), batches, 204 at the end, delete, filters,
//! XML / protobuf models, octet-stream cells, limits and leases.

use crate::support::{b64, cells_of, unb64, Gateway};
use basalt_rest::repr::proto;
use prost::Message;
use std::time::{Duration, Instant};

fn seeded(tune: impl FnOnce(&mut basalt_rest::RestConfig)) -> Gateway {
    let gw = Gateway::start_with(tune);
    gw.create_table("t", &["cf"]);
    for row in ["r1", "r2", "r3", "s1"] {
        gw.put_cell("t", row, "cf:a", &format!("{row}a"));
        gw.put_cell("t", row, "cf:b", &format!("{row}b"));
    }
    gw
}

/// Opens a scanner; returns the path of its `Location`.
fn open(gw: &Gateway, content_type: &str, body: &[u8]) -> String {
    let r = gw.send("PUT", "/t/scanner", content_type, body);
    assert_eq!(r.status, 201, "{}", r.text());
    let location = r.header("location").expect("Location").to_string();
    let prefix = format!("http://{}", gw.addr);
    assert!(
        location.starts_with(&format!("{prefix}/t/scanner/")),
        "{location}"
    );
    location[prefix.len()..].to_string()
}

#[test]
fn scanner_returns_batches_then_204_and_is_deleted() {
    let gw = seeded(|_| {});
    let path = open(
        &gw,
        "application/json",
        br#"{"startRow":"cjE=","endRow":"czE=","batch":3}"#,
    );
    let mut batches = Vec::new();
    loop {
        let r = gw.get(&path, "application/json");
        if r.status == 204 {
            break;
        }
        assert_eq!(r.status, 200, "{}", r.text());
        batches.push(cells_of(&r.json()));
        assert!(batches.len() < 10, "the scanner never ended");
    }
    let sizes: Vec<usize> = batches.iter().map(Vec::len).collect();
    assert_eq!(sizes, [3, 3], "6 cells in batches of 3");
    let values: Vec<String> = batches.concat().into_iter().map(|(_, _, v)| v).collect();
    assert_eq!(values, ["r1a", "r1b", "r2a", "r2b", "r3a", "r3b"]);
    assert_eq!(
        gw.get(&path, "application/json").status,
        204,
        "stays exhausted"
    );
    assert_eq!(gw.open_scanners(), 1);
    assert_eq!(gw.call("DELETE", &path, &[], b"").status, 200);
    assert_eq!(gw.open_scanners(), 0);
    assert_eq!(gw.get(&path, "application/json").status, 404);
    assert_eq!(gw.call("DELETE", &path, &[], b"").status, 404);
}

#[test]
fn scanner_filters_columns_and_models_in_xml_and_protobuf() {
    let gw = seeded(|_| {});
    let filter = r#"{"type":"FilterList","op":"MUST_PASS_ALL","filters":[{"type":"PrefixFilter","value":"cg=="},{"type":"QualifierFilter","op":"EQUAL","comparator":{"type":"BinaryComparator","value":"Yg=="}}]}"#;
    let body = serde_json::json!({"filter": filter, "batch": 100});
    let path = open(&gw, "application/json", body.to_string().as_bytes());
    let cells = cells_of(&gw.get(&path, "application/json").json());
    let values: Vec<&str> = cells.iter().map(|(_, _, v)| v.as_str()).collect();
    assert_eq!(values, ["r1b", "r2b", "r3b"]);

    let xml = format!(
        r#"<Scanner startRow="{}" batch="10"><column>{}</column></Scanner>"#,
        b64(b"r3"),
        b64(b"cf:a")
    );
    let path = open(&gw, "text/xml", xml.as_bytes());
    let r = gw.get(&path, "text/xml");
    assert_eq!(r.status, 200);
    let text = r.text();
    assert!(
        text.contains(&b64(b"r3a")) && text.contains(&b64(b"s1a")),
        "{text}"
    );
    assert!(!text.contains(&b64(b"r3b")), "{text}");

    let message = proto::Scanner {
        start_row: Some(b"s".to_vec()),
        batch: Some(1),
        ..Default::default()
    };
    let path = open(&gw, "application/x-protobuf", &message.encode_to_vec());
    let r = gw.get(&path, "application/x-protobuf");
    let set = proto::CellSet::decode(r.body.as_slice()).expect("protobuf cell set");
    assert_eq!(set.rows.len(), 1);
    assert_eq!(set.rows[0].values.len(), 1, "batch of one cell");
    assert_eq!(set.rows[0].values[0].data.as_deref(), Some(&b"s1a"[..]));

    let r = gw.get(&path, "application/octet-stream");
    assert_eq!(r.status, 200);
    assert_eq!(r.body, b"s1b");
    assert_eq!(
        unb64(&serde_json::json!(r.header("x-row").expect("X-Row"))),
        b"s1"
    );
    assert_eq!(
        unb64(&serde_json::json!(r.header("x-column").expect("X-Column"))),
        b"cf:b"
    );
    assert!(r.header("x-timestamp").is_some());
    assert_eq!(gw.get(&path, "application/octet-stream").status, 204);
}

#[test]
fn scanners_are_limited_per_client_and_expire() {
    let gw = seeded(|c| c.scanners_per_client_max = 2);
    let first = open(&gw, "application/json", b"{}");
    open(&gw, "application/json", b"{}");
    let r = gw.send("PUT", "/t/scanner", "application/json", b"{}");
    assert_eq!(r.status, 429, "{}", r.text());
    assert_eq!(gw.call("DELETE", &first, &[], b"").status, 200);
    open(&gw, "application/json", b"{}");

    let gw = seeded(|c| c.scanner_lease_ms = 50);
    let path = open(&gw, "application/json", b"{}");
    // Untouched, the scanner outlives its lease and the sweeper closes it.
    let deadline = Instant::now() + Duration::from_secs(20);
    while gw.open_scanners() > 0 {
        assert!(Instant::now() < deadline, "the scanner never expired");
        std::thread::sleep(Duration::from_millis(5));
    }
    let r = gw.get(&path, "application/json");
    assert_eq!(r.status, 404, "{}", r.text());
    assert_eq!(gw.open_scanners(), 0);
}
