//! `CellSet`: rows of cells with base64 keys, columns and values (reference §6.2).
//!
//! ```text
//! JSON  {"Row":[{"key":"cm93MQ==","Cell":[{"column":"Y2Y6YQ==","timestamp":1366880000000,"$":"dmFsdWUx"}]}]}
//! XML   <CellSet><Row key="cm93MQ=="><Cell column="Y2Y6YQ==" timestamp="1366880000000">dmFsdWUx</Cell></Row></CellSet>
//! proto CellSet { rows: [Row { key, values: [Cell { column, timestamp, data }] }] }
//! ```
//! A cell read back always has a timestamp; one written may leave it out (the server's time).

use super::{json_array, json_i64, json_object, json_str, xml_i64, Model};
use crate::error::{RestError, Result};
use crate::repr::{b64, proto, xml};
use basalt_types::{Cell, RowResult, LATEST_TIMESTAMP};
use bytes::Bytes;
use prost::Message;
use serde_json::{json, Value};

/// One cell: `family:qualifier`, an optional timestamp and the value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellModel {
    /// `family:qualifier` (or a bare family); empty when the URL names it.
    pub column: Bytes,
    pub timestamp: Option<i64>,
    pub value: Bytes,
}

/// One row: its key (empty when the URL names it) and cells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowModel {
    pub key: Bytes,
    pub cells: Vec<CellModel>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CellSet {
    pub rows: Vec<RowModel>,
}

/// `family:qualifier` as one byte string.
pub fn column_of(cell: &Cell) -> Bytes {
    let mut column = Vec::with_capacity(cell.family().len() + 1 + cell.qualifier().len());
    column.extend_from_slice(cell.family());
    column.push(b':');
    column.extend_from_slice(cell.qualifier());
    Bytes::from(column)
}

impl CellSet {
    /// Groups result cells by row, keeping their order.
    pub fn from_results<'a>(results: impl IntoIterator<Item = &'a RowResult>) -> Self {
        let mut set = Self::default();
        for result in results {
            set.push_cells(&result.cells);
        }
        set
    }

    /// Appends cells, starting a new row whenever the key changes.
    pub fn push_cells(&mut self, cells: &[Cell]) {
        for cell in cells {
            let model = CellModel {
                column: column_of(cell),
                timestamp: Some(cell.timestamp()),
                value: cell.value_bytes(),
            };
            match self.rows.last_mut() {
                Some(row) if row.key == cell.row() => row.cells.push(model),
                _ => self.rows.push(RowModel {
                    key: cell.row_bytes(),
                    cells: vec![model],
                }),
            }
        }
    }

    pub fn cell_count(&self) -> usize {
        self.rows.iter().map(|r| r.cells.len()).sum()
    }

    pub fn from_json(value: &Value) -> Result<Self> {
        json_object(value, "CellSet")?;
        let mut rows = Vec::new();
        for row in json_array(value, "Row") {
            json_object(row, "CellSet Row")?;
            let key = match json_str(row, "key", "CellSet Row")? {
                Some(k) => b64::decode(k, "Row.key")?,
                None => Bytes::new(),
            };
            let mut cells = Vec::new();
            for cell in json_array(row, "Cell") {
                json_object(cell, "CellSet Cell")?;
                let column = match json_str(cell, "column", "Cell")? {
                    Some(c) => b64::decode(c, "Cell.column")?,
                    None => Bytes::new(),
                };
                let value = match json_str(cell, "$", "Cell")? {
                    Some(v) => b64::decode(v, "Cell.$")?,
                    None => Bytes::new(),
                };
                cells.push(CellModel {
                    column,
                    timestamp: json_i64(cell, "timestamp", "Cell")?,
                    value,
                });
            }
            rows.push(RowModel { key, cells });
        }
        Ok(Self { rows })
    }

    pub fn from_xml(root: &xml::Element) -> Result<Self> {
        root.expect_name("CellSet")?;
        let mut rows = Vec::new();
        for row in root.children_named("Row") {
            let key = match row.attr("key") {
                Some(k) => b64::decode(k, "Row key")?,
                None => Bytes::new(),
            };
            let mut cells = Vec::new();
            for cell in row.children_named("Cell") {
                let column = match cell.attr("column") {
                    Some(c) => b64::decode(c, "Cell column")?,
                    None => Bytes::new(),
                };
                cells.push(CellModel {
                    column,
                    timestamp: xml_i64(cell, "timestamp", "Cell")?,
                    value: b64::decode(&cell.text, "Cell value")?,
                });
            }
            rows.push(RowModel { key, cells });
        }
        Ok(Self { rows })
    }

    pub fn from_protobuf(body: &[u8]) -> Result<Self> {
        let message: proto::CellSet = proto::decode(body, "CellSet")?;
        let rows = message
            .rows
            .into_iter()
            .map(|row| RowModel {
                key: Bytes::from(row.key),
                cells: row
                    .values
                    .into_iter()
                    .map(|c| CellModel {
                        column: Bytes::from(c.column.unwrap_or_default()),
                        timestamp: c.timestamp,
                        value: Bytes::from(c.data.unwrap_or_default()),
                    })
                    .collect(),
            })
            .collect();
        Ok(Self { rows })
    }

    /// Fails when the set holds more than `max` cells.
    pub fn check_size(&self, max: usize) -> Result<()> {
        let count = self.cell_count();
        if count > max {
            return Err(RestError::bad(format!(
                "the cell set holds {count} cells, over the limit of {max}"
            )));
        }
        Ok(())
    }
}

