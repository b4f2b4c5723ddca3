//! The `Scanner` model: what a stateful scanner reads (reference §6.2).
//!
//! ```text
//! JSON  {"startRow":"<b64>","endRow":"<b64>","column":["<b64 f:q>"],"batch":10,
//!        "startTime":0,"endTime":9,"maxVersions":1,"filter":"<JSON filter model as a string>"}
//! XML   <Scanner startRow="…" endRow="…" batch="10"><column>…</column><filter>…</filter></Scanner>
//! proto Scanner { startRow=1, endRow=2, columns=3, batch=4, startTime=5, endTime=6,
//!                 maxVersions=7, filter=8, caching=9, labels=10, cacheBlocks=11, limit=12 }
//! ```
//! `batch` is the most cells one `GET` of the scanner returns.

use super::{json_array, json_bool, json_i64, json_object, json_str, xml_i64};
use crate::error::{RestError, Result};
use crate::repr::{b64, proto, xml};
use crate::rowspec::ColumnSpec;
use basalt_types::{Scan, TimeRange};
use bytes::Bytes;
use serde_json::Value;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScannerModel {
    pub start_row: Bytes,
    pub end_row: Bytes,
    pub columns: Vec<Bytes>,
    pub batch: Option<i64>,
    pub start_time: Option<i64>,
    pub end_time: Option<i64>,
    pub max_versions: Option<i64>,
    /// The JSON filter model, as text.
    pub filter: Option<String>,
    pub limit: Option<i64>,
    pub cache_blocks: Option<bool>,
    pub reversed: Option<bool>,
}

fn opt_b64(text: Option<&str>, field: &str) -> Result<Bytes> {
    Ok(text
        .map(|t| b64::decode(t, field))
        .transpose()?
        .unwrap_or_default())
}

impl ScannerModel {
    pub fn from_json(v: &Value) -> Result<Self> {
        json_object(v, "Scanner")?;
        let columns = json_array(v, "column")
            .into_iter()
            .map(|c| {
                c.as_str()
                    .ok_or_else(|| RestError::bad("Scanner: 'column' holds a non-string"))
                    .and_then(|s| b64::decode(s, "column"))
            })
            .collect::<Result<_>>()?;
        Ok(Self {
            start_row: opt_b64(json_str(v, "startRow", "Scanner")?, "startRow")?,
            end_row: opt_b64(json_str(v, "endRow", "Scanner")?, "endRow")?,
            columns,
            batch: json_i64(v, "batch", "Scanner")?,
            start_time: json_i64(v, "startTime", "Scanner")?,
            end_time: json_i64(v, "endTime", "Scanner")?,
            max_versions: json_i64(v, "maxVersions", "Scanner")?,
            filter: match v.get("filter") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(object @ Value::Object(_)) => Some(object.to_string()),
                Some(other) => {
                    return Err(RestError::bad(format!(
                        "Scanner: 'filter' must be a filter model, not {other}"
                    )))
                }
            },
            limit: json_i64(v, "limit", "Scanner")?,
            cache_blocks: json_bool(v, "cacheBlocks", "Scanner")?,
            reversed: json_bool(v, "reversed", "Scanner")?,
        })
    }

    pub fn from_xml(root: &xml::Element) -> Result<Self> {
        root.expect_name("Scanner")?;
        let flag = |key: &str| -> Result<Option<bool>> {
            root.attr(key)
                .map(|v| match v {
                    "true" => Ok(true),
                    "false" => Ok(false),
                    _ => Err(RestError::bad(format!(
                        "Scanner: '{key}' must be true or false"
                    ))),
                })
                .transpose()
        };
        Ok(Self {
            start_row: opt_b64(root.attr("startRow"), "startRow")?,
            end_row: opt_b64(root.attr("endRow"), "endRow")?,
            columns: root
                .children_named("column")
                .map(|c| b64::decode(&c.text, "column"))
                .collect::<Result<_>>()?,
            batch: xml_i64(root, "batch", "Scanner")?,
            start_time: xml_i64(root, "startTime", "Scanner")?,
            end_time: xml_i64(root, "endTime", "Scanner")?,
            max_versions: xml_i64(root, "maxVersions", "Scanner")?,
            filter: root.children_named("filter").next().map(|f| f.text.clone()),
            limit: xml_i64(root, "limit", "Scanner")?,
            cache_blocks: flag("cacheBlocks")?,
            reversed: flag("reversed")?,
        })
    }

    pub fn from_protobuf(body: &[u8]) -> Result<Self> {
        let m: proto::Scanner = proto::decode(body, "Scanner")?;
        Ok(Self {
            start_row: Bytes::from(m.start_row.unwrap_or_default()),
            end_row: Bytes::from(m.end_row.unwrap_or_default()),
            columns: m.columns.into_iter().map(Bytes::from).collect(),
            batch: m.batch.map(i64::from),
            start_time: m.start_time,
            end_time: m.end_time,
            max_versions: m.max_versions.map(i64::from),
            filter: m.filter,
            limit: m.limit.map(i64::from),
            cache_blocks: m.cache_blocks,
            reversed: None,
        })
    }

    /// Cells per `GET`: the model's batch, else `default`.
    pub fn batch_cells(&self, default: u32) -> Result<u32> {
        match self.batch {
            None => Ok(default),
            Some(b) if b > 0 => u32::try_from(b)
                .map_err(|_| RestError::bad(format!("Scanner: batch {b} is too large"))),
            Some(b) => Err(RestError::bad(format!(
                "Scanner: batch must be positive, not {b}"
            ))),
        }
    }

    /// The scan this model describes.
    pub fn to_scan(&self) -> Result<Scan> {
        let mut scan = Scan::new()
            .start(self.start_row.clone())
            .stop(self.end_row.clone());
        for column in &self.columns {
            add_column(&mut scan, column)?;
        }
        let (start, end) = (
            self.start_time.unwrap_or(0),
            self.end_time.unwrap_or(i64::MAX),
        );
        if start != 0 || end != i64::MAX {
            scan.time_range = TimeRange::new(start, end)?;
        }
        if let Some(v) = self.max_versions {
            scan.max_versions = u32::try_from(v).ok().filter(|v| *v > 0).ok_or_else(|| {
                RestError::bad(format!("Scanner: maxVersions {v} is not positive"))
            })?;
        }
        if let Some(limit) = self.limit {
            if limit > 0 {
                scan.limit = Some(limit as u64);
            }
        }
        if let Some(text) = self.filter.as_deref().filter(|t| !t.trim().is_empty()) {
            scan.filter = Some(super::filter::parse(text)?);
        }
        scan.cache_blocks = self.cache_blocks.unwrap_or(true);
        if self.reversed == Some(true) {
            scan.reversed = true;
        }
        Ok(scan)
    }
}

