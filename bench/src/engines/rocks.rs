//! RocksDB (the `rocksdb` crate) with Basalt's settings: block size, LRU block cache,
//! 10-bit bloom filters, the memtable size, the compression and key layout of `Settings`.

use super::{cell_key, row_bounds, Engine, Record, Result, RowCounter, Settings};
use rocksdb::{
    BlockBasedOptions, Cache, IngestExternalFileOptions, IteratorMode, Options, ReadOptions,
    SstFileWriter, WriteBatch, WriteOptions, DB,
};
use std::path::{Path, PathBuf};

pub struct Rocks {
    db: DB,
    options: Options,
    dir: PathBuf,
    plain: WriteOptions,
    synced: WriteOptions,
    configuration: String,
}

fn err(e: rocksdb::Error) -> String {
    e.to_string()
}

impl Rocks {
    pub fn open(dir: &Path, s: Settings) -> Result<Self> {
        let mut table = BlockBasedOptions::default();
        table.set_block_size(s.block_bytes as usize);
        table.set_block_cache(&Cache::new_lru_cache(s.cache_bytes as usize));
        table.set_bloom_filter(10.0, false);
        table.set_block_restart_interval(s.keys.restart_interval());
        let mut options = Options::default();
        options.create_if_missing(true);
        options.set_block_based_table_factory(&table);
        options.set_compression_type(if s.lz4 {
            rocksdb::DBCompressionType::Lz4
        } else {
            rocksdb::DBCompressionType::None
        });
        options.set_write_buffer_size(s.memtable_bytes as usize);
        options.increase_parallelism(2);
        let db = DB::open(&options, dir).map_err(err)?;
        let configuration = format!(
            "{}, 10-bit bloom filter (whole key), block restart interval {}, durable = sync=true (fdatasync of the log)",
            s.describe(),
            s.keys.restart_interval()
        );
        let dir = dir.to_path_buf();
        let mut synced = WriteOptions::default();
        synced.set_sync(true);
        Ok(Self {
            db,
            options,
            dir,
            plain: WriteOptions::default(),
            synced,
            configuration,
        })
    }

    fn options(&self, durable: bool) -> &WriteOptions {
        if durable {
            &self.synced
        } else {
            &self.plain
        }
    }
}

impl Engine for Rocks {
    fn configuration(&self) -> String {
        self.configuration.clone()
    }

    fn name(&self) -> &'static str {
        "RocksDB"
    }

    fn insert(&self, row: &[u8], values: &[Vec<u8>], durable: bool) -> Result<()> {
        let mut batch = WriteBatch::default();
        for (i, v) in values.iter().enumerate() {
            batch.put(cell_key(row, i), v);
        }
        self.db.write_opt(batch, self.options(durable)).map_err(err)
    }

    fn update(&self, row: &[u8], field: usize, value: &[u8], durable: bool) -> Result<()> {
        self.db
            .put_opt(cell_key(row, field), value, self.options(durable))
            .map_err(err)
    }

    fn read(&self, row: &[u8]) -> Result<usize> {
        let (lo, hi) = row_bounds(row);
        let mut options = ReadOptions::default();
        options.set_iterate_upper_bound(hi);
        let mut bytes = 0;
        for item in self.db.iterator_opt(IteratorMode::From(&lo, rocksdb::Direction::Forward), options) {
            let (_, v) = item.map_err(err)?;
            bytes += v.len();
        }
        Ok(bytes)
    }

    fn scan(&self, start: &[u8], rows: usize) -> Result<usize> {
        let mut counter = RowCounter::new();
        for item in self.db.iterator(IteratorMode::From(start, rocksdb::Direction::Forward)) {
            let (k, _) = item.map_err(err)?;
            if !counter.see(&k, rows) {
                break;
            }
        }
        Ok(counter.rows)
    }

    fn full_scan(&self) -> Result<u64> {
        let mut bytes = 0u64;
        for item in self.db.iterator(IteratorMode::Start) {
            let (k, v) = item.map_err(err)?;
            bytes += (k.len() + v.len()) as u64;
        }
        Ok(bytes)
    }

    fn flush(&self) -> Result<()> {
        self.db.flush().map_err(err)
    }

    /// `SstFileWriter` with the database's options, then `ingest_external_file` (moved).
    fn bulk_load(&self, records: &mut dyn Iterator<Item = Record>) -> Result<()> {
        let path = self.dir.join("bulk-load.sst");
        let mut writer = SstFileWriter::create(&self.options);
        writer.open(&path).map_err(err)?;
        for (row, values) in records {
            for (i, v) in values.iter().enumerate() {
                writer.put(cell_key(&row, i), v).map_err(err)?;
            }
        }
        writer.finish().map_err(err)?;
        let mut ingest = IngestExternalFileOptions::default();
        ingest.set_move_files(true);
        self.db.ingest_external_file_opts(&ingest, vec![&path]).map_err(err)
    }
}
