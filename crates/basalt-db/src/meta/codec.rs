//! The byte forms of what `hbase:meta` stores: table descriptors, region records and
//! namespace properties. Length-prefixed fields, big-endian, a version byte first; a
//! damaged value is a clear error, never a panic. A version above [`VERSION`] is a value
//! written by a newer Basalt: refused with a message naming both versions, never read as
//! today's layout. (The cells themselves are checksummed by the meta region's log records
//! and store files.)

use super::record::{RegionRecord, RegionState};
use basalt_types::{
    BloomType, Compression, DataBlockEncoding, Durability, FamilyDescriptor, KeepDeletedCells,
    TableDescriptor, TableName,
};
use bytes::Bytes;
use std::collections::BTreeMap;

/// The newest version this Basalt reads (table descriptors; the other values are all at
/// [`VERSION_BASE`]). Values are written at [`VERSION_BASE`] unless
/// they need more: a table descriptor with a `NEW_VERSION_BEHAVIOR` family is written at 2
/// (a trailing flag per family), so an older Basalt refuses it instead of reading the
/// table with the other delete semantics.
pub const VERSION: u8 = 2;

/// The version written when nothing newer is needed.
pub const VERSION_BASE: u8 = 1;

#[derive(Default)]
struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }
    fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn u64(&mut self, v: u64) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn bool(&mut self, v: bool) -> &mut Self {
        self.u8(u8::from(v))
    }
    fn bytes(&mut self, v: &[u8]) -> &mut Self {
        self.u32(v.len() as u32);
        self.0.extend_from_slice(v);
        self
    }
    fn map(&mut self, m: &BTreeMap<String, String>) -> &mut Self {
        self.u32(m.len() as u32);
        for (k, v) in m {
            self.bytes(k.as_bytes()).bytes(v.as_bytes());
        }
        self
    }
}

struct Reader<'a> {
    buf: &'a [u8],
    what: &'static str,
}

type DecodeResult<T> = Result<T, String>;

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> DecodeResult<&'a [u8]> {
        if self.buf.len() < n {
            return Err(format!("{} is truncated", self.what));
        }
        let (head, rest) = self.buf.split_at(n);
        self.buf = rest;
        Ok(head)
    }
    fn u8(&mut self) -> DecodeResult<u8> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> DecodeResult<u32> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u64(&mut self) -> DecodeResult<u64> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.take(8)?);
        Ok(u64::from_be_bytes(a))
    }
    fn bool(&mut self) -> DecodeResult<bool> {
        Ok(self.u8()? != 0)
    }
    fn bytes(&mut self) -> DecodeResult<&'a [u8]> {
        let len = self.u32()? as usize;
        self.take(len)
    }
    fn string(&mut self) -> DecodeResult<String> {
        String::from_utf8(self.bytes()?.to_vec())
            .map_err(|_| format!("{} holds invalid UTF-8", self.what))
    }
    fn map(&mut self) -> DecodeResult<BTreeMap<String, String>> {
        let n = self.u32()?;
        let mut m = BTreeMap::new();
        for _ in 0..n {
            m.insert(self.string()?, self.string()?);
        }
        Ok(m)
    }
    /// The leading version byte; `newest` is the newest this kind of value may have.
    fn version(&mut self, newest: u8) -> DecodeResult<u8> {
        match self.u8()? {
            v if (VERSION_BASE..=newest).contains(&v) => Ok(v),
            v if v > newest => Err(format!(
                "{} format version {v} is newer than this Basalt supports ({newest}); upgrade Basalt",
                self.what
            )),
            v => Err(format!("{} has unknown version {v}", self.what)),
        }
    }
    /// The next string, parsed.
    fn parsed<T>(&mut self, parse: impl Fn(&str) -> basalt_types::Result<T>) -> DecodeResult<T> {
        let text = self.string()?;
        parse(&text).map_err(|e| format!("{}: {e}", self.what))
    }
}

fn write_family(w: &mut Writer, f: &FamilyDescriptor) {
    w.bytes(&f.name)
        .u32(f.max_versions)
        .u32(f.min_versions)
        .u64(f.ttl_secs)
        .bytes(f.keep_deleted_cells.name().as_bytes())
        .bytes(f.bloom_filter.name().as_bytes())
        .u32(f.block_size_bytes)
        .bool(f.block_cache)
        .bool(f.in_memory)
        .bytes(f.compression.name().as_bytes())
        .bytes(f.data_block_encoding.name().as_bytes())
        .u32(f.replication_scope)
        .map(&f.configuration)
        .map(&f.metadata);
}