/// Adds `family` or `family:qualifier` to a scan's columns.
pub fn add_column(scan: &mut Scan, column: &[u8]) -> Result<()> {
    let spec = ColumnSpec::parse(column)?;
    match spec.qualifier {
        Some(q) => scan.columns.add_column(spec.family, q),
        None => scan.columns.add_family(spec.family),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_xml_and_protobuf_agree() {
        let json = serde_json::json!({
            "startRow": "YQ==", "endRow": "eg==", "column": ["Y2Y6YQ==", "Y2Y="],
            "batch": 5, "maxVersions": 2, "startTime": 1, "endTime": 100,
            "filter": "{\"type\":\"FirstKeyOnlyFilter\"}"
        });
        let model = ScannerModel::from_json(&json).expect("valid");
        let xml_doc = r#"<Scanner startRow="YQ==" endRow="eg==" batch="5" maxVersions="2" startTime="1" endTime="100"><column>Y2Y6YQ==</column><column>Y2Y=</column><filter>{"type":"FirstKeyOnlyFilter"}</filter></Scanner>"#;
        let from_xml =
            ScannerModel::from_xml(&xml::parse(xml_doc.as_bytes()).expect("xml")).expect("model");
        assert_eq!(from_xml, model);
        let scan = model.to_scan().expect("valid scan");
        assert_eq!(scan.start_row, Bytes::from_static(b"a"));
        assert_eq!(scan.max_versions, 2);
        assert!(scan.columns.wants(b"cf", b"anything"));
        assert_eq!(scan.time_range, TimeRange::new(1, 100).expect("valid"));
        assert!(scan.filter.is_some());
        use prost::Message;
        let pb = proto::Scanner {
            start_row: Some(b"a".to_vec()),
            batch: Some(5),
            ..Default::default()
        }
        .encode_to_vec();
        let from_pb = ScannerModel::from_protobuf(&pb).expect("proto");
        assert_eq!(from_pb.batch_cells(100).expect("positive"), 5);
    }

    #[test]
    fn bad_models_are_rejected() {
        let bad = serde_json::json!({"batch": 0});
        let model = ScannerModel::from_json(&bad).expect("shape ok");
        assert!(model.batch_cells(10).is_err());
        assert!(ScannerModel::from_json(&serde_json::json!({"startRow": 5})).is_err());
        assert!(ScannerModel::from_json(&serde_json::json!({"startRow": "@@"})).is_err());
        let reversed_times = serde_json::json!({"startTime": 10, "endTime": 5});
        let model = ScannerModel::from_json(&reversed_times).expect("shape ok");
        assert!(model.to_scan().is_err());
        let bad_filter = serde_json::json!({"filter": "{nope"});
        let model = ScannerModel::from_json(&bad_filter).expect("shape ok");
        assert!(model.to_scan().is_err());
    }
}
