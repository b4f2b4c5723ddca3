//! fjall 3 with Basalt's settings: block size, cache, the memtable size, the compression and
//! key layout of `Settings`.

use super::{cell_key, row_bounds, Engine, Record, Result, RowCounter, Settings};
use fjall::config::{BlockSizePolicy, CompressionPolicy, RestartIntervalPolicy};
use fjall::{CompressionType, Database, Keyspace, KeyspaceCreateOptions, PersistMode};
use std::path::Path;

pub struct Fjall {
    db: Database,
    cells: Keyspace,
    configuration: String,
}

fn err(e: fjall::Error) -> String {
    e.to_string()
}

impl Fjall {
    pub fn open(dir: &Path, s: Settings) -> Result<Self> {
        let db = Database::builder(dir)
            .cache_size(s.cache_bytes)
            .open()
            .map_err(err)?;
        let block = s.block_bytes;
        let memtable = s.memtable_bytes;
        let compression = if s.lz4 {
            CompressionType::Lz4
        } else {
            CompressionType::None
        };
        let restart = s.keys.restart_interval() as u8;
        let cells = db
            .keyspace("cells", move || {
                KeyspaceCreateOptions::default()
                    .data_block_size_policy(BlockSizePolicy::all(block))
                    .data_block_compression_policy(CompressionPolicy::all(compression))
                    .data_block_restart_interval_policy(RestartIntervalPolicy::all(restart))
                    .max_memtable_size(memtable)
            })
            .map_err(err)?;
        let configuration = format!(
            "{}, fjall's default bloom filter, block restart interval {restart}, durable = persist(SyncData)",
            s.describe()
        );
        Ok(Self {
            db,
            cells,
            configuration,
        })
    }

    fn persist(&self, durable: bool) -> Result<()> {
        if durable {
            self.db.persist(PersistMode::SyncData).map_err(err)?;
        }
        Ok(())
    }
}

impl Engine for Fjall {
    fn configuration(&self) -> String {
        self.configuration.clone()
    }

    fn name(&self) -> &'static str {
        "fjall"
    }

    fn insert(&self, row: &[u8], values: &[Vec<u8>], durable: bool) -> Result<()> {
        let mut batch = self.db.batch();
        for (i, v) in values.iter().enumerate() {
            batch.insert(&self.cells, cell_key(row, i), v.as_slice());
        }
        batch.commit().map_err(err)?;
        self.persist(durable)
    }

    fn update(&self, row: &[u8], field: usize, value: &[u8], durable: bool) -> Result<()> {
        self.cells
            .insert(cell_key(row, field), value)
            .map_err(err)?;
        self.persist(durable)
    }

    fn read(&self, row: &[u8]) -> Result<usize> {
        let (lo, hi) = row_bounds(row);
        let mut bytes = 0;
        for guard in self.cells.range(lo..hi) {
            let (_, v) = guard.into_inner().map_err(err)?;
            bytes += v.len();
        }
        Ok(bytes)
    }

    fn scan(&self, start: &[u8], rows: usize) -> Result<usize> {
        let mut counter = RowCounter::new();
        for guard in self.cells.range(start.to_vec()..) {
            let (k, _) = guard.into_inner().map_err(err)?;
            if !counter.see(&k, rows) {
                break;
            }
        }
        Ok(counter.rows)
    }

    fn full_scan(&self) -> Result<u64> {
        let mut bytes = 0u64;
        for guard in self.cells.iter() {
            let (k, v) = guard.into_inner().map_err(err)?;
            bytes += (k.len() + v.len()) as u64;
        }
        Ok(bytes)
    }

    fn flush(&self) -> Result<()> {
        self.cells.rotate_memtable_and_wait().map_err(err)
    }

    /// `Keyspace::start_ingestion`: sorted keys written straight into a table file.
    fn bulk_load(&self, records: &mut dyn Iterator<Item = Record>) -> Result<()> {
        let mut ingestion = self.cells.start_ingestion().map_err(err)?;
        for (row, values) in records {
            for (i, v) in values.into_iter().enumerate() {
                ingestion.write(cell_key(&row, i), v).map_err(err)?;
            }
        }
        ingestion.finish().map_err(err)
    }
}
