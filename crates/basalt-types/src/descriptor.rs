//! Column-family and table descriptors with HBase's options and defaults (reference §2.1, §2.2).

use crate::error::{invalid, Result};
use crate::name::TableName;
use crate::operation::Durability;
use bytes::Bytes;
use std::collections::BTreeMap;

/// `TTL => FOREVER`: `Integer.MAX_VALUE` seconds.
pub const TTL_FOREVER_SECS: u64 = i32::MAX as u64;

/// `KEEP_DELETED_CELLS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KeepDeletedCells {
    /// Markers and the cells they mask go at the next major compaction.
    #[default]
    False,
    /// Deleted cells stay readable by time-range and raw reads; versions and TTL still apply.
    True,
    /// As `True`, but markers themselves expire with the family TTL.
    Ttl,
}

/// `BLOOMFILTER`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BloomType {
    None,
    /// Keyed by row: answers "might this file hold row R?".
    #[default]
    Row,
    /// Keyed by row and column: answers "might this file hold R / f:q?".
    RowCol,
}

/// `COMPRESSION` of data blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compression {
    #[default]
    None,
    Gz,
    Snappy,
    Lz4,
    Zstd,
}

/// `DATA_BLOCK_ENCODING`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DataBlockEncoding {
    #[default]
    None,
    /// Each key stores only the bytes that differ from the previous key's prefix.
    Prefix,
    /// HBase's DiffKeyDeltaEncoder: a shared key prefix, the timestamp as a difference
    /// from the previous one, and the type only when it changes.
    Diff,
    /// HBase's FastDiffDeltaEncoder: a shared key prefix, the timestamp's bytes that differ
    /// from the previous one, and the value only when it differs from the previous value.
    FastDiff,
    /// HBase's RowIndexCodecV1: cells unencoded plus an index of row starts, so a seek
    /// binary-searches rows within a block.
    RowIndexV1,
}

macro_rules! named_enum {
    ($ty:ty, $what:literal, $($variant:ident => $name:literal),+ $(,)?) => {
        named_enum!($ty, $what, refused = |_| None, $($variant => $name),+);
    };
    ($ty:ty, $what:literal, refused = $refused:expr, $($variant:ident => $name:literal),+ $(,)?) => {
        impl $ty {
            /// The name HBase's shell uses.
            pub fn name(self) -> &'static str {
                match self { $(Self::$variant => $name),+ }
            }

            /// Parses the shell's name, case-insensitively.
            pub fn parse(text: &str) -> Result<Self> {
                $(if text.eq_ignore_ascii_case($name) { return Ok(Self::$variant); })+
                let refused: fn(&str) -> Option<String> = $refused;
                if let Some(why) = refused(text) {
                    return Err(invalid(why));
                }
                let names: &[&str] = &[$($name),+];
                Err(invalid(format!(
                    "unknown {} '{}': expected one of {}", $what, text, names.join(", ")
                )))
            }
        }
    };
}

named_enum!(KeepDeletedCells, "KEEP_DELETED_CELLS", False => "FALSE", True => "TRUE", Ttl => "TTL");
named_enum!(BloomType, "BLOOMFILTER", None => "NONE", Row => "ROW", RowCol => "ROWCOL");
named_enum!(Compression, "COMPRESSION", refused = refused_compression, None => "NONE", Gz => "GZ", Snappy => "SNAPPY", Lz4 => "LZ4", Zstd => "ZSTD");
named_enum!(DataBlockEncoding, "DATA_BLOCK_ENCODING", None => "NONE", Prefix => "PREFIX",
    Diff => "DIFF", FastDiff => "FAST_DIFF", RowIndexV1 => "ROW_INDEX_V1");

