"""Puts, reads with versions and timestamps, deletes, batches and counters."""
import struct

import pytest


def test_put_row_rows_cells(make_table):
    t = make_table()
    t.put(b"r1", {b"cf:a": b"1", b"cf:b": b"2", b"g:x": b"3"})
    t.put(b"r2", {b"cf:a": b"4"})
    assert t.row(b"r1") == {b"cf:a": b"1", b"cf:b": b"2", b"g:x": b"3"}
    assert t.row(b"r1", columns=[b"cf:a", b"g"]) == {b"cf:a": b"1", b"g:x": b"3"}
    assert t.row(b"missing") == {}
    rows = t.rows([b"r2", b"missing", b"r1"])
    assert [k for k, _ in rows] == [b"r2", b"r1"]
    assert dict(rows)[b"r2"] == {b"cf:a": b"4"}
    assert dict(t.rows([b"r1", b"r2"], columns=[b"cf:b"])) == {b"r1": {b"cf:b": b"2"}}


def test_versions_and_timestamps(make_table):
    t = make_table({"cf": dict(max_versions=5)})
    for ts in (10, 20, 30):
        t.put(b"r", {b"cf:a": b"v%d" % ts}, timestamp=ts)
    assert t.cells(b"r", b"cf:a") == [b"v30", b"v20", b"v10"]
    assert t.cells(b"r", b"cf:a", versions=2) == [b"v30", b"v20"]
    assert t.cells(b"r", b"cf:a", include_timestamp=True) == [
        (b"v30", 30), (b"v20", 20), (b"v10", 10)]
    # A timestamp reads [0, ts): exclusive, as HBase's Thrift server behaves.
    assert t.cells(b"r", b"cf:a", timestamp=30) == [b"v20", b"v10"]
    assert t.row(b"r", timestamp=30) == {b"cf:a": b"v20"}
    assert t.row(b"r", timestamp=31, include_timestamp=True) == {b"cf:a": (b"v30", 30)}
    assert t.row(b"r", timestamp=10) == {}
    assert dict(t.rows([b"r"], timestamp=21)) == {b"r": {b"cf:a": b"v20"}}
    assert t.cells(b"r", b"cf:missing") == []


def test_deletes_of_columns_families_and_rows(make_table):
    t = make_table()
    t.put(b"r", {b"cf:a": b"1", b"cf:b": b"2", b"g:x": b"3"})
    t.delete(b"r", columns=[b"cf:a"])
    assert t.row(b"r") == {b"cf:b": b"2", b"g:x": b"3"}
    t.delete(b"r", columns=[b"g"])  # a family delete
    assert t.row(b"r") == {b"cf:b": b"2"}
    t.delete(b"r")  # the whole row
    assert t.row(b"r") == {}


def test_deletes_with_timestamps(make_table):
    t = make_table({"cf": dict(max_versions=5), "g": {}})
    for ts in (10, 20, 30):
        t.put(b"r", {b"cf:a": b"a%d" % ts, b"g:x": b"x%d" % ts}, timestamp=ts)
    # A column delete at ts removes every version <= ts.
    t.delete(b"r", columns=[b"cf:a"], timestamp=20)
    assert t.cells(b"r", b"cf:a") == [b"a30"]
    t.delete(b"r", columns=[b"g"], timestamp=25)
    assert t.cells(b"r", b"g:x") == [b"x30"]
    t.delete(b"r", timestamp=30)
    assert t.row(b"r") == {}


def test_batches(make_table):
    t = make_table()
    with t.batch() as b:
        for i in range(10):
            b.put(b"row%02d" % i, {b"cf:q": b"%d" % i})
        b.delete(b"row03")
    assert len(list(t.scan())) == 9
    with t.batch(batch_size=3) as b:
        for i in range(10, 20):
            b.put(b"row%02d" % i, {b"cf:q": b"%d" % i})
    assert len(list(t.scan())) == 19
    # A transaction sends nothing when the block fails.
    with pytest.raises(ValueError):
        with t.batch(transaction=True) as b:
            b.put(b"tx", {b"cf:q": b"1"})
            raise ValueError("abort")
    assert t.row(b"tx") == {}
    with t.batch(transaction=True) as b:
        b.put(b"tx", {b"cf:q": b"1"})
    assert t.row(b"tx") == {b"cf:q": b"1"}
    # One batch with both: all puts, then all deletes.
    with t.batch() as b:
        b.delete(b"both", columns=[b"cf:q"])
        b.put(b"both", {b"cf:q": b"kept?"})
    assert t.row(b"both") == {}


def test_put_without_wal(make_table):
    t = make_table()
    t.put(b"r", {b"cf:a": b"1"}, wal=False)
    assert t.row(b"r") == {b"cf:a": b"1"}


def test_counters(make_table):
    t = make_table()
    assert t.counter_get(b"r", b"cf:n") == 0  # an increment by 0 creates the cell
    assert t.row(b"r") == {b"cf:n": struct.pack(">q", 0)}
    assert t.counter_inc(b"r", b"cf:n") == 1
    assert t.counter_inc(b"r", b"cf:n", value=10) == 11
    assert t.counter_dec(b"r", b"cf:n", value=3) == 8
    assert t.counter_dec(b"r", b"cf:n") == 7
    # Another row: increments in one millisecond can carry timestamps past "now", which
    # would mask a put made at "now" (HBase behaves the same).
    t.counter_set(b"r2", b"cf:n", 42)
    assert t.counter_get(b"r2", b"cf:n") == 42
    assert t.counter_inc(b"r2", b"cf:n", value=-50) == -8


def test_counter_get_writes_no_version(make_table):
    """counter_get is an increment by 0. Since HBase 0.98 (HBASE-10252) that answers the
    value and writes nothing; a version written a millisecond ahead would mask a
    counter_set made in the same millisecond (happybase's own test_atomic_counters)."""
    t = make_table({"cf": {"max_versions": 5}})
    t.put(b"r", {b"cf:n": struct.pack(">q", 42)}, timestamp=10)
    assert t.counter_get(b"r", b"cf:n") == 42
    assert t.counter_get(b"r", b"cf:n") == 42
    assert t.cells(b"r", b"cf:n", versions=5, include_timestamp=True) == [
        (struct.pack(">q", 42), 10)
    ]
    for n in range(20):
        t.counter_set(b"r2", b"cf:n", n)
        assert t.counter_get(b"r2", b"cf:n") == n
