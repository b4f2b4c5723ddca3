//! `/namespaces`: list, create, describe, alter, list tables, drop.

use crate::support::Gateway;

#[test]
fn namespaces_are_created_altered_listed_and_dropped() {
    let gw = Gateway::start();
    let list = gw.get("/namespaces", "application/json").json();
    let names = list["Namespace"].as_array().expect("array");
    assert!(names.contains(&serde_json::json!("default")), "{list}");
    assert!(names.contains(&serde_json::json!("hbase")), "{list}");

    let body = br#"{"properties":{"owner":"ops"}}"#;
    assert_eq!(
        gw.send("POST", "/namespaces/ns1", "application/json", body)
            .status,
        201
    );
    let again = gw.send("POST", "/namespaces/ns1", "application/json", body);
    assert_eq!(again.status, 403);
    assert!(
        again.text().contains("Namespace 'ns1' already exists."),
        "{}",
        again.text()
    );
    let props = gw.get("/namespaces/ns1", "application/json").json();
    assert_eq!(props, serde_json::json!({"properties": {"owner": "ops"}}));

    let xml = r#"<NamespaceProperties><properties><entry><key>owner</key><value>dev</value></entry></properties></NamespaceProperties>"#;
    assert_eq!(
        gw.send("PUT", "/namespaces/ns1", "text/xml", xml.as_bytes())
            .status,
        200
    );
    let props = gw.get("/namespaces/ns1", "application/json").json();
    assert_eq!(props["properties"]["owner"], "dev");
    let absent = gw.send("PUT", "/namespaces/ns2", "application/json", body);
    assert_eq!(absent.status, 403);
    assert!(gw.get("/namespaces", "text/plain").text().contains("ns1\n"));

    gw.create_table("ns1:t", &["f"]);
    let tables = gw.get("/namespaces/ns1/tables", "application/json").json();
    assert_eq!(tables, serde_json::json!({"table": [{"name": "t"}]}));
    let root = gw.get("/", "application/json").json();
    assert_eq!(root, serde_json::json!({"table": [{"name": "ns1:t"}]}));
    gw.put_cell("ns1:t", "r", "f:q", "v");
    assert_eq!(gw.get("/ns1:t/r", "application/json").status, 200);
    assert_eq!(gw.call("DELETE", "/ns1:t/schema", &[], b"").status, 200);

    assert_eq!(gw.call("DELETE", "/namespaces/ns1", &[], b"").status, 200);
    assert_eq!(gw.get("/namespaces/ns1", "application/json").status, 404);
    let gone = gw.call("DELETE", "/namespaces/ns1", &[], b"");
    assert_eq!(gone.status, 404);
    assert!(
        gone.text()
            .contains("does not exists.  Cannot drop namespace."),
        "{}",
        gone.text()
    );
    assert_eq!(
        gw.get("/namespaces/ns1/tables", "application/json").status,
        404
    );
}