fn read_family(r: &mut Reader, version: u8) -> DecodeResult<FamilyDescriptor> {
    let name = Bytes::copy_from_slice(r.bytes()?);
    let mut f = FamilyDescriptor::new(name).map_err(|e| format!("{}: {e}", r.what))?;
    f.max_versions = r.u32()?;
    f.min_versions = r.u32()?;
    f.ttl_secs = r.u64()?;
    f.keep_deleted_cells = r.parsed(KeepDeletedCells::parse)?;
    f.bloom_filter = r.parsed(BloomType::parse)?;
    f.block_size_bytes = r.u32()?;
    f.block_cache = r.bool()?;
    f.in_memory = r.bool()?;
    f.compression = r.parsed(Compression::parse)?;
    f.data_block_encoding = r.parsed(DataBlockEncoding::parse)?;
    f.replication_scope = r.u32()?;
    f.configuration = r.map()?;
    f.metadata = r.map()?;
    if version >= 2 {
        f.new_version_behavior = r.bool()?;
    }
    Ok(f)
}

pub fn encode_table(t: &TableDescriptor) -> Vec<u8> {
    let version = if t.families.iter().any(|f| f.new_version_behavior) {
        2
    } else {
        VERSION_BASE
    };
    let mut w = Writer::default();
    w.u8(version)
        .bytes(t.name.to_string().as_bytes())
        .u64(t.max_file_size_bytes)
        .u64(t.memstore_flush_size_bytes)
        .bool(t.read_only)
        .bytes(t.durability.name().as_bytes())
        .bool(t.compaction_enabled)
        .bool(t.split_enabled)
        .bool(t.merge_enabled)
        .map(&t.configuration)
        .map(&t.metadata)
        .u32(t.families.len() as u32);
    for f in &t.families {
        write_family(&mut w, f);
        if version >= 2 {
            w.bool(f.new_version_behavior);
        }
    }
    w.0
}

pub fn decode_table(bytes: &[u8]) -> DecodeResult<TableDescriptor> {
    let mut r = Reader {
        buf: bytes,
        what: "table descriptor",
    };
    let version = r.version(VERSION)?;
    let name = r.parsed(TableName::parse)?;
    let mut t = TableDescriptor::new(name, Vec::new());
    t.max_file_size_bytes = r.u64()?;
    t.memstore_flush_size_bytes = r.u64()?;
    t.read_only = r.bool()?;
    t.durability = r.parsed(Durability::parse)?;
    t.compaction_enabled = r.bool()?;
    t.split_enabled = r.bool()?;
    t.merge_enabled = r.bool()?;
    t.configuration = r.map()?;
    t.metadata = r.map()?;
    let families = r.u32()?;
    for _ in 0..families {
        t.families.push(read_family(&mut r, version)?);
    }
    Ok(t)
}

pub fn encode_properties(properties: &BTreeMap<String, String>) -> Vec<u8> {
    let mut w = Writer::default();
    w.u8(VERSION_BASE).map(properties);
    w.0
}

pub fn decode_properties(bytes: &[u8]) -> DecodeResult<BTreeMap<String, String>> {
    let mut r = Reader {
        buf: bytes,
        what: "namespace properties",
    };
    r.version(VERSION_BASE)?;
    r.map()
}

fn state_code(state: &RegionState) -> u8 {
    match state {
        RegionState::Open => 0,
        RegionState::Splitting => 1,
        RegionState::Split { .. } => 2,
        RegionState::Merged { .. } => 3,
    }
}

pub fn encode_region(record: &RegionRecord) -> Vec<u8> {
    let mut w = Writer::default();
    w.u8(VERSION_BASE)
        .bytes(record.table.to_string().as_bytes())
        .u64(record.region_id)
        .bytes(&record.start_key)
        .bytes(&record.end_key)
        .u8(state_code(&record.state));
    match &record.state {
        RegionState::Split { daughters } => {
            w.bytes(daughters.0.as_bytes())
                .bytes(daughters.1.as_bytes());
        }
        RegionState::Merged { into } => {
            w.bytes(into.as_bytes());
        }
        RegionState::Open | RegionState::Splitting => {}
    }
    w.0
}

