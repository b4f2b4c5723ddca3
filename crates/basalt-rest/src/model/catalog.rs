//! Lists and properties: `TableList`, `Namespaces`, `NamespaceProperties`, `TableInfo`.
//!
//! ```text
//! TableList            {"table":[{"name":"t1"}]}        <TableList><table name="t1"/></TableList>
//! Namespaces           {"Namespace":["default","hbase"]} <Namespaces><Namespace>default</Namespace>…
//! NamespaceProperties  {"properties":{"k":"v"}}
//!                      <NamespaceProperties><properties><entry><key>k</key><value>v</value></entry>…
//! TableInfo            {"name":"t","Region":[{"id":1,"startKey":"","endKey":"","location":"h:p","name":"…"}]}
//! ```

use super::{json_object, Model};
use crate::error::{RestError, Result};
use crate::repr::{b64, proto, xml};
use basalt_api::RegionReport;
use prost::Message;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// Table names, one per line in text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableList(pub Vec<String>);

impl Model for TableList {
    fn json(&self) -> Value {
        let tables: Vec<Value> = self.0.iter().map(|n| json!({ "name": n })).collect();
        json!({ "table": tables })
    }

    fn xml(&self) -> String {
        let tables: String = self
            .0
            .iter()
            .map(|n| format!("<table name=\"{}\"/>", xml::escape(n)))
            .collect();
        format!("<TableList>{tables}</TableList>")
    }

    fn protobuf(&self) -> Vec<u8> {
        proto::TableList {
            name: self.0.clone(),
        }
        .encode_to_vec()
    }

    fn text(&self) -> String {
        self.0.iter().map(|n| format!("{n}\n")).collect()
    }
}

/// Namespace names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Namespaces(pub Vec<String>);

impl Model for Namespaces {
    fn json(&self) -> Value {
        json!({ "Namespace": self.0 })
    }

    fn xml(&self) -> String {
        let names: String = self
            .0
            .iter()
            .map(|n| format!("<Namespace>{}</Namespace>", xml::escape(n)))
            .collect();
        format!("<Namespaces>{names}</Namespaces>")
    }

    fn protobuf(&self) -> Vec<u8> {
        proto::Namespaces {
            namespace: self.0.clone(),
        }
        .encode_to_vec()
    }

    fn text(&self) -> String {
        self.0.iter().map(|n| format!("{n}\n")).collect()
    }
}

/// One namespace's properties.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NamespaceProperties {
    pub name: String,
    pub properties: BTreeMap<String, String>,
}

impl NamespaceProperties {
    pub fn from_json(v: &Value, name: &str) -> Result<Self> {
        json_object(v, "NamespaceProperties")?;
        let mut properties = BTreeMap::new();
        match v.get("properties") {
            None | Some(Value::Null) => {}
            Some(Value::Object(map)) => {
                for (k, value) in map {
                    let text = value.as_str().ok_or_else(|| {
                        RestError::bad(format!("namespace property '{k}' must be a string"))
                    })?;
                    properties.insert(k.clone(), text.to_string());
                }
            }
            Some(other) => {
                return Err(RestError::bad(format!(
                    "NamespaceProperties: 'properties' must be an object, not {other}"
                )))
            }
        }
        Ok(Self {
            name: name.to_string(),
            properties,
        })
    }

    pub fn from_xml(root: &xml::Element, name: &str) -> Result<Self> {
        root.expect_name("NamespaceProperties")?;
        let mut properties = BTreeMap::new();
        for props in root.children_named("properties") {
            for entry in props.children_named("entry") {
                let field = |f: &str| {
                    entry
                        .children_named(f)
                        .next()
                        .map(|e| e.text.clone())
                        .ok_or_else(|| RestError::bad(format!("a property <entry> has no <{f}>")))
                };
                properties.insert(field("key")?, field("value")?);
            }
        }
        Ok(Self {
            name: name.to_string(),
            properties,
        })
    }

    pub fn from_protobuf(body: &[u8], name: &str) -> Result<Self> {
        let m: proto::NamespaceProperties = proto::decode(body, "NamespaceProperties")?;
        Ok(Self {
            name: name.to_string(),
            properties: m.props.into_iter().map(|p| (p.key, p.value)).collect(),
        })
    }
}

impl Model for NamespaceProperties {
    fn json(&self) -> Value {
        let map: Map<String, Value> = self
            .properties
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        json!({ "properties": map })
    }

