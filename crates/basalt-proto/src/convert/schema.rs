//! Table names, namespaces, descriptors, pre-splits and region reports.
//!
//! Descriptor options travel by their HBase shell names (`"ROWCOL"`, `"SNAPPY"`), parsed
//! back with `basalt-types`' own parsers so the error messages are the shell's.

use super::cell::{decode_durability, encode_durability};
use super::{required, ConvertError};
use crate::pb;
use basalt_api::{PreSplit, RegionLocation, RegionReport, RegionState};
use basalt_types::{
    BloomType, Compression, DataBlockEncoding, FamilyDescriptor, KeepDeletedCells,
    NamespaceDescriptor, SplitAlgorithm, TableDescriptor, TableName,
};

impl From<&TableName> for pb::TableName {
    fn from(t: &TableName) -> Self {
        pb::TableName {
            namespace: t.namespace().to_string(),
            qualifier: t.qualifier().to_string(),
        }
    }
}

impl TryFrom<pb::TableName> for TableName {
    type Error = ConvertError;

    fn try_from(t: pb::TableName) -> Result<Self, ConvertError> {
        Ok(TableName::new(&t.namespace, &t.qualifier)?)
    }
}

/// A required table name field.
pub fn decode_table(t: Option<pb::TableName>) -> Result<TableName, ConvertError> {
    required(t, "table")?.try_into()
}

impl From<&NamespaceDescriptor> for pb::NamespaceDescriptor {
    fn from(n: &NamespaceDescriptor) -> Self {
        pb::NamespaceDescriptor {
            name: n.name.clone(),
            properties: n.properties.clone(),
        }
    }
}

impl TryFrom<pb::NamespaceDescriptor> for NamespaceDescriptor {
    type Error = ConvertError;

    fn try_from(n: pb::NamespaceDescriptor) -> Result<Self, ConvertError> {
        let mut ns = NamespaceDescriptor::new(&n.name)?;
        ns.properties = n.properties;
        Ok(ns)
    }
}

impl From<&FamilyDescriptor> for pb::FamilyDescriptor {
    fn from(f: &FamilyDescriptor) -> Self {
        pb::FamilyDescriptor {
            name: f.name.clone(),
            max_versions: f.max_versions,
            min_versions: f.min_versions,
            ttl_secs: f.ttl_secs,
            keep_deleted_cells: f.keep_deleted_cells.name().to_string(),
            bloom_filter: f.bloom_filter.name().to_string(),
            block_size_bytes: f.block_size_bytes,
            block_cache: f.block_cache,
            in_memory: f.in_memory,
            compression: f.compression.name().to_string(),
            data_block_encoding: f.data_block_encoding.name().to_string(),
            replication_scope: f.replication_scope,
            configuration: f.configuration.clone(),
            metadata: f.metadata.clone(),
            new_version_behavior: f.new_version_behavior,
        }
    }
}

impl TryFrom<pb::FamilyDescriptor> for FamilyDescriptor {
    type Error = ConvertError;

    fn try_from(f: pb::FamilyDescriptor) -> Result<Self, ConvertError> {
        let family = FamilyDescriptor {
            max_versions: f.max_versions,
            min_versions: f.min_versions,
            ttl_secs: f.ttl_secs,
            keep_deleted_cells: KeepDeletedCells::parse(&f.keep_deleted_cells)?,
            new_version_behavior: f.new_version_behavior,
            bloom_filter: BloomType::parse(&f.bloom_filter)?,
            block_size_bytes: f.block_size_bytes,
            block_cache: f.block_cache,
            in_memory: f.in_memory,
            compression: Compression::parse(&f.compression)?,
            data_block_encoding: DataBlockEncoding::parse(&f.data_block_encoding)?,
            replication_scope: f.replication_scope,
            configuration: f.configuration,
            metadata: f.metadata,
            ..FamilyDescriptor::new(f.name)?
        };
        family.validate()?;
        Ok(family)
    }
}

impl From<&TableDescriptor> for pb::TableDescriptor {
    fn from(t: &TableDescriptor) -> Self {
        pb::TableDescriptor {
            name: Some((&t.name).into()),
            families: t.families.iter().map(Into::into).collect(),
            max_file_size_bytes: t.max_file_size_bytes,
            memstore_flush_size_bytes: t.memstore_flush_size_bytes,
            read_only: t.read_only,
            durability: encode_durability(t.durability),
            compaction_enabled: t.compaction_enabled,
            split_enabled: t.split_enabled,
            merge_enabled: t.merge_enabled,
            configuration: t.configuration.clone(),
            metadata: t.metadata.clone(),
        }
    }
}

/// Decodes a descriptor without validating it: the database judges descriptors itself,
/// with HBase's messages (an empty family list is its error to report).
impl TryFrom<pb::TableDescriptor> for TableDescriptor {
    type Error = ConvertError;

    fn try_from(t: pb::TableDescriptor) -> Result<Self, ConvertError> {
        let families = t
            .families
            .into_iter()
            .map(FamilyDescriptor::try_from)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(TableDescriptor {
            max_file_size_bytes: t.max_file_size_bytes,
            memstore_flush_size_bytes: t.memstore_flush_size_bytes,
            read_only: t.read_only,
            durability: decode_durability(t.durability)?,
            compaction_enabled: t.compaction_enabled,
            split_enabled: t.split_enabled,
            merge_enabled: t.merge_enabled,
            configuration: t.configuration,
            metadata: t.metadata,
            ..TableDescriptor::new(decode_table(t.name)?, families)
        })
    }
}