/// Why a codec HBase knows is not offered, with what to use instead.
///
/// LZO: no maintained pure-Rust LZO crate qualified when this was written (2026-11):
/// `lzokay-native` 0.1.0 (one release) panics on damaged input, `minilzo-rs` binds the C
/// library and is GPL-3.0, `rust-lzo` is GPL-2.0 and machine-translated C.
fn refused_compression(text: &str) -> Option<String> {
    text.eq_ignore_ascii_case("LZO").then(|| {
        "COMPRESSION 'LZO' is not supported by Basalt (no maintained pure-Rust LZO codec \
         exists); use LZ4 (closest to LZO in speed), SNAPPY, ZSTD or GZ"
            .to_string()
    })
}

/// One column family's schema and storage options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FamilyDescriptor {
    pub name: Bytes,
    /// `VERSIONS`: versions kept (default 1).
    pub max_versions: u32,
    /// `MIN_VERSIONS`: versions kept even when expired by TTL (default 0).
    pub min_versions: u32,
    /// `TTL` in seconds; [`TTL_FOREVER_SECS`] means never.
    pub ttl_secs: u64,
    pub keep_deleted_cells: KeepDeletedCells,
    /// `NEW_VERSION_BEHAVIOR` (HBase 2.0+, HBASE-15968): a delete masks only the puts
    /// written before it (by sequence id), and versions are counted in write order, so a
    /// read's answer does not depend on when compactions ran (default false).
    pub new_version_behavior: bool,
    pub bloom_filter: BloomType,
    /// `BLOCKSIZE` in bytes (default 65536).
    pub block_size_bytes: u32,
    /// `BLOCKCACHE`: cache data blocks on read (default true).
    pub block_cache: bool,
    /// `IN_MEMORY`: in-memory priority in the block cache (default false).
    pub in_memory: bool,
    pub compression: Compression,
    pub data_block_encoding: DataBlockEncoding,
    /// `REPLICATION_SCOPE` (stored and described; replication itself is not implemented).
    pub replication_scope: u32,
    pub configuration: BTreeMap<String, String>,
    pub metadata: BTreeMap<String, String>,
}

impl FamilyDescriptor {
    /// A family with HBase's defaults; fails when the name breaks HBase's rules.
    pub fn new(name: impl Into<Bytes>) -> Result<Self> {
        let name = name.into();
        validate_family_name(&name)?;
        Ok(Self {
            name,
            max_versions: 1,
            min_versions: 0,
            ttl_secs: TTL_FOREVER_SECS,
            keep_deleted_cells: KeepDeletedCells::False,
            new_version_behavior: false,
            bloom_filter: BloomType::Row,
            block_size_bytes: 65536,
            block_cache: true,
            in_memory: false,
            compression: Compression::None,
            data_block_encoding: DataBlockEncoding::None,
            replication_scope: 0,
            configuration: BTreeMap::new(),
            metadata: BTreeMap::new(),
        })
    }

    /// TTL in milliseconds, `None` when the family keeps cells forever.
    pub fn ttl_ms(&self) -> Option<u64> {
        (self.ttl_secs < TTL_FOREVER_SECS).then(|| self.ttl_secs.saturating_mul(1000))
    }

    /// Checks the options against each other, as HBase does when a table is created.
    pub fn validate(&self) -> Result<()> {
        validate_family_name(&self.name)?;
        if self.max_versions == 0 {
            return Err(invalid(format!(
                "family '{}': VERSIONS must be positive",
                String::from_utf8_lossy(&self.name)
            )));
        }
        if self.min_versions > self.max_versions {
            return Err(invalid(format!(
                "family '{}': MIN_VERSIONS ({}) must be <= VERSIONS ({})",
                String::from_utf8_lossy(&self.name),
                self.min_versions,
                self.max_versions
            )));
        }
        if self.block_size_bytes < 1024 || self.block_size_bytes > 16 * 1024 * 1024 {
            return Err(invalid(format!(
                "family '{}': BLOCKSIZE {} must be between 1024 and 16777216 bytes",
                String::from_utf8_lossy(&self.name),
                self.block_size_bytes
            )));
        }
        if self.ttl_secs == 0 {
            return Err(invalid(format!(
                "family '{}': TTL must be positive",
                String::from_utf8_lossy(&self.name)
            )));
        }
        Ok(())
    }
}

