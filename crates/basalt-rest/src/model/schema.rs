//! `TableSchema` and `ColumnSchema`: a table's options and families as string attributes.
//!
//! ```text
//! JSON  {"name":"t","IS_META":"false",…,"ColumnSchema":[{"name":"f","VERSIONS":"1","TTL":"2147483647",…}]}
//! XML   <TableSchema name="t" IS_META="false" …><ColumnSchema name="f" VERSIONS="1" …/></TableSchema>
//! text  { NAME=> 't', IS_META => 'false', COLUMNS => [ { NAME => 'f', VERSIONS => '1', … } ] }
//! ```
//! Attribute names are HBase's (`VERSIONS`, `TTL`, `BLOOMFILTER`, `MAX_FILESIZE`, …);
//! unknown ones are kept as descriptor metadata.

use super::{json_array, json_object, Model};
use crate::error::{RestError, Result};
use crate::repr::{proto, xml};
use basalt_types::{
    BloomType, Compression, DataBlockEncoding, Durability, FamilyDescriptor, KeepDeletedCells,
    TableDescriptor, TableName,
};
use prost::Message;
use serde_json::{Map, Value};

/// One family: its name and attributes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnSchema {
    pub name: String,
    pub attrs: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSchema {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    pub columns: Vec<ColumnSchema>,
}

fn flag(b: bool) -> String {
    b.to_string()
}

fn bool_attr(key: &str, value: &str) -> Result<bool> {
    match value.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(RestError::bad(format!(
            "{key} must be true or false, not '{value}'"
        ))),
    }
}

fn number_attr<T: std::str::FromStr>(key: &str, value: &str) -> Result<T> {
    value
        .trim()
        .parse()
        .map_err(|_| RestError::bad(format!("{key} must be a number, not '{value}'")))
}

impl ColumnSchema {
    pub fn from_descriptor(f: &FamilyDescriptor) -> Self {
        let mut attrs = vec![
            ("BLOOMFILTER".into(), f.bloom_filter.name().into()),
            ("VERSIONS".into(), f.max_versions.to_string()),
            ("MIN_VERSIONS".into(), f.min_versions.to_string()),
            ("TTL".into(), f.ttl_secs.to_string()),
            (
                "KEEP_DELETED_CELLS".into(),
                f.keep_deleted_cells.name().into(),
            ),
            ("BLOCKSIZE".into(), f.block_size_bytes.to_string()),
            ("BLOCKCACHE".into(), flag(f.block_cache)),
            ("IN_MEMORY".into(), flag(f.in_memory)),
            ("COMPRESSION".into(), f.compression.name().into()),
            (
                "DATA_BLOCK_ENCODING".into(),
                f.data_block_encoding.name().into(),
            ),
            ("REPLICATION_SCOPE".into(), f.replication_scope.to_string()),
        ];
        if f.new_version_behavior {
            attrs.push(("NEW_VERSION_BEHAVIOR".into(), flag(true)));
        }
        attrs.extend(f.metadata.iter().map(|(k, v)| (k.clone(), v.clone())));
        Self {
            name: String::from_utf8_lossy(&f.name).into_owned(),
            attrs,
        }
    }

