//! The cell block layout, byte for byte: a cell written out by hand from the drawing in
//! `docs/format.md` ("Cell blocks"), which is HBase's `KeyValueCodec` layout, and what
//! the reader says about blocks that break it.

use basalt_proto::cellblock::{self, CellBlockError};
use basalt_types::{Cell, CellType};
use bytes::Bytes;

/// `row1/cf:q`, timestamp 0x0102030405060708, Put, value `v1`: HBase's bytes.
const PLAIN: &[u8] = &[
    0x00, 0x00, 0x00, 0x1d, // cell_len 29 = 8 + key_len + value_len
    0x00, 0x00, 0x00, 0x13, // key_len 19 = 12 + row 4 + family 2 + qualifier 1
    0x00, 0x00, 0x00, 0x02, // value_len 2
    0x00, 0x04, b'r', b'o', b'w', b'1', // row_len, row
    0x02, b'c', b'f', // family_len, family
    b'q', // qualifier (its length is what the key has left)
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, // timestamp
    0x04, // type: Put
    b'v', b'1', // value
];

fn plain() -> Cell {
    Cell::put("row1", "cf", "q", 0x0102_0304_0506_0708, "v1")
}

#[test]
fn a_plain_cell_is_hbase_keyvalue_bytes() {
    let block = cellblock::encode(&[plain()]).expect("fits");
    assert_eq!(&block[..], PLAIN);
    assert_eq!(cellblock::decode(&block).expect("valid"), vec![plain()]);
}

#[test]
fn ttl_and_sequence_id_travel_as_tags() {
    let cell = plain().with_ttl_ms(Some(60_000)).with_seq(9);
    let mut expected = PLAIN.to_vec();
    expected[3] = 0x35; // cell_len 53 = 29 + tags_len field 2 + tags 22
    expected.extend_from_slice(&[
        0x00, 0x16, // tags_len 22: two tags of 11 bytes
        0x00, 0x09, 0x08, 0, 0, 0, 0, 0, 0, 0xea, 0x60, // TTL tag (type 8): 60,000 ms
        0x00, 0x09, 0x42, 0, 0, 0, 0, 0, 0, 0, 0x09, // sequence id tag (type 66): 9
    ]);
    let block = cellblock::encode(std::slice::from_ref(&cell)).expect("fits");
    assert_eq!(&block[..], &expected[..]);
    assert_eq!(cellblock::decode(&block).expect("valid"), vec![cell]);
}

#[test]
fn cells_follow_one_another_and_keep_their_types() {
    let cells = vec![
        plain(),
        Cell::marker("row1", "cf", "", 7, CellType::DeleteFamily).with_seq(3),
        Cell::put("", "", "", i64::MIN, ""),
    ];
    let block = cellblock::encode(&cells).expect("fits");
    assert_eq!(&block[..PLAIN.len()], PLAIN);
    assert_eq!(cellblock::decode(&block).expect("valid"), cells);
    assert_eq!(cellblock::decode(&Bytes::new()).expect("valid"), vec![]);
}

#[test]
fn tags_of_other_types_are_skipped() {
    let mut bytes = PLAIN.to_vec();
    bytes[3] = 0x1d + 2 + 5;
    // tags_len 5: one ACL tag (type 1) holding two bytes.
    bytes.extend_from_slice(&[0x00, 0x05, 0x00, 0x03, 0x01, 0xaa, 0xbb]);
    let cells = cellblock::decode(&Bytes::from(bytes)).expect("valid");
    assert_eq!(cells, vec![plain()]);
}

fn damage(bytes: Vec<u8>) -> (usize, String) {
    match cellblock::decode(&Bytes::from(bytes)) {
        Err(CellBlockError::Damaged { offset, reason, .. }) => (offset, reason),
        other => panic!("not refused as damaged: {other:?}"),
    }
}

#[test]
fn a_damaged_block_names_the_offset_and_the_cause() {
    let mut two = PLAIN.to_vec();
    two.extend_from_slice(PLAIN);
    let at = PLAIN.len();

    let (offset, reason) = damage(two[..two.len() - 1].to_vec());
    assert_eq!(
        (offset, reason.as_str()),
        (at + 4, "the cell needs 29 bytes, 28 left in the block")
    );

    let mut bad_type = two.clone();
    bad_type[at + 30] = 5;
    assert_eq!(
        damage(bad_type),
        (at + 30, "5 is not a cell type".to_string())
    );

    let mut long_key = two.clone();
    long_key[at + 7] = 0x1c;
    let (offset, reason) = damage(long_key);
    assert_eq!(offset, at + 4);
    assert!(
        reason.contains("key length 28 and value length 2"),
        "{reason}"
    );

    let mut long_row = two.clone();
    long_row[at + 13] = 0x10;
    let (offset, reason) = damage(long_row);
    assert_eq!(offset, at + 31, "{reason}");
    assert_eq!(reason, "the family needs 4 bytes, 0 left in the key");

    let mut short_key = two.clone();
    short_key[at + 7] = 0x0a;
    let (offset, reason) = damage(short_key);
    assert_eq!(offset, at + 12, "{reason}");
    assert!(reason.contains("key length 10 is shorter"), "{reason}");

    let mut huge_row = two.clone();
    huge_row[at + 12] = 0x80;
    assert_eq!(damage(huge_row).0, at + 12);

    let mut short_tags = PLAIN.to_vec();
    short_tags[3] = 0x1d + 1;
    short_tags.push(0x00);
    let (offset, reason) = damage(short_tags);
    assert_eq!(offset, 33, "{reason}");
    assert!(reason.contains("tags length"), "{reason}");

    let mut bad_ttl = PLAIN.to_vec();
    bad_ttl[3] = 0x1d + 2 + 4;
    bad_ttl.extend_from_slice(&[0x00, 0x04, 0x00, 0x02, 0x08, 0x01]);
    let (offset, reason) = damage(bad_ttl);
    assert_eq!(offset, 35, "{reason}");
    assert!(reason.contains("TTL tag holds 1 bytes, not 8"), "{reason}");
}

#[test]
fn a_cell_beyond_the_layout_is_refused_by_name() {
    let row = Bytes::from(vec![b'r'; cellblock::ROW_MAX_BYTES + 1]);
    let family = Bytes::from(vec![b'f'; cellblock::FAMILY_MAX_BYTES + 1]);
    for (cell, what) in [
        (Cell::put(row, "f", "q", 1, "v"), "row"),
        (Cell::put("r", family, "q", 1, "v"), "family"),
    ] {
        assert!(!cellblock::fits(&cell));
        match cellblock::encode(&[plain(), cell]) {
            Err(CellBlockError::TooLarge { cell: 1, reason }) => {
                assert!(reason.contains(what), "{reason}")
            }
            other => panic!("not refused: {other:?}"),
        }
    }
    let longest = Cell::put(
        Bytes::from(vec![b'r'; cellblock::ROW_MAX_BYTES]),
        Bytes::from(vec![b'f'; cellblock::FAMILY_MAX_BYTES]),
        "q",
        1,
        "v",
    );
    let block = cellblock::encode(std::slice::from_ref(&longest)).expect("fits");
    assert_eq!(cellblock::decode(&block).expect("valid"), vec![longest]);
}
