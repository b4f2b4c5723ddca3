//! Filter strings are bytes, as in HBase: `ParseFilter.parseFilterString(byte[])` takes the
//! string as a byte array (HBase's shell passes a Ruby string's `to_java_bytes`, Thrift's
//! `TScan.filterString` is `Text`, i.e. `binary`), and a quoted argument keeps every byte.
//! `ParseFilter.removeQuotesFromByteArray` only drops the outer quotes and halves doubled
//! ones, so HBase's own dialect reads no `\xNN` escapes: `'\x82'` stays four bytes.

use basalt_filter::{parse, parse_extended, to_language};
use basalt_types::filter_spec::{Comparator, CompareSpec};
use basalt_types::{CompareOp, FilterSpec};
use bytes::Bytes;

fn value_equal(b: &'static [u8]) -> FilterSpec {
    FilterSpec::Value(CompareSpec {
        op: CompareOp::Equal,
        comparator: Comparator::Binary(Bytes::from_static(b)),
    })
}

#[test]
fn a_quoted_argument_keeps_bytes_that_are_not_utf8() {
    let spec = parse(b"ValueFilter(=, 'binary:\x82\xff')").expect("non-UTF-8 bytes parse");
    assert_eq!(spec, value_equal(b"\x82\xff"));
    let spec =
        parse(b"PrefixFilter('\x00\x82') AND ValueFilter(!=, 'binary:\xc3')").expect("parses");
    match spec {
        FilterSpec::List { filters, .. } => {
            assert_eq!(
                filters[0],
                FilterSpec::Prefix(Bytes::from_static(b"\x00\x82"))
            );
        }
        other => panic!("expected a list, got {other:?}"),
    }
}

#[test]
fn hbase_dialect_reads_backslash_x_literally_and_extended_reads_it_as_a_byte() {
    assert_eq!(
        parse(r"ValueFilter(=, 'binary:\x82')").expect("parses"),
        value_equal(br"\x82")
    );
    assert_eq!(
        parse_extended(r"ValueFilter(=, 'binary:\x82')").expect("parses"),
        value_equal(b"\x82")
    );
}

#[test]
fn a_byte_that_is_not_utf8_outside_quotes_is_an_error_naming_it_and_its_position() {
    let err = parse(b"ValueFilter(=, 'binary:a') \x82ND PageFilter(1)").expect_err("must fail");
    assert_eq!(err.position, 27);
    assert!(err.message.contains("0x82"), "{err}");
    assert!(err.message.contains("quoted"), "{err}");
}

#[test]
fn substring_and_regex_values_must_still_be_utf8_text() {
    // HBase decodes them as UTF-8 `String`s (`new String(bytes, UTF_8)`), turning a stray
    // byte into U+FFFD that can never match; Basalt says so instead.
    let err = parse(b"ValueFilter(=, 'substring:\x82')").expect_err("must fail");
    assert!(err.message.contains("not UTF-8"), "{err}");
}

#[test]
fn hbase_printer_declines_bytes_it_cannot_spell_as_text() {
    assert_eq!(to_language(&value_equal(b"\x82")), None);
}