    /// The descriptor: HBase's defaults with these attributes applied.
    pub fn to_descriptor(&self) -> Result<FamilyDescriptor> {
        let mut f = FamilyDescriptor::new(self.name.clone().into_bytes())?;
        for (key, value) in &self.attrs {
            let v = value.as_str();
            match key.to_ascii_uppercase().as_str() {
                "NAME" => {}
                "BLOOMFILTER" => f.bloom_filter = BloomType::parse(v)?,
                "VERSIONS" => f.max_versions = number_attr(key, v)?,
                "MIN_VERSIONS" => f.min_versions = number_attr(key, v)?,
                "TTL" if v.eq_ignore_ascii_case("FOREVER") => {}
                "TTL" => f.ttl_secs = number_attr(key, v)?,
                "KEEP_DELETED_CELLS" => f.keep_deleted_cells = KeepDeletedCells::parse(v)?,
                "NEW_VERSION_BEHAVIOR" => f.new_version_behavior = bool_attr(key, v)?,
                "BLOCKSIZE" => f.block_size_bytes = number_attr(key, v)?,
                "BLOCKCACHE" => f.block_cache = bool_attr(key, v)?,
                "IN_MEMORY" => f.in_memory = bool_attr(key, v)?,
                "COMPRESSION" => f.compression = Compression::parse(v)?,
                "DATA_BLOCK_ENCODING" => f.data_block_encoding = DataBlockEncoding::parse(v)?,
                "REPLICATION_SCOPE" => f.replication_scope = number_attr(key, v)?,
                _ => {
                    f.metadata.insert(key.clone(), value.clone());
                }
            }
        }
        f.validate()?;
        Ok(f)
    }
}

impl TableSchema {
    pub fn from_descriptor(d: &TableDescriptor) -> Self {
        let mut attrs = vec![
            ("IS_META".into(), flag(d.name.to_string() == "hbase:meta")),
            ("READONLY".into(), flag(d.read_only)),
            ("MAX_FILESIZE".into(), d.max_file_size_bytes.to_string()),
            (
                "MEMSTORE_FLUSHSIZE".into(),
                d.memstore_flush_size_bytes.to_string(),
            ),
            ("DURABILITY".into(), d.durability.name().into()),
            ("COMPACTION_ENABLED".into(), flag(d.compaction_enabled)),
            ("SPLIT_ENABLED".into(), flag(d.split_enabled)),
            ("MERGE_ENABLED".into(), flag(d.merge_enabled)),
        ];
        attrs.extend(d.metadata.iter().map(|(k, v)| (k.clone(), v.clone())));
        Self {
            name: d.name.to_string(),
            attrs,
            columns: d
                .families
                .iter()
                .map(ColumnSchema::from_descriptor)
                .collect(),
        }
    }

    /// The descriptor of table `name` (the path's, not the body's).
    pub fn to_descriptor(&self, name: &TableName) -> Result<TableDescriptor> {
        let families = self
            .columns
            .iter()
            .map(ColumnSchema::to_descriptor)
            .collect::<Result<Vec<_>>>()?;
        let mut d = TableDescriptor::new(name.clone(), families);
        for (key, value) in &self.attrs {
            let v = value.as_str();
            match key.to_ascii_uppercase().as_str() {
                "NAME" | "IS_META" | "IS_ROOT" => {}
                "READONLY" => d.read_only = bool_attr(key, v)?,
                "MAX_FILESIZE" => d.max_file_size_bytes = number_attr(key, v)?,
                "MEMSTORE_FLUSHSIZE" => d.memstore_flush_size_bytes = number_attr(key, v)?,
                "DURABILITY" => d.durability = Durability::parse(v)?,
                "COMPACTION_ENABLED" => d.compaction_enabled = bool_attr(key, v)?,
                "SPLIT_ENABLED" => d.split_enabled = bool_attr(key, v)?,
                "MERGE_ENABLED" => d.merge_enabled = bool_attr(key, v)?,
                _ => {
                    d.metadata.insert(key.clone(), value.clone());
                }
            }
        }
        d.validate()?;
        Ok(d)
    }

    pub fn from_json(value: &Value) -> Result<Self> {
        let object = json_object(value, "TableSchema")?;
        let (name, attrs) = name_and_attrs(object, &["ColumnSchema"], "TableSchema")?;
        let mut columns = Vec::new();
        for column in json_array(value, "ColumnSchema") {
            let object = json_object(column, "ColumnSchema")?;
            let (name, attrs) = name_and_attrs(object, &[], "ColumnSchema")?;
            columns.push(ColumnSchema { name, attrs });
        }
        Ok(Self {
            name,
            attrs,
            columns,
        })
    }

