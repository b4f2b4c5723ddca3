"""Scans: ranges, prefixes, columns, filters, timestamps, limits, batching, order."""
import pytest
from Hbase_thrift import TScan


@pytest.fixture
def filled(make_table):
    t = make_table({"cf": dict(max_versions=3), "g": {}})
    with t.batch() as b:
        for i in range(30):
            key = b"%s%02d" % (b"ab"[i % 2:i % 2 + 1], i)
            b.put(key, {b"cf:a": b"%d" % i, b"cf:b": b"x", b"g:z": b"%d" % (i * 2)})
    return t


def keys(scan):
    return [k for k, _ in scan]


def test_full_scan_is_sorted(filled):
    got = keys(filled.scan())
    assert len(got) == 30
    assert got == sorted(got)


def test_start_stop_prefix(filled):
    assert keys(filled.scan(row_start=b"b", row_stop=b"b05")) == [b"b01", b"b03"]
    assert keys(filled.scan(row_start=b"b27")) == [b"b27", b"b29"]
    assert keys(filled.scan(row_prefix=b"a1")) == [b"a10", b"a12", b"a14", b"a16", b"a18"]


def test_columns(filled):
    row = dict(filled.scan(row_prefix=b"a00", columns=[b"cf:a", b"g"]))[b"a00"]
    assert row == {b"cf:a": b"0", b"g:z": b"0"}


def test_filter_strings(filled):
    got = keys(filled.scan(filter=b"SingleColumnValueFilter('cf', 'a', =, 'binary:7')"))
    assert got == [b"b07"]
    got = keys(filled.scan(filter="PrefixFilter('a2')"))
    assert got == [b"a20", b"a22", b"a24", b"a26", b"a28"]
    only_keys = dict(filled.scan(row_prefix=b"a00", filter="KeyOnlyFilter()"))
    assert only_keys[b"a00"][b"cf:a"] == b""


def test_bad_filter_string_is_an_error(filled):
    from Hbase_thrift import IOError as HbaseIOError
    with pytest.raises(HbaseIOError):
        list(filled.scan(filter="NoSuchFilter(1, 2"))


def test_timestamps(make_table):
    t = make_table()
    t.put(b"r1", {b"cf:a": b"old"}, timestamp=100)
    t.put(b"r1", {b"cf:a": b"new"}, timestamp=200)
    t.put(b"r2", {b"cf:a": b"late"}, timestamp=300)
    assert list(t.scan(timestamp=201)) == [(b"r1", {b"cf:a": b"new"})]
    assert list(t.scan(timestamp=200)) == [(b"r1", {b"cf:a": b"old"})]
    got = list(t.scan(include_timestamp=True))
    assert got == [(b"r1", {b"cf:a": (b"new", 200)}), (b"r2", {b"cf:a": (b"late", 300)})]


def test_limits_and_batch_sizes(filled):
    assert len(keys(filled.scan(limit=7))) == 7
    assert len(keys(filled.scan(batch_size=4))) == 30
    assert len(keys(filled.scan(batch_size=4, limit=9))) == 9
    assert len(keys(filled.scan(batch_size=1))) == 30
    # scan_batching caps the cells per result: a 3-cell row comes back in parts.
    parts = list(filled.scan(row_prefix=b"a00", scan_batching=2))
    assert [len(cols) for _, cols in parts] == [2, 1]


def test_sorted_columns(filled):
    (key, cols), = filled.scan(row_prefix=b"a00", sorted_columns=True)
    assert list(cols) == [b"cf:a", b"cf:b", b"g:z"]


def test_reverse(filled):
    got = keys(filled.scan(reverse=True))
    assert got == sorted(got, reverse=True) and len(got) == 30
    got = keys(filled.scan(row_prefix=b"a0", reverse=True))
    assert got == [b"a08", b"a06", b"a04", b"a02", b"a00"]
    got = keys(filled.scan(row_start=b"b05", row_stop=b"b01", reverse=True))
    assert got == [b"b05", b"b03"]


def test_scanners_are_closed(filled, conn):
    scan = filled.scan(batch_size=2)
    next(scan)
    scan.close()
    sid = conn.client.scannerOpenWithScan(filled.name, TScan(), {})
    assert conn.client.scannerGetList(sid, 100)
    conn.client.scannerClose(sid)


def test_filter_string_with_bytes_that_are_not_utf8(make_table):
    # Hbase.thrift types TScan.filterString as Text, i.e. binary, and HBase's ParseFilter
    # keeps every byte of a quoted argument: 'binary:\x82' is the single byte 0x82.
    t = make_table({"cf": {}})
    t.put(b"r1", {b"cf:v": b"\x82"})
    t.put(b"r2", {b"cf:v": b"x"})
    t.put(b"r3", {b"cf:v": b"\x82\xff"})
    assert keys(t.scan(filter=b"ValueFilter(=, 'binary:\x82')")) == [b"r1"]
    got = keys(t.scan(filter=b"ValueFilter(=, 'binaryprefix:\x82')"))
    assert got == [b"r1", b"r3"]
    got = keys(t.scan(filter=b"SingleColumnValueFilter('cf', 'v', =, 'binary:\x82\xff')"))
    assert got == [b"r3"]