impl Model for CellSet {
    fn json(&self) -> Value {
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|row| {
                let cells: Vec<Value> = row
                    .cells
                    .iter()
                    .map(|c| {
                        json!({
                            "column": b64::encode(&c.column),
                            "timestamp": c.timestamp.unwrap_or(LATEST_TIMESTAMP),
                            "$": b64::encode(&c.value),
                        })
                    })
                    .collect();
                json!({"key": b64::encode(&row.key), "Cell": cells})
            })
            .collect();
        json!({ "Row": rows })
    }

    fn xml(&self) -> String {
        let mut out = String::from("<CellSet>");
        for row in &self.rows {
            out.push_str(&format!("<Row key=\"{}\">", b64::encode(&row.key)));
            for c in &row.cells {
                out.push_str(&format!(
                    "<Cell column=\"{}\" timestamp=\"{}\">{}</Cell>",
                    b64::encode(&c.column),
                    c.timestamp.unwrap_or(LATEST_TIMESTAMP),
                    b64::encode(&c.value)
                ));
            }
            out.push_str("</Row>");
        }
        out.push_str("</CellSet>");
        out
    }

    fn protobuf(&self) -> Vec<u8> {
        proto::CellSet {
            rows: self
                .rows
                .iter()
                .map(|row| proto::CellSetRow {
                    key: row.key.to_vec(),
                    values: row
                        .cells
                        .iter()
                        .map(|c| proto::Cell {
                            row: None,
                            column: Some(c.column.to_vec()),
                            timestamp: c.timestamp.filter(|ts| *ts != LATEST_TIMESTAMP),
                            data: Some(c.value.to_vec()),
                        })
                        .collect(),
                })
                .collect(),
        }
        .encode_to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> CellSet {
        let mut set = CellSet::default();
        set.push_cells(&[
            Cell::put("row1", "cf", "a", 1366880000000, "value1"),
            Cell::put("row1", "cf", "b", 5, "x"),
            Cell::put("row2", "cf", "a", 6, ""),
        ]);
        set
    }

    #[test]
    fn json_has_hbase_shape() {
        let json = sample().json();
        assert_eq!(
            json["Row"][0],
            serde_json::json!({"key":"cm93MQ==","Cell":[
                {"column":"Y2Y6YQ==","timestamp":1366880000000i64,"$":"dmFsdWUx"},
                {"column":"Y2Y6Yg==","timestamp":5,"$":"eA=="}]})
        );
    }

    #[test]
    fn every_representation_round_trips() {
        let set = sample();
        assert_eq!(CellSet::from_json(&set.json()).expect("json"), set);
        let root = xml::parse(set.xml().as_bytes()).expect("xml");
        assert_eq!(CellSet::from_xml(&root).expect("xml model"), set);
        assert_eq!(CellSet::from_protobuf(&set.protobuf()).expect("proto"), set);
    }

    #[test]
    fn malformed_cell_sets_fail_with_the_field() {
        let bad_key = serde_json::json!({"Row":[{"key":"%%%","Cell":[]}]});
        let err = CellSet::from_json(&bad_key)
            .expect_err("bad base64")
            .to_string();
        assert!(err.contains("Row.key"), "{err}");
        let bad_ts = serde_json::json!({"Row":[{"key":"YQ==","Cell":[{"column":"YQ==","timestamp":"x","$":""}]}]});
        assert!(CellSet::from_json(&bad_ts).is_err());
        assert!(CellSet::from_json(&serde_json::json!([1])).is_err());
        assert!(CellSet::from_protobuf(&[0xff, 0xff, 0xff]).is_err());
        let wrong_root = xml::parse(b"<Rows/>").expect("xml");
        assert!(CellSet::from_xml(&wrong_root).is_err());
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_bodies_never_panic(body in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200)) {
            let _ = CellSet::from_protobuf(&body);
            if let Ok(root) = xml::parse(&body) {
                let _ = CellSet::from_xml(&root);
            }
            if let Ok(value) = serde_json::from_slice::<Value>(&body) {
                let _ = CellSet::from_json(&value);
            }
        }

        #[test]
        fn any_cells_round_trip_through_json_and_xml(
            cells in proptest::collection::vec(
                (proptest::collection::vec(proptest::prelude::any::<u8>(), 1..8),
                 proptest::collection::vec(proptest::prelude::any::<u8>(), 0..8),
                 0i64..i64::MAX),
                1..6),
        ) {
            let set = CellSet {
                rows: cells
                    .into_iter()
                    .map(|(key, value, ts)| RowModel {
                        key: Bytes::from(key),
                        cells: vec![CellModel {
                            column: Bytes::from_static(b"f:q"),
                            timestamp: Some(ts),
                            value: Bytes::from(value),
                        }],
                    })
                    .collect(),
            };
            proptest::prop_assert_eq!(&CellSet::from_json(&set.json()).expect("json"), &set);
            let root = xml::parse(set.xml().as_bytes()).expect("xml");
            proptest::prop_assert_eq!(&CellSet::from_xml(&root).expect("xml model"), &set);
        }
    }
}