    pub fn from_xml(root: &xml::Element) -> Result<Self> {
        root.expect_name("TableSchema")?;
        let split = |e: &xml::Element| {
            let name = e.attr("name").unwrap_or_default().to_string();
            let attrs = e
                .attributes
                .iter()
                .filter(|(k, _)| k != "name")
                .cloned()
                .collect();
            (name, attrs)
        };
        let (name, attrs) = split(root);
        let columns = root
            .children_named("ColumnSchema")
            .map(|c| {
                let (name, attrs) = split(c);
                ColumnSchema { name, attrs }
            })
            .collect();
        Ok(Self {
            name,
            attrs,
            columns,
        })
    }

    pub fn from_protobuf(body: &[u8]) -> Result<Self> {
        let m: proto::TableSchema = proto::decode(body, "TableSchema")?;
        let mut attrs: Vec<(String, String)> =
            m.attrs.into_iter().map(|a| (a.name, a.value)).collect();
        if let Some(read_only) = m.read_only {
            attrs.push(("READONLY".into(), flag(read_only)));
        }
        let columns = m
            .columns
            .into_iter()
            .map(|c| {
                let mut attrs: Vec<(String, String)> =
                    c.attrs.into_iter().map(|a| (a.name, a.value)).collect();
                if let Some(ttl) = c.ttl {
                    attrs.push(("TTL".into(), ttl.to_string()));
                }
                if let Some(v) = c.max_versions {
                    attrs.push(("VERSIONS".into(), v.to_string()));
                }
                if let Some(comp) = c.compression {
                    attrs.push(("COMPRESSION".into(), comp));
                }
                ColumnSchema {
                    name: c.name.unwrap_or_default(),
                    attrs,
                }
            })
            .collect();
        Ok(Self {
            name: m.name.unwrap_or_default(),
            attrs,
            columns,
        })
    }
}

/// `name` and every other field as string attributes. As HBase's schema models (Jackson's
/// any-setter into a map of `Object`, kept by its string form), an attribute may be any
/// JSON value: a string stays as it is, anything else (`true`, `3`, `null`, an array or
/// an object) becomes its JSON text. Only `name` must be a string or a number.
fn name_and_attrs(
    object: &Map<String, Value>,
    skip: &[&str],
    model: &str,
) -> Result<(String, Vec<(String, String)>)> {
    let mut name = String::new();
    let mut attrs = Vec::new();
    for (key, value) in object {
        if skip.contains(&key.as_str()) {
            continue;
        }
        let text = match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        if key == "name" {
            if !matches!(value, Value::String(_) | Value::Number(_)) {
                return Err(RestError::bad(format!(
                    "{model}: 'name' must be a string, not {value}"
                )));
            }
            name = text;
        } else {
            attrs.push((key.clone(), text));
        }
    }
    Ok((name, attrs))
}

fn json_attrs(name: &str, attrs: &[(String, String)]) -> Map<String, Value> {
    let mut object = Map::new();
    object.insert("name".into(), Value::String(name.to_string()));
    for (k, v) in attrs {
        object.insert(k.clone(), Value::String(v.clone()));
    }
    object
}

fn text_attrs(name: &str, attrs: &[(String, String)], first: &str) -> String {
    let mut out = format!("{first} '{name}'");
    for (k, v) in attrs {
        out.push_str(&format!(", {k} => '{v}'"));
    }
    out
}

impl Model for TableSchema {
    fn json(&self) -> Value {
        let mut object = json_attrs(&self.name, &self.attrs);
        let columns = self
            .columns
            .iter()
            .map(|c| Value::Object(json_attrs(&c.name, &c.attrs)))
            .collect();
        object.insert("ColumnSchema".into(), Value::Array(columns));
        Value::Object(object)
    }

