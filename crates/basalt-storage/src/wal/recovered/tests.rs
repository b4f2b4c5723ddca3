use super::*;
use crate::fs::LocalFs;
use basalt_types::{Cell, Nonce};

fn edit(region: &str, seq: u64) -> WalEdit {
    WalEdit {
        region: region.into(),
        seq_id: seq,
        cells: vec![Cell::put("r", "f", "q", seq as i64, "v")],
        nonce: seq.is_multiple_of(2).then_some(Nonce {
            group: 1,
            nonce: seq,
        }),
    }
}

#[test]
fn edits_read_back_with_their_sequence_ids_and_nonces() {
    let dir = tempfile::tempdir().expect("dir");
    let edits = [edit("a", 1), edit("a", 2), edit("a", 7)];
    write(
        &LocalFs,
        dir.path(),
        "h,1,2",
        &edits.iter().collect::<Vec<_>>(),
    )
    .expect("written");
    let back = read(&LocalFs, dir.path(), "h,1,2")
        .expect("read")
        .expect("present");
    assert_eq!(back, edits);
    assert_eq!(read(&LocalFs, dir.path(), "other,1,2").expect("read"), None);
    remove(&LocalFs, dir.path(), "h,1,2").expect("removed");
    assert_eq!(read(&LocalFs, dir.path(), "h,1,2").expect("read"), None);
}

#[test]
fn every_cut_and_flipped_byte_is_damage_never_a_panic() {
    let edits = [edit("a", 1), edit("a", 2)];
    let good = encode(&edits.iter().collect::<Vec<_>>()).expect("encoded");
    let path = Path::new("recovered.edits/x");
    assert_eq!(
        decode(Bytes::from(good.clone()), path).expect("good"),
        edits
    );
    for cut in 0..good.len() {
        assert!(
            decode(Bytes::copy_from_slice(&good[..cut]), path).is_err(),
            "cut at {cut}"
        );
    }
    for i in 0..good.len() {
        let mut bad = good.clone();
        bad[i] ^= 0x10;
        assert!(decode(Bytes::from(bad), path).is_err(), "flipped byte {i}");
    }
}