/// HBase's family-name rules: not empty, at most 127 bytes, no leading `.`, no ISO control
/// characters, `:`, `\` or `/`, and not `recovered.edits`.
pub fn validate_family_name(name: &[u8]) -> Result<()> {
    let shown = String::from_utf8_lossy(name);
    if name.is_empty() {
        return Err(invalid("Column family name can not be empty"));
    }
    if name.len() > crate::limits::FAMILY_NAME_MAX_BYTES {
        return Err(invalid(format!(
            "Column family name '{shown}' is {} bytes long; the limit is {}",
            name.len(),
            crate::limits::FAMILY_NAME_MAX_BYTES
        )));
    }
    if name[0] == b'.' {
        return Err(invalid(format!(
            "Column family names cannot start with a period: {shown}"
        )));
    }
    if let Some(bad) = name
        .iter()
        .find(|b| b.is_ascii_control() || b"\\/:".contains(b))
    {
        return Err(invalid(format!(
            "Column family name '{shown}' contains an illegal character (byte 0x{bad:02x}): \
             control characters, ':', '\\' and '/' are not allowed"
        )));
    }
    if name == b"recovered.edits" {
        return Err(invalid("Column family name 'recovered.edits' is reserved"));
    }
    Ok(())
}

/// A table's schema and options (reference §2.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableDescriptor {
    pub name: TableName,
    pub families: Vec<FamilyDescriptor>,
    /// `MAX_FILESIZE`: the split threshold in bytes (default 10 GiB).
    pub max_file_size_bytes: u64,
    /// `MEMSTORE_FLUSHSIZE` in bytes (default 128 MiB).
    pub memstore_flush_size_bytes: u64,
    pub read_only: bool,
    pub durability: Durability,
    pub compaction_enabled: bool,
    pub split_enabled: bool,
    pub merge_enabled: bool,
    pub configuration: BTreeMap<String, String>,
    pub metadata: BTreeMap<String, String>,
}

impl TableDescriptor {
    pub const DEFAULT_MAX_FILE_SIZE_BYTES: u64 = 10 * 1024 * 1024 * 1024;
    pub const DEFAULT_MEMSTORE_FLUSH_SIZE_BYTES: u64 = 128 * 1024 * 1024;

    /// A table with HBase's defaults and the given families.
    pub fn new(name: TableName, families: Vec<FamilyDescriptor>) -> Self {
        Self {
            name,
            families,
            max_file_size_bytes: Self::DEFAULT_MAX_FILE_SIZE_BYTES,
            memstore_flush_size_bytes: Self::DEFAULT_MEMSTORE_FLUSH_SIZE_BYTES,
            read_only: false,
            durability: Durability::UseDefault,
            compaction_enabled: true,
            split_enabled: true,
            merge_enabled: true,
            configuration: BTreeMap::new(),
            metadata: BTreeMap::new(),
        }
    }

    /// The table attribute (kept among the descriptor's values, `metadata`) that makes a
    /// table keep its write-ahead log for this many seconds, for point-in-time restore.
    pub const WAL_RETENTION_SECS: &'static str = "WAL_RETENTION_SECS";

    /// How long the table's logs are kept (`WAL_RETENTION_SECS`); `None` when not set (or
    /// not a positive number, which [`TableDescriptor::validate`] refuses).
    pub fn wal_retention_secs(&self) -> Option<u64> {
        self.metadata
            .get(Self::WAL_RETENTION_SECS)
            .and_then(|v| v.trim().parse::<u64>().ok())
            .filter(|secs| *secs > 0)
    }

    pub fn family(&self, name: &[u8]) -> Option<&FamilyDescriptor> {
        self.families.iter().find(|f| f.name.as_ref() == name)
    }

