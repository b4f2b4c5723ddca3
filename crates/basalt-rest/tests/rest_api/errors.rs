//! Status codes and bodies: 404, 400, 403 (read-only), 503, 405, 406, 413, 415; versions
//! and cluster status.

use crate::support::{cell_set_json, Gateway};

#[test]
fn missing_things_are_404_with_hbase_bodies() {
    let gw = Gateway::start();
    gw.create_table("t", &["cf"]);
    for path in [
        "/nope/row",
        "/nope/schema",
        "/t/row",
        "/t/scanner/123",
        "/nope/exists",
        "/version/nope",
    ] {
        let r = gw.get(path, "application/json");
        assert_eq!(r.status, 404, "{path}: {}", r.text());
    }
    let r = gw.get("/nope/row", "application/json");
    assert!(r.text().starts_with("Not found\r\n"), "{}", r.text());
    assert!(!r.text().contains("at "), "no stack trace: {}", r.text());
    let body = cell_set_json(&[("r", &[("nofamily:q", "v")])]);
    let r = gw.send("PUT", "/t/r", "application/json", body.as_bytes());
    assert_eq!(r.status, 404, "unknown family: {}", r.text());
    assert!(r.text().contains("NoSuchColumnFamily"), "{}", r.text());
    let body = cell_set_json(&[("r", &[("cf:q", "v")])]);
    assert_eq!(
        gw.send("PUT", "/nope/r", "application/json", body.as_bytes())
            .status,
        404
    );
}

#[test]
fn bad_requests_are_400_405_406_413_and_415() {
    let gw = Gateway::start_with(|c| c.body_max_bytes = 1024);
    gw.create_table("t", &["cf"]);
    let r = gw.get("/bad%zz/row", "application/json");
    assert_eq!(r.status, 400);
    assert!(r.text().starts_with("Bad request\r\n"), "{}", r.text());
    assert_eq!(gw.get("/-bad-name/row", "application/json").status, 400);
    assert_eq!(gw.get("/t/r?v=0", "application/json").status, 400);
    assert_eq!(gw.call("PATCH", "/t/schema", &[], b"").status, 405);
    assert_eq!(gw.call("POST", "/version", &[], b"").status, 405);
    assert_eq!(gw.get("/t/r", "image/png").status, 406);
    let r = gw.send("PUT", "/t/r", "application/yaml", b"a: b");
    assert_eq!(r.status, 415);
    assert_eq!(
        gw.call("PUT", "/t/r", &[], b"{}").status,
        415,
        "no Content-Type"
    );
    let big = vec![b'x'; 4096];
    let r = gw.send("PUT", "/t/r/cf:q", "application/octet-stream", &big);
    assert_eq!(r.status, 413);
    assert_eq!(
        gw.get("/version", "application/json").status,
        200,
        "still serving"
    );
}

#[test]
fn a_read_only_gateway_refuses_every_write_with_403() {
    let gw = Gateway::start_with(|c| c.read_only = true);
    let schema = br#"{"name":"t","ColumnSchema":[{"name":"cf"}]}"#;
    let r = gw.send("PUT", "/t/schema", "application/json", schema);
    assert_eq!(r.status, 403);
    assert!(r.text().starts_with("Forbidden\r\n"), "{}", r.text());
    let body = cell_set_json(&[("r", &[("cf:q", "v")])]);
    for (method, path) in [
        ("PUT", "/t/r"),
        ("POST", "/t/r"),
        ("POST", "/t/r?check=put"),
        ("DELETE", "/t/r"),
        ("DELETE", "/t/schema"),
        ("POST", "/t/schema"),
        ("POST", "/namespaces/x"),
        ("PUT", "/namespaces/x"),
        ("DELETE", "/namespaces/x"),
    ] {
        let r = gw.send(method, path, "application/json", body.as_bytes());
        assert_eq!(r.status, 403, "{method} {path}: {}", r.text());
    }
    assert_eq!(
        gw.get("/", "application/json").status,
        200,
        "reads still work"
    );
}

#[test]
fn versions_and_cluster_status() {
    let gw = Gateway::start();
    gw.create_table("t", &["cf"]);
    let v = gw.get("/version", "application/json").json();
    assert_eq!(v["REST"], "0.0.3");
    for key in ["JVM", "OS", "Server", "Jersey"] {
        assert!(v[key].is_string(), "{key} in {v}");
    }
    assert!(gw
        .get("/version/rest", "text/plain")
        .text()
        .starts_with("rest 0.0.3 ["));
    assert!(gw
        .get("/version", "text/xml")
        .text()
        .contains("<Version REST=\"0.0.3\""));
    assert_eq!(
        gw.get("/version/cluster", "application/json").json(),
        serde_json::json!({"Version": "2.5.5"})
    );
    assert!(gw
        .get("/version/cluster", "text/xml")
        .text()
        .contains("<ClusterVersion Version=\"2.5.5\"/>"));
    assert_eq!(gw.get("/version/cluster", "text/plain").text(), "2.5.5\n");
    let status = gw.get("/status/cluster", "application/json").json();
    assert!(
        status["regions"].as_i64().expect("regions") >= 1,
        "{status}"
    );
    let nodes = status["LiveNodes"].as_array().expect("live nodes");
    assert_eq!(nodes.len(), 1, "{status}");
    let regions = nodes[0]["Region"].as_array().expect("regions");
    assert!(!regions.is_empty());
    assert_eq!(status["DeadNodes"], serde_json::json!([]));
    let text = gw.get("/status/cluster", "text/plain").text();
    assert!(
        text.starts_with("1 live servers, 0 dead servers, "),
        "{text}"
    );
    let pb = gw.get("/status/cluster", "application/x-protobuf");
    assert_eq!(pb.status, 200);
    use prost::Message;
    let decoded = basalt_rest::repr::proto::StorageClusterStatus::decode(pb.body.as_slice())
        .expect("protobuf");
    assert_eq!(decoded.live_nodes.len(), 1);
}

#[test]
fn server_trouble_is_503_unavailable() {
    // The embedded connection retries a closed region for a few seconds before giving up.
    let gw = Gateway::start();
    gw.create_table("t", &["cf"]);
    gw.put_cell("t", "r", "cf:q", "v");
    gw.close_database();
    let body = cell_set_json(&[("r", &[("cf:q", "w")])]);
    let r = gw.send("PUT", "/t/r", "application/json", body.as_bytes());
    assert_eq!(r.status, 503, "{}", r.text());
    assert!(r.text().starts_with("Unavailable\r\n"), "{}", r.text());
    assert_eq!(
        gw.get("/version", "application/json").status,
        200,
        "the gateway itself lives on"
    );
}