    fn xml(&self) -> String {
        let attrs = |name: &str, attrs: &[(String, String)]| {
            let mut out = format!(" name=\"{}\"", xml::escape(name));
            for (k, v) in attrs {
                out.push_str(&format!(" {k}=\"{}\"", xml::escape(v)));
            }
            out
        };
        let mut out = format!("<TableSchema{}>", attrs(&self.name, &self.attrs));
        for c in &self.columns {
            out.push_str(&format!("<ColumnSchema{}/>", attrs(&c.name, &c.attrs)));
        }
        out.push_str("</TableSchema>");
        out
    }

    fn protobuf(&self) -> Vec<u8> {
        let to_attrs = |attrs: &[(String, String)]| {
            attrs
                .iter()
                .map(|(k, v)| proto::Attribute {
                    name: k.clone(),
                    value: v.clone(),
                })
                .collect()
        };
        let find = |attrs: &[(String, String)], key: &str| {
            attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
        };
        proto::TableSchema {
            name: Some(self.name.clone()),
            attrs: to_attrs(&self.attrs),
            columns: self
                .columns
                .iter()
                .map(|c| proto::ColumnSchema {
                    name: Some(c.name.clone()),
                    attrs: to_attrs(&c.attrs),
                    ttl: find(&c.attrs, "TTL").and_then(|v| v.parse().ok()),
                    max_versions: find(&c.attrs, "VERSIONS").and_then(|v| v.parse().ok()),
                    compression: find(&c.attrs, "COMPRESSION"),
                })
                .collect(),
            in_memory: None,
            read_only: find(&self.attrs, "READONLY").map(|v| v == "true"),
        }
        .encode_to_vec()
    }

    fn text(&self) -> String {
        let columns: Vec<String> = self
            .columns
            .iter()
            .map(|c| format!("{{ {} }}", text_attrs(&c.name, &c.attrs, "NAME =>")))
            .collect();
        format!(
            "{{ {}, COLUMNS => [ {} ] }}",
            text_attrs(&self.name, &self.attrs, "NAME=>"),
            columns.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> TableDescriptor {
        let mut f = FamilyDescriptor::new("f").expect("valid");
        f.max_versions = 3;
        f.ttl_secs = 86400;
        f.compression = Compression::Gz;
        let mut d = TableDescriptor::new(TableName::parse("t").expect("valid"), vec![f]);
        d.read_only = true;
        d
    }

    #[test]
    fn descriptors_round_trip_through_every_representation() {
        let d = table();
        let schema = TableSchema::from_descriptor(&d);
        let name = d.name.clone();
        let json = TableSchema::from_json(&schema.json()).expect("json");
        assert_eq!(json.to_descriptor(&name).expect("valid"), d);
        let xml_root = xml::parse(schema.xml().as_bytes()).expect("xml");
        let from_xml = TableSchema::from_xml(&xml_root).expect("xml model");
        assert_eq!(from_xml.to_descriptor(&name).expect("valid"), d);
        let from_proto = TableSchema::from_protobuf(&schema.protobuf()).expect("proto");
        assert_eq!(from_proto.to_descriptor(&name).expect("valid"), d);
        assert!(schema
            .text()
            .starts_with("{ NAME=> 't', IS_META => 'false'"));
    }

    #[test]
    fn bad_attributes_name_the_attribute() {
        let schema = TableSchema::from_json(&serde_json::json!({
            "name": "t", "ColumnSchema": [{"name": "f", "VERSIONS": "many"}]
        }))
        .expect("shape is fine");
        let err = schema
            .to_descriptor(&TableName::parse("t").expect("valid"))
            .expect_err("VERSIONS is not a number")
            .to_string();
        assert!(err.contains("VERSIONS"), "{err}");
        let no_family = TableSchema::from_json(&serde_json::json!({"name": "t"})).expect("shape");
        assert!(no_family
            .to_descriptor(&TableName::parse("t").expect("valid"))
            .is_err());
        assert!(TableSchema::from_json(&serde_json::json!({"name": ["x"]})).is_err());
    }
}
