//! Decoder robustness (the project has no cargo-fuzz setup): random bytes, and real files
//! with random bytes overwritten or cut, given as the journal or the snapshot, never
//! panic. Opening either succeeds (a torn tail is cut) or fails naming the file; when it
//! succeeds the coordinator answers.

use crate::durable;

use basalt_coord::{CoordError, Coordinator, DurableOptions, LocalCoordinator};
use durable::{journal, put, snapshot};
use proptest::prelude::*;
use std::fs;
use std::path::Path;

fn options() -> DurableOptions {
    DurableOptions {
        journal_records_max: 4,
        ..DurableOptions::default()
    }
}

/// A folder with a snapshot and a journal of a few records; their bytes.
fn real_files() -> (Vec<u8>, Vec<u8>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let coord = LocalCoordinator::open_with(dir.path(), options()).expect("opens");
    for i in 0..7 {
        runtime.block_on(put(&coord, &format!("k{}", i % 3), &"x".repeat(i * 5)));
    }
    drop(coord);
    (
        fs::read(snapshot(dir.path())).expect("snapshot"),
        fs::read(journal(dir.path())).expect("journal"),
    )
}

/// Opens a folder holding `snapshot_bytes` and `journal_bytes`: no panic, and any error
/// names the file it is about.
fn open_never_panics(snapshot_bytes: &[u8], journal_bytes: &[u8]) {
    let dir = tempfile::tempdir().expect("temp dir");
    fs::write(snapshot(dir.path()), snapshot_bytes).expect("write");
    fs::write(journal(dir.path()), journal_bytes).expect("write");
    match LocalCoordinator::open_with(dir.path(), options()) {
        Ok(coord) => {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .build()
                .expect("runtime");
            runtime.block_on(coord.list(b"")).expect("it answers");
        }
        Err(CoordError::Damaged { file, .. }) => {
            let name = Path::new(&file).file_name().expect("a file name");
            assert!(name == "snapshot" || name == "journal", "{file}");
        }
        Err(CoordError::Storage(message)) => {
            assert!(message.contains("newer"), "{message}");
        }
        Err(other) => panic!("unexpected error {other}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_bytes_as_either_file_never_panic(
        random in prop::collection::vec(any::<u8>(), 0..300),
        as_journal in any::<bool>(),
    ) {
        let (snapshot_bytes, journal_bytes) = real_files_cached();
        if as_journal {
            open_never_panics(snapshot_bytes, &random);
        } else {
            open_never_panics(&random, journal_bytes);
        }
    }

    #[test]
    fn real_files_with_bytes_overwritten_or_cut_never_panic(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
        cut in any::<prop::sample::Index>(),
        in_journal in any::<bool>(),
    ) {
        let (snapshot_bytes, journal_bytes) = real_files_cached();
        let mut bytes = if in_journal { journal_bytes.clone() } else { snapshot_bytes.clone() };
        for (at, byte) in &edits {
            let at = at.index(bytes.len());
            bytes[at] = *byte;
        }
        let keep = cut.index(bytes.len() + 1);
        bytes.truncate(keep);
        if in_journal {
            open_never_panics(snapshot_bytes, &bytes);
        } else {
            open_never_panics(&bytes, journal_bytes);
        }
    }
}

fn real_files_cached() -> &'static (Vec<u8>, Vec<u8>) {
    static FILES: std::sync::OnceLock<(Vec<u8>, Vec<u8>)> = std::sync::OnceLock::new();
    let files = FILES.get_or_init(real_files);
    files
}
