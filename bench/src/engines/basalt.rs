//! Basalt's embedded database (the path `basalt standalone` serves): one table, one family
//! `f`, a record = ten cells `f:field<i>`; the same block size, cache and memstore size as
//! the others, their compression and key layout (`Settings`), ROW bloom filters (HBase's
//! default).

use super::{field_name, Engine, KeyLayout, Record, Result, Settings};
use basalt_api::{Connection, PreSplit, Table};
use basalt_db::bulk_load::BulkLoadOptions;
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_types::{
    Compression, DataBlockEncoding, Durability, FamilyDescriptor, Get, Put, Scan, TableDescriptor, TableName,
};
use std::path::Path;
use std::sync::Arc;

pub struct Basalt {
    db: Arc<Database>,
    conn: EmbeddedConnection,
    name: TableName,
    table: Arc<dyn Table>,
    configuration: String,
}

/// `field_name(i)` for the ten YCSB fields, as static strings (no allocation per cell).
const QUALIFIERS: [&str; 10] = [
    "field0", "field1", "field2", "field3", "field4", "field5", "field6", "field7", "field8",
    "field9",
];

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

impl Basalt {
    pub fn open(dir: &Path, s: Settings) -> Result<Self> {
        let encoding = match s.keys {
            KeyLayout::Whole => DataBlockEncoding::None,
            KeyLayout::Prefix => DataBlockEncoding::Prefix,
            KeyLayout::FastDiff => DataBlockEncoding::FastDiff,
        };
        Self::open_with(dir, s, encoding)
    }

    /// As [`Basalt::open`], the family's blocks laid out with `encoding`.
    pub fn open_with(dir: &Path, s: Settings, encoding: DataBlockEncoding) -> Result<Self> {
        let mut config = DbConfig::default();
        config.storage.block_cache_bytes = s.cache_bytes;
        config.storage.memstore_flush_size_bytes = s.memtable_bytes;
        let db = Database::open(dir, config).map_err(err)?;
        let conn = EmbeddedConnection::new(db.clone());
        let name = TableName::parse("usertable").map_err(err)?;
        let mut family = FamilyDescriptor::new("f").map_err(err)?;
        family.block_size_bytes = s.block_bytes;
        family.max_versions = 1;
        family.data_block_encoding = encoding;
        family.compression = if s.lz4 {
            Compression::Lz4
        } else {
            Compression::None
        };
        let configuration = format!(
            "{}, ROW bloom filter, DATA_BLOCK_ENCODING {encoding:?}, durable = SYNC_WAL (fdatasync of the log)",
            s.describe()
        );
        let admin = conn.admin();
        if !admin.table_exists(&name).map_err(err)? {
            admin
                .create_table(&TableDescriptor::new(name.clone(), vec![family]), &PreSplit::None)
                .map_err(err)?;
        }
        let table = conn.table(&name).map_err(err)?;
        Ok(Self {
            db,
            conn,
            name,
            table,
            configuration,
        })
    }
}

fn durability(durable: bool) -> Durability {
    if durable {
        Durability::SyncWal
    } else {
        Durability::AsyncWal
    }
}

impl Engine for Basalt {
    fn configuration(&self) -> String {
        self.configuration.clone()
    }

    fn name(&self) -> &'static str {
        "Basalt"
    }

    fn insert(&self, row: &[u8], values: &[Vec<u8>], durable: bool) -> Result<()> {
        let mut put = Put::new(row.to_vec()).durability(durability(durable));
        for (i, v) in values.iter().enumerate() {
            put = put.add("f", field_name(i), v.clone());
        }
        self.table.put(&put).map_err(err)
    }

    fn update(&self, row: &[u8], field: usize, value: &[u8], durable: bool) -> Result<()> {
        let put = Put::new(row.to_vec())
            .add("f", field_name(field), value.to_vec())
            .durability(durability(durable));
        self.table.put(&put).map_err(err)
    }

    fn read(&self, row: &[u8]) -> Result<usize> {
        let result = self.table.get(&Get::new(row.to_vec())).map_err(err)?;
        Ok(result.cells.iter().map(|c| c.value().len()).sum())
    }

    fn scan(&self, start: &[u8], rows: usize) -> Result<usize> {
        let mut scan = Scan::new().start(start.to_vec());
        scan.limit = Some(rows as u64);
        scan.caching = Some(rows as u32);
        let mut seen = 0;
        for row in self.table.scan(&scan).map_err(err)? {
            row.map_err(err)?;
            seen += 1;
        }
        Ok(seen)
    }

    fn full_scan(&self) -> Result<u64> {
        let mut scan = Scan::new();
        scan.caching = Some(1000);
        let mut bytes = 0u64;
        for row in self.table.scan(&scan).map_err(err)? {
            for cell in row.map_err(err)?.cells {
                bytes += (cell.row().len() + 8 + cell.value().len()) as u64;
            }
        }
        Ok(bytes)
    }

    fn flush(&self) -> Result<()> {
        self.conn.admin().flush(&self.name).map_err(err)
    }

    /// `Database::bulk_loader`: HFiles written per region and adopted at the commit.
    fn bulk_load(&self, records: &mut dyn Iterator<Item = Record>) -> Result<()> {
        let mut loader = self
            .db
            .bulk_loader(&self.name, BulkLoadOptions::default())
            .map_err(err)?;
        for (row, values) in records {
            let mut put = Put::new(row);
            put.cells.reserve(values.len());
            for (i, v) in values.into_iter().enumerate() {
                put = match QUALIFIERS.get(i) {
                    Some(q) => put.add("f", *q, v),
                    None => put.add("f", field_name(i), v),
                };
            }
            loader.add(put).map_err(err)?;
        }
        loader.commit().map(|_| ()).map_err(err)
    }
}

impl Basalt {
    /// Major-compacts the table (every region, waiting for each).
    pub fn major_compact(&self) -> Result<()> {
        self.conn.admin().compact(&self.name, true).map_err(err)
    }
}

impl Drop for Basalt {
    fn drop(&mut self) {
        let _ = self.db.close();
    }
}
