//! Schema create / describe / alter / delete in every representation; regions; exists.

use crate::support::Gateway;
use basalt_rest::repr::proto;
use prost::Message;

#[test]
fn schema_create_describe_alter_and_delete_in_json() {
    let gw = Gateway::start();
    gw.create_table("t", &["f1"]);
    let schema = gw.get("/t/schema", "application/json");
    assert_eq!(schema.status, 200);
    let json = schema.json();
    assert_eq!(json["name"], "t");
    assert_eq!(json["IS_META"], "false");
    assert_eq!(json["ColumnSchema"][0]["name"], "f1");
    assert_eq!(json["ColumnSchema"][0]["VERSIONS"], "5");
    assert_eq!(json["ColumnSchema"][0]["TTL"], "2147483647");

    let add = serde_json::json!({"name": "t", "ColumnSchema": [{"name": "f2", "TTL": "86400"}]});
    let r = gw.send(
        "POST",
        "/t/schema",
        "application/json",
        add.to_string().as_bytes(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let json = gw.get("/t/schema", "application/json").json();
    let names: Vec<&str> = json["ColumnSchema"]
        .as_array()
        .expect("array")
        .iter()
        .map(|c| c["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["f1", "f2"]);
    assert_eq!(json["ColumnSchema"][1]["TTL"], "86400");

    // NEW_VERSION_BEHAVIOR (HBase 2.0+) is a family attribute like the others; it is
    // listed only when set.
    assert!(json["ColumnSchema"][1]
        .get("NEW_VERSION_BEHAVIOR")
        .is_none());
    let nvb = serde_json::json!({"name": "t",
        "ColumnSchema": [{"name": "f3", "NEW_VERSION_BEHAVIOR": "true"}]});
    let r = gw.send(
        "POST",
        "/t/schema",
        "application/json",
        nvb.to_string().as_bytes(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let json = gw.get("/t/schema", "application/json").json();
    assert_eq!(json["ColumnSchema"][2]["name"], "f3");
    assert_eq!(json["ColumnSchema"][2]["NEW_VERSION_BEHAVIOR"], "true");

    let replace = serde_json::json!({"name": "t", "ColumnSchema": [{"name": "f2"}]});
    let r = gw.send(
        "PUT",
        "/t/schema",
        "application/json",
        replace.to_string().as_bytes(),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let json = gw.get("/t/schema", "application/json").json();
    assert_eq!(json["ColumnSchema"].as_array().expect("array").len(), 1);
    assert_eq!(json["ColumnSchema"][0]["name"], "f2");

    assert_eq!(gw.get("/t/exists", "*/*").status, 200);
    let list = gw.get("/", "application/json").json();
    assert_eq!(list, serde_json::json!({"table": [{"name": "t"}]}));
    assert_eq!(gw.get("/", "text/plain").text(), "t\n");

    assert_eq!(gw.call("DELETE", "/t/schema", &[], b"").status, 200);
    assert_eq!(gw.get("/t/exists", "*/*").status, 404);
    let missing = gw.get("/t/schema", "application/json");
    assert_eq!(missing.status, 404);
    assert!(
        missing.text().starts_with("Not found\r\n"),
        "{}",
        missing.text()
    );
}

#[test]
fn schema_in_xml_text_and_protobuf() {
    let gw = Gateway::start();
    let xml = r#"<?xml version="1.0"?><TableSchema name="x"><ColumnSchema name="a" VERSIONS="3" BLOOMFILTER="ROWCOL"/></TableSchema>"#;
    let r = gw.send("PUT", "/x/schema", "text/xml", xml.as_bytes());
    assert_eq!(r.status, 201, "{}", r.text());
    let back = gw.get("/x/schema", "text/xml");
    assert_eq!(back.header("content-type"), Some("text/xml"));
    let text = back.text();
    assert!(text.starts_with("<?xml"), "{text}");
    assert!(text.contains(r#"<TableSchema name="x""#), "{text}");
    assert!(text.contains(r#"BLOOMFILTER="ROWCOL""#), "{text}");
    assert!(text.contains(r#"VERSIONS="3""#), "{text}");
    let plain = gw.get("/x/schema", "text/plain").text();
    assert!(
        plain.starts_with("{ NAME=> 'x', IS_META => 'false'"),
        "{plain}"
    );
    assert!(plain.contains("COLUMNS => [ { NAME => 'a'"), "{plain}");

    let message = proto::TableSchema {
        name: Some("p".into()),
        columns: vec![proto::ColumnSchema {
            name: Some("c".into()),
            max_versions: Some(7),
            ttl: Some(600),
            ..Default::default()
        }],
        ..Default::default()
    };
    let r = gw.send(
        "PUT",
        "/p/schema",
        "application/x-protobuf",
        &message.encode_to_vec(),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let back = gw.get("/p/schema", "application/x-protobuf");
    assert_eq!(back.header("content-type"), Some("application/x-protobuf"));
    let decoded = proto::TableSchema::decode(back.body.as_slice()).expect("protobuf schema");
    assert_eq!(decoded.name.as_deref(), Some("p"));
    assert_eq!(decoded.columns[0].max_versions, Some(7));
    assert_eq!(decoded.columns[0].ttl, Some(600));
}

#[test]
fn regions_list_the_table_regions() {
    let gw = Gateway::start();
    gw.create_table("r", &["f"]);
    let info = gw.get("/r/regions", "application/json").json();
    assert_eq!(info["name"], "r");
    let regions = info["Region"].as_array().expect("regions");
    assert_eq!(regions.len(), 1);
    assert_eq!(regions[0]["startKey"], "");
    assert!(regions[0]["name"]
        .as_str()
        .expect("name")
        .starts_with("r,,"));
    assert!(regions[0]["id"].as_i64().expect("id") > 0);
    let xml = gw.get("/r/regions", "text/xml").text();
    assert!(xml.contains("<TableInfo name=\"r\"><Region "), "{xml}");
    assert_eq!(gw.get("/nope/regions", "application/json").status, 404);
}

/// HBase's `TableSchemaModel` and `ColumnSchemaModel` take any JSON value as an attribute
/// (Jackson's any-setter into a map of `Object`) and keep its string form, so schemas
/// written with JSON booleans and numbers (`"READONLY": true`, `"VERSIONS": 3`) and
/// attributes HBase does not know (`"READ_ONLY": true`, kept as table metadata) are
/// accepted, not refused.
#[test]
fn schema_attributes_accept_any_json_value_and_keep_its_string_form() {
    let gw = Gateway::start();
    let schema = serde_json::json!({
        "name": "t",
        "READ_ONLY": true,
        "READONLY": false,
        "MAX_FILESIZE": 1073741824u64,
        "owner": {"team": "ops", "ids": [1, 2]},
        "tags": ["a", 1, null],
        "ColumnSchema": [{
            "name": "cf",
            "VERSIONS": 3,
            "BLOCKCACHE": true,
            "IN_MEMORY": false,
            "note": null
        }]
    });
    let r = gw.send(
        "PUT",
        "/t/schema",
        "application/json",
        schema.to_string().as_bytes(),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let json = gw.get("/t/schema", "application/json").json();
    assert_eq!(json["READ_ONLY"], "true");
    assert_eq!(json["READONLY"], "false");
    assert_eq!(json["MAX_FILESIZE"], "1073741824");
    assert_eq!(json["owner"], r#"{"ids":[1,2],"team":"ops"}"#);
    assert_eq!(json["tags"], r#"["a",1,null]"#);
    let cf = &json["ColumnSchema"][0];
    assert_eq!(cf["VERSIONS"], "3");
    assert_eq!(cf["BLOCKCACHE"], "true");
    assert_eq!(cf["IN_MEMORY"], "false");
    assert_eq!(cf["note"], "null");
}