    fn xml(&self) -> String {
        let entries: String = self
            .properties
            .iter()
            .map(|(k, v)| {
                format!(
                    "<entry><key>{}</key><value>{}</value></entry>",
                    xml::escape(k),
                    xml::escape(v)
                )
            })
            .collect();
        format!("<NamespaceProperties><properties>{entries}</properties></NamespaceProperties>")
    }

    fn protobuf(&self) -> Vec<u8> {
        proto::NamespaceProperties {
            props: self
                .properties
                .iter()
                .map(|(k, v)| proto::Property {
                    key: k.clone(),
                    value: v.clone(),
                })
                .collect(),
        }
        .encode_to_vec()
    }

    fn text(&self) -> String {
        let mut out = format!("{{NAME => '{}'", self.name);
        for (k, v) in &self.properties {
            out.push_str(&format!(", {k} => '{v}'"));
        }
        out.push_str("}\n");
        out
    }
}

/// A table's regions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableInfo {
    pub name: String,
    pub regions: Vec<RegionReport>,
}

/// HBase's `location` of a region: its server's `host:port`.
fn location(server: &str) -> String {
    let (host, port) = basalt_api::server_host_port(server);
    format!("{host}:{port}")
}

/// The region id inside HBase's region name `table,start,id.encoded.`.
pub fn region_id(region_name: &str) -> i64 {
    let trimmed = region_name.trim_end_matches('.');
    let without_encoded = trimmed.rsplit_once('.').map_or(trimmed, |(head, _)| head);
    without_encoded
        .rsplit_once(',')
        .and_then(|(_, id)| id.parse().ok())
        .unwrap_or(0)
}

impl Model for TableInfo {
    fn json(&self) -> Value {
        let regions: Vec<Value> = self
            .regions
            .iter()
            .map(|r| {
                json!({
                    "id": region_id(&r.region_name),
                    "startKey": b64::encode(&r.start_key),
                    "endKey": b64::encode(&r.end_key),
                    "location": location(&r.server),
                    "name": r.region_name,
                })
            })
            .collect();
        json!({ "name": self.name, "Region": regions })
    }

    fn xml(&self) -> String {
        let regions: String = self
            .regions
            .iter()
            .map(|r| {
                format!(
                    "<Region{}/>",
                    xml::attrs(&[
                        ("id", region_id(&r.region_name).to_string()),
                        ("startKey", b64::encode(&r.start_key)),
                        ("endKey", b64::encode(&r.end_key)),
                        ("location", location(&r.server)),
                        ("name", r.region_name.clone()),
                    ])
                )
            })
            .collect();
        format!(
            "<TableInfo{}>{regions}</TableInfo>",
            xml::attrs(&[("name", self.name.clone())])
        )
    }

    fn protobuf(&self) -> Vec<u8> {
        proto::TableInfo {
            name: self.name.clone(),
            regions: self
                .regions
                .iter()
                .map(|r| proto::TableInfoRegion {
                    name: r.region_name.clone(),
                    start_key: Some(r.start_key.to_vec()),
                    end_key: Some(r.end_key.to_vec()),
                    id: Some(region_id(&r.region_name)),
                    location: Some(location(&r.server)),
                })
                .collect(),
        }
        .encode_to_vec()
    }

    fn text(&self) -> String {
        let mut out = format!("{}\n", self.name);
        for r in &self.regions {
            out.push_str(&format!(
                "  {} [startKey='{}', endKey='{}', id={}, location='{}']\n",
                r.region_name,
                basalt_types::escape::to_string_binary(&r.start_key),
                basalt_types::escape::to_string_binary(&r.end_key),
                region_id(&r.region_name),
                location(&r.server)
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn region_ids_come_from_region_names() {
        assert_eq!(region_id("t,,1700000000000.abcdef."), 1700000000000);
        assert_eq!(region_id("ns:t,a,b,c,42.0123."), 42);
        assert_eq!(region_id("garbage"), 0);
    }

    #[test]
    fn namespace_properties_read_every_representation() {
        let props = NamespaceProperties {
            name: "ns".into(),
            properties: BTreeMap::from([("k".to_string(), "v<&>".to_string())]),
        };
        assert_eq!(
            NamespaceProperties::from_json(&props.json(), "ns").expect("json"),
            props
        );
        let root = xml::parse(props.xml().as_bytes()).expect("xml");
        assert_eq!(
            NamespaceProperties::from_xml(&root, "ns").expect("xml"),
            props
        );
        assert_eq!(
            NamespaceProperties::from_protobuf(&props.protobuf(), "ns").expect("proto"),
            props
        );
        assert!(NamespaceProperties::from_json(&json!({"properties": {"k": 1}}), "ns").is_err());
    }
}
