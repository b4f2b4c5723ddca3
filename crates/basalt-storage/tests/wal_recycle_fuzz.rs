//! Fuzzing the version 3 record decoder through replay: a segment of records naming their
//! segment, followed by what a reused file may hold after them (zeros, an earlier use's
//! records, any bytes), and with any bytes flipped. Replay never panics and never returns
//! an edit that was not written into this segment; with nothing flipped, exactly the
//! written edits come back and a tail of zeros or of an earlier use is no damage.

use crate::wal_support;

use basalt_storage::wal::edit::encode_segment_record;
use basalt_storage::wal::segment::{encode_header, file_name};
use basalt_storage::wal::{replay, RecoveryMode, WalEdit};
use proptest::prelude::*;
use std::path::PathBuf;
use wal_support::{edit, mem_fs};

const ID: u64 = 9;

fn segment_of(id: u64, edits: &[WalEdit]) -> Vec<u8> {
    let mut bytes = encode_header(id).to_vec();
    for e in edits {
        encode_segment_record(e, id, &mut bytes).expect("encodable");
    }
    bytes
}

/// What lies after the new records in a reused file.
#[derive(Debug, Clone)]
enum After {
    Zeros(usize),
    /// An earlier use's records, from byte `skip` of them (the middle of one, maybe).
    Earlier {
        skip: usize,
    },
    Bytes(Vec<u8>),
}

fn after() -> impl Strategy<Value = After> {
    prop_oneof![
        (0usize..600).prop_map(After::Zeros),
        (0usize..400).prop_map(|skip| After::Earlier { skip }),
        proptest::collection::vec(any::<u8>(), 0..300).prop_map(After::Bytes),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn wal_replay_of_a_reused_segment_returns_only_its_own_edits(
        count in 0u64..6,
        tail in after(),
        flips in proptest::collection::vec((any::<prop::sample::Index>(), 0u8..8), 0..3),
    ) {
        let written: Vec<WalEdit> = (1..=count).map(|s| edit("a", s, 1 + s as usize % 2)).collect();
        let mut bytes = segment_of(ID, &written);
        let clean_len = bytes.len();
        let earlier: Vec<WalEdit> = (1..=6).map(|s| edit("earlier", s, 2)).collect();
        match &tail {
            After::Zeros(n) => bytes.extend(std::iter::repeat_n(0u8, *n)),
            After::Earlier { skip } => {
                let old = segment_of(ID - 4, &earlier);
                let from = (clean_len + skip).min(old.len());
                bytes.extend_from_slice(&old[from..]);
            }
            After::Bytes(b) => bytes.extend_from_slice(b),
        }
        for (at, bit) in &flips {
            let i = at.index(bytes.len());
            bytes[i] ^= 1 << bit;
        }
        let (mem, fs) = mem_fs();
        let dir = PathBuf::from("/wal");
        mem.write(&dir.join(file_name(ID)), bytes);
        let mode = RecoveryMode::FailNeedingRegions;
        let replayed = replay(fs.as_ref(), &dir, mode).expect("damage is reported, not an error");
        for e in &replayed.edits {
            prop_assert!(written.contains(e), "an edit never written here: {e:?}");
        }
        let clean_tail = !matches!(tail, After::Bytes(_));
        if flips.is_empty() && clean_tail {
            prop_assert_eq!(&replayed.edits, &written);
            prop_assert!(replayed.damaged.is_empty());
        }
    }
}
