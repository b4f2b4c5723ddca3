//! The wire form's documented layout and its limits on hostile input.

use basalt_filter::wire::{BYTES_LEN_MAX, LIST_LEN_MAX};
use basalt_filter::{decode, encode, DecodeError, DEPTH_MAX};
use basalt_types::FilterSpec;
use bytes::Bytes;

#[test]
fn prefix_filter_has_the_documented_bytes() {
    let spec = FilterSpec::Prefix(Bytes::from_static(b"ab"));
    assert_eq!(encode(&spec), [1, 11, 0, 0, 0, 2, b'a', b'b']);
}

#[test]
fn version_tag_and_trailing_bytes_are_checked() {
    assert_eq!(decode(&[2, 19]), Err(DecodeError::Version(2)));
    assert!(matches!(
        decode(&[1, 200]),
        Err(DecodeError::UnknownTag { tag: 200, .. })
    ));
    assert_eq!(decode(&[1, 19, 0]), Err(DecodeError::Trailing { extra: 1 }));
    assert!(matches!(decode(&[]), Err(DecodeError::Truncated { .. })));
    assert!(matches!(
        decode(&[1, 18, 7]),
        Err(DecodeError::Invalid {
            what: "boolean",
            ..
        })
    ));
}

#[test]
fn lengths_are_checked_before_allocating() {
    // PrefixFilter claiming u32::MAX bytes.
    let huge = [1, 11, 0xff, 0xff, 0xff, 0xff];
    assert!(matches!(decode(&huge), Err(DecodeError::TooLong { .. })));
    // Just under the limit, but the bytes are not there.
    let len = u32::try_from(BYTES_LEN_MAX)
        .expect("limit fits u32")
        .to_be_bytes();
    let short = [1, 11, len[0], len[1], len[2], len[3], b'x'];
    assert!(matches!(decode(&short), Err(DecodeError::Truncated { .. })));
    // A list claiming more filters than bytes left.
    let count = u32::try_from(LIST_LEN_MAX)
        .expect("limit fits u32")
        .to_be_bytes();
    let list = [1, 0, 1, count[0], count[1], count[2], count[3], 19];
    assert!(matches!(decode(&list), Err(DecodeError::Truncated { .. })));
    let too_many = [1, 0, 1, 0xff, 0xff, 0xff, 0xff];
    assert!(matches!(
        decode(&too_many),
        Err(DecodeError::TooLong { .. })
    ));
}

#[test]
fn nesting_is_limited() {
    let mut spec = FilterSpec::FirstKeyOnly;
    for _ in 0..DEPTH_MAX - 1 {
        spec = FilterSpec::Skip(Box::new(spec));
    }
    assert_eq!(decode(&encode(&spec)), Ok(spec.clone()));
    let deeper = FilterSpec::Skip(Box::new(spec));
    assert_eq!(
        decode(&encode(&deeper)),
        Err(DecodeError::TooDeep {
            depth_max: DEPTH_MAX
        })
    );
    // A hostile message of nothing but SKIP tags fails cleanly, without deep recursion.
    let mut skips = vec![1u8];
    skips.extend(std::iter::repeat_n(1u8, 100_000));
    assert!(matches!(decode(&skips), Err(DecodeError::TooDeep { .. })));
    assert!(basalt_filter::build(&deeper).is_err());
}