fn algorithm_name(a: SplitAlgorithm) -> &'static str {
    match a {
        SplitAlgorithm::HexString => "HexStringSplit",
        SplitAlgorithm::DecimalString => "DecimalStringSplit",
        SplitAlgorithm::Uniform => "UniformSplit",
    }
}

pub fn encode_pre_split(split: &PreSplit) -> Option<pb::create_table_request::Split> {
    use pb::create_table_request::Split;
    match split {
        PreSplit::None => None,
        PreSplit::Keys(keys) => Some(Split::Keys(pb::SplitKeys { keys: keys.clone() })),
        PreSplit::Count { regions, algorithm } => Some(Split::Count(pb::SplitCount {
            regions: *regions,
            algorithm: algorithm_name(*algorithm).to_string(),
        })),
    }
}

pub fn decode_pre_split(
    split: Option<pb::create_table_request::Split>,
) -> Result<PreSplit, ConvertError> {
    use pb::create_table_request::Split;
    Ok(match split {
        None => PreSplit::None,
        Some(Split::Keys(k)) => PreSplit::Keys(k.keys),
        Some(Split::Count(c)) => PreSplit::Count {
            regions: c.regions,
            algorithm: SplitAlgorithm::parse(&c.algorithm)?,
        },
    })
}

fn to_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

impl From<&RegionLocation> for pb::RegionLocation {
    fn from(l: &RegionLocation) -> Self {
        pb::RegionLocation {
            region_name: l.region_name.clone(),
            start_key: l.start_key.clone(),
            end_key: l.end_key.clone(),
            server: l.server.clone(),
        }
    }
}

impl From<pb::RegionLocation> for RegionLocation {
    fn from(l: pb::RegionLocation) -> Self {
        RegionLocation {
            region_name: l.region_name,
            start_key: l.start_key,
            end_key: l.end_key,
            server: l.server,
        }
    }
}

impl From<&RegionReport> for pb::RegionReport {
    fn from(r: &RegionReport) -> Self {
        pb::RegionReport {
            table: Some((&r.table).into()),
            region_name: r.region_name.clone(),
            encoded_name: r.encoded_name.clone(),
            start_key: r.start_key.clone(),
            end_key: r.end_key.clone(),
            server: r.server.clone(),
            store_files: to_u64(r.store_files),
            store_file_bytes: r.store_file_bytes,
            memstore_bytes: r.memstore_bytes,
            read_requests: r.read_requests,
            write_requests: r.write_requests,
            state: match r.state {
                RegionState::Open => pb::RegionState::Open,
                RegionState::Closed => pb::RegionState::Closed,
                RegionState::FailedOpen => pb::RegionState::FailedOpen,
            } as i32,
            failure: r.failure.clone().unwrap_or_default(),
        }
    }
}

impl TryFrom<pb::RegionReport> for RegionReport {
    type Error = ConvertError;

    fn try_from(r: pb::RegionReport) -> Result<Self, ConvertError> {
        Ok(RegionReport {
            table: decode_table(r.table)?,
            region_name: r.region_name,
            encoded_name: r.encoded_name,
            start_key: r.start_key,
            end_key: r.end_key,
            server: r.server,
            store_files: usize::try_from(r.store_files).unwrap_or(usize::MAX),
            store_file_bytes: r.store_file_bytes,
            memstore_bytes: r.memstore_bytes,
            read_requests: r.read_requests,
            write_requests: r.write_requests,
            state: match pb::RegionState::try_from(r.state) {
                Ok(pb::RegionState::Closed) => RegionState::Closed,
                Ok(pb::RegionState::FailedOpen) => RegionState::FailedOpen,
                // OPEN, or a state a newer server knows: serving as far as we can tell.
                _ => RegionState::Open,
            },
            failure: (!r.failure.is_empty()).then_some(r.failure),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    #[test]
    fn descriptors_round_trip() {
        let mut f = FamilyDescriptor::new("cf").expect("valid");
        f.bloom_filter = BloomType::RowCol;
        f.compression = Compression::Zstd;
        f.max_versions = 3;
        f.new_version_behavior = true;
        f.metadata.insert("k".into(), "v".into());
        let mut t = TableDescriptor::new(TableName::parse("ns:t").expect("valid"), vec![f]);
        t.read_only = true;
        let back = TableDescriptor::try_from(pb::TableDescriptor::from(&t)).expect("valid");
        assert_eq!(back, t);
    }

    #[test]
    fn bad_names_and_options_are_refused() {
        let wire = pb::TableName {
            namespace: "default".into(),
            qualifier: "bad name".into(),
        };
        assert!(TableName::try_from(wire).is_err());
        let mut f = pb::FamilyDescriptor::from(&FamilyDescriptor::new("cf").expect("valid"));
        f.compression = "LZMA".into();
        assert!(FamilyDescriptor::try_from(f).is_err());
        let split = PreSplit::Keys(vec![Bytes::from_static(b"m")]);
        assert_eq!(
            decode_pre_split(encode_pre_split(&split)).expect("valid"),
            split
        );
    }
}
