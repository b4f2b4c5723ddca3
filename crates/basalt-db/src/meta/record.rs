//! A region as the catalog records it.

use basalt_types::escape::to_string_binary;
use basalt_types::TableName;
use bytes::Bytes;

/// Where a region is in its life.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegionState {
    /// Serving (when its table is enabled).
    Open,
    /// A split started; until the daughters are committed the region still serves.
    Splitting,
    /// Replaced by two daughters (by encoded name); kept until they no longer refer to it.
    Split { daughters: (String, String) },
    /// Merged into another region; kept until it no longer refers to this one.
    Merged { into: String },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionRecord {
    pub table: TableName,
    /// Creation time in ms, unique within the table.
    pub region_id: u64,
    pub start_key: Bytes,
    pub end_key: Bytes,
    pub state: RegionState,
    /// The short name: folder name and log name.
    pub encoded_name: String,
}

impl RegionRecord {
    pub fn new(
        table: TableName,
        region_id: u64,
        start_key: Bytes,
        end_key: Bytes,
        state: RegionState,
    ) -> Self {
        let encoded_name = encode_name(&table, &start_key, region_id);
        Self {
            table,
            region_id,
            start_key,
            end_key,
            state,
            encoded_name,
        }
    }

    /// HBase's region name `table,start_key,region_id.encoded.` (start key escaped).
    pub fn region_name(&self) -> String {
        format!(
            "{},{},{}.{}.",
            self.table,
            to_string_binary(&self.start_key),
            self.region_id,
            self.encoded_name
        )
    }

    /// The row of this region in `hbase:meta`: `table,start_key,region_id` in raw bytes.
    pub fn meta_row(&self) -> Bytes {
        meta_row(&self.table, &self.start_key, self.region_id)
    }

    pub fn is_serving(&self) -> bool {
        matches!(self.state, RegionState::Open | RegionState::Splitting)
    }

    pub fn contains_row(&self, row: &[u8]) -> bool {
        row >= self.start_key.as_ref() && (self.end_key.is_empty() || row < self.end_key.as_ref())
    }
}

pub fn meta_row(table: &TableName, start_key: &[u8], region_id: u64) -> Bytes {
    let mut row = format!("{table},").into_bytes();
    row.extend_from_slice(start_key);
    row.extend_from_slice(format!(",{region_id}").as_bytes());
    Bytes::from(row)
}

/// 32 hex digits naming a region: a hash of its table, start key and id.
fn encode_name(table: &TableName, start_key: &[u8], region_id: u64) -> String {
    let hash = xxhash_rust::xxh3::xxh3_128(&meta_row(table, start_key, region_id));
    format!("{hash:032x}")
}
