//! A memstore's counted size is the memory it takes. The count decides flushes and the
//! global memstore limit, so a count below the real memory lets memstores outgrow the
//! configuration. Checked against the process's resident memory, grown by the same puts
//! (Linux only: elsewhere the test has nothing to read and passes).

use crate::support;

use basalt_storage::StorageConfig;
use basalt_types::{Durability, Put};
use support::*;

/// Resident bytes of this process, from `/proc/self/statm` (in pages of 4 KiB).
fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

#[test]
fn the_counted_memstore_size_is_the_memory_it_takes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = StorageConfig {
        memstore_flush_size_bytes: u64::MAX,
        global_memstore_limit_bytes: u64::MAX,
        ..StorageConfig::default()
    };
    let engine = open_engine(dir.path(), config);
    let region = open_region(&engine, table(&["f"]));
    let value = vec![b'v'; 100];
    let Some(before) = resident_bytes() else {
        return;
    };
    // YCSB's record shape: 10 fields of 100 bytes; 200,000 cells, about 70 MB.
    for i in 0..20_000u64 {
        let mut put = Put::new(format!("user{:020}", i.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
        for field in 0..10 {
            put = put.add("f", format!("field{field}"), value.clone());
        }
        region
            .put(&put.durability(Durability::SkipWal))
            .expect("put");
    }
    let grown = resident_bytes().expect("read before") - before;
    let counted = region.memstore_size_bytes();
    let ratio = grown as f64 / counted as f64;
    eprintln!("resident memory grew {grown} bytes; the memstore counts {counted} ({ratio:.2}x)");
    assert!(
        (0.75..=1.33).contains(&ratio),
        "resident memory grew {grown} bytes for a memstore counted at {counted} ({ratio:.2}x)"
    );
}