pub fn decode_region(bytes: &[u8]) -> DecodeResult<RegionRecord> {
    let mut r = Reader {
        buf: bytes,
        what: "region record",
    };
    r.version(VERSION_BASE)?;
    let table = r.parsed(TableName::parse)?;
    let region_id = r.u64()?;
    let start_key = Bytes::copy_from_slice(r.bytes()?);
    let end_key = Bytes::copy_from_slice(r.bytes()?);
    let state = match r.u8()? {
        0 => RegionState::Open,
        1 => RegionState::Splitting,
        2 => RegionState::Split {
            daughters: (r.string()?, r.string()?),
        },
        3 => RegionState::Merged { into: r.string()? },
        other => return Err(format!("region record has unknown state {other}")),
    };
    Ok(RegionRecord::new(
        table, region_id, start_key, end_key, state,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_descriptors_round_trip() {
        let mut f = FamilyDescriptor::new("cf").expect("valid");
        f.max_versions = 7;
        f.ttl_secs = 86400;
        f.keep_deleted_cells = KeepDeletedCells::Ttl;
        f.bloom_filter = BloomType::RowCol;
        f.compression = Compression::Zstd;
        f.metadata.insert("k".into(), "v".into());
        let mut t = TableDescriptor::new(
            TableName::parse("ns:t").expect("valid"),
            vec![f, FamilyDescriptor::new("x").expect("valid")],
        );
        t.read_only = true;
        t.durability = Durability::AsyncWal;
        assert_eq!(decode_table(&encode_table(&t)).expect("valid"), t);
        let bytes = encode_table(&t);
        for len in 0..bytes.len() {
            assert!(decode_table(&bytes[..len]).is_err(), "truncated at {len}");
        }
    }

    #[test]
    fn new_version_behavior_writes_version_2_and_only_then() {
        let plain = FamilyDescriptor::new("cf").expect("valid");
        let mut nvb = FamilyDescriptor::new("nv").expect("valid");
        nvb.new_version_behavior = true;
        let name = TableName::parse("t").expect("valid");
        let old_style = TableDescriptor::new(name.clone(), vec![plain.clone()]);
        assert_eq!(encode_table(&old_style)[0], 1, "readable by older Basalt");
        let t = TableDescriptor::new(name, vec![plain, nvb]);
        let bytes = encode_table(&t);
        assert_eq!(bytes[0], 2);
        assert_eq!(decode_table(&bytes).expect("valid"), t);
        for len in 0..bytes.len() {
            assert!(decode_table(&bytes[..len]).is_err(), "truncated at {len}");
        }
    }

    #[test]
    fn newer_versions_are_refused_naming_both() {
        let table = TableDescriptor::new(TableName::parse("t").expect("valid"), Vec::new());
        let record = RegionRecord::new(
            TableName::parse("t").expect("valid"),
            1,
            Bytes::new(),
            Bytes::new(),
            RegionState::Open,
        );
        type Decode = fn(&[u8]) -> Option<String>;
        let cases: [(&str, Vec<u8>, Decode); 3] = [
            ("table descriptor", encode_table(&table), |b| {
                decode_table(b).err()
            }),
            ("region record", encode_region(&record), |b| {
                decode_region(b).err()
            }),
            (
                "namespace properties",
                encode_properties(&BTreeMap::new()),
                |b| decode_properties(b).err(),
            ),
        ];
        for (what, mut bytes, decode) in cases {
            assert_eq!(decode(&bytes), None, "{what} reads");
            let newest = if what == "table descriptor" {
                VERSION
            } else {
                1
            };
            bytes[0] = newest + 1;
            let want = format!(
                "{what} format version {} is newer than this Basalt supports ({newest}); upgrade Basalt",
                newest + 1
            );
            assert_eq!(decode(&bytes), Some(want));
            bytes[0] = 0;
            assert_eq!(
                decode(&bytes),
                Some(format!("{what} has unknown version 0"))
            );
        }
    }

    #[test]
    fn region_records_round_trip() {
        let table = TableName::parse("t").expect("valid");
        for state in [
            RegionState::Open,
            RegionState::Splitting,
            RegionState::Split {
                daughters: ("a".into(), "b".into()),
            },
            RegionState::Merged { into: "m".into() },
        ] {
            let record = RegionRecord::new(
                table.clone(),
                42,
                Bytes::from_static(b"a\x00"),
                Bytes::from_static(b"z"),
                state,
            );
            assert_eq!(
                decode_region(&encode_region(&record)).expect("valid"),
                record
            );
        }
    }
}