    /// HBase's message for a write to a family the table does not have.
    pub fn unknown_family_message(&self) -> String {
        let valid: Vec<String> = self
            .families
            .iter()
            .map(|f| format!("{}:*", String::from_utf8_lossy(&f.name)))
            .collect();
        format!(
            "Unknown column family! Valid column names: {}",
            valid.join(", ")
        )
    }

    /// At least one family, no duplicates, every family valid.
    pub fn validate(&self) -> Result<()> {
        if self.families.is_empty() {
            return Err(invalid(format!(
                "Table '{}' should have at least one column family",
                self.name
            )));
        }
        for (i, family) in self.families.iter().enumerate() {
            family.validate()?;
            if self.families[..i].iter().any(|f| f.name == family.name) {
                return Err(invalid(format!(
                    "Family '{}' is given twice for table '{}'",
                    String::from_utf8_lossy(&family.name),
                    self.name
                )));
            }
        }
        if let Some(v) = self.metadata.get(Self::WAL_RETENTION_SECS) {
            if self.wal_retention_secs().is_none() {
                return Err(invalid(format!(
                    "Table '{}': WAL_RETENTION_SECS must be a positive number of seconds, \
                     not '{v}'",
                    self.name
                )));
            }
        }
        if self.memstore_flush_size_bytes == 0 || self.max_file_size_bytes == 0 {
            return Err(invalid(format!(
                "Table '{}': MEMSTORE_FLUSHSIZE and MAX_FILESIZE must be positive",
                self.name
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_hbase_defaults() {
        let f = FamilyDescriptor::new("cf").expect("valid name");
        assert_eq!(f.max_versions, 1);
        assert_eq!(f.min_versions, 0);
        assert_eq!(f.ttl_ms(), None);
        assert_eq!(f.bloom_filter, BloomType::Row);
        assert_eq!(f.block_size_bytes, 65536);
        assert!(f.block_cache && !f.in_memory);
        assert_eq!(f.compression, Compression::None);
    }

    #[test]
    fn family_name_rules() {
        for bad in ["", ".x", "a:b", "a/b", "a\\b", "recovered.edits", "a\nb"] {
            assert!(FamilyDescriptor::new(bad.to_string()).is_err(), "{bad:?}");
        }
        assert!(FamilyDescriptor::new("x".repeat(128)).is_err());
        assert!(FamilyDescriptor::new("x".repeat(127)).is_ok());
    }

    #[test]
    fn option_names_parse_case_insensitively() {
        assert_eq!(
            BloomType::parse("rowcol").expect("known"),
            BloomType::RowCol
        );
        assert_eq!(
            Compression::parse("ZSTD").expect("known"),
            Compression::Zstd
        );
        let err = Compression::parse("LZMA2").expect_err("unknown");
        assert!(err.to_string().contains("COMPRESSION"), "{err}");
        for (name, encoding) in [
            ("diff", DataBlockEncoding::Diff),
            ("FAST_DIFF", DataBlockEncoding::FastDiff),
            ("row_index_v1", DataBlockEncoding::RowIndexV1),
        ] {
            assert_eq!(DataBlockEncoding::parse(name).expect("known"), encoding);
            assert!(encoding.name().eq_ignore_ascii_case(name));
        }
    }

    #[test]
    fn lzo_is_refused_naming_the_codecs_to_use_instead() {
        let err = Compression::parse("lzo")
            .expect_err("not offered")
            .to_string();
        for name in ["LZO", "LZ4", "SNAPPY", "ZSTD", "GZ"] {
            assert!(err.contains(name), "{err}");
        }
    }

    #[test]
    fn unknown_family_message_lists_families() {
        let name = TableName::parse("t").expect("valid");
        let t = TableDescriptor::new(
            name,
            vec![
                FamilyDescriptor::new("f1").expect("valid"),
                FamilyDescriptor::new("f2").expect("valid"),
            ],
        );
        assert_eq!(
            t.unknown_family_message(),
            "Unknown column family! Valid column names: f1:*, f2:*"
        );
    }
}
