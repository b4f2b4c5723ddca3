"""Filters in their protobuf form, serialized by hbase-driver, evaluated by Basalt."""
from hbasedriver.filter import (
    BinaryComparator,
    ColumnPrefixFilter,
    CompareOperator,
    FilterList,
    FirstKeyOnlyFilter,
    KeyOnlyFilter,
    MultipleColumnPrefixFilter,
    PageFilter,
    QualifierFilter,
    RowFilter,
    SingleColumnValueFilter,
    ValueFilter,
)
from hbasedriver.operations.put import Put
from hbasedriver.operations.scan import Scan


def rows(table, flt):
    scan = Scan()
    scan.set_filter(flt)
    with table.scan(scan) as scanner:
        return {r.rowkey: dict(r.kv[b"cf"]) for r in scanner}


def fill(table):
    for i in range(6):
        table.put(Put(f"r{i}".encode())
                  .add_column(b"cf", b"a", f"v{i}".encode())
                  .add_column(b"cf", b"b", b"odd" if i % 2 else b"even")
                  .add_column(b"cf", b"c1", b"x"))


def test_compare_filters(table):
    fill(table)
    assert set(rows(table, RowFilter(CompareOperator.LESS, BinaryComparator(b"r2")))) == {b"r0", b"r1"}
    only_v3 = rows(table, ValueFilter(CompareOperator.EQUAL, BinaryComparator(b"v3")))
    assert only_v3 == {b"r3": {b"a": b"v3"}}
    quals = rows(table, QualifierFilter(CompareOperator.EQUAL, BinaryComparator(b"b")))
    assert all(list(cols) == [b"b"] for cols in quals.values()) and len(quals) == 6


def test_single_column_value_and_lists(table):
    fill(table)
    odd = SingleColumnValueFilter(b"cf", b"b", CompareOperator.EQUAL, BinaryComparator(b"odd"))
    assert set(rows(table, odd)) == {b"r1", b"r3", b"r5"}
    both = FilterList(FilterList.Operator.MUST_PASS_ALL, [odd, RowFilter(CompareOperator.GREATER, BinaryComparator(b"r1"))])
    assert set(rows(table, both)) == {b"r3", b"r5"}
    either = FilterList(FilterList.Operator.MUST_PASS_ONE, [
        RowFilter(CompareOperator.EQUAL, BinaryComparator(b"r0")),
        RowFilter(CompareOperator.EQUAL, BinaryComparator(b"r4")),
    ])
    assert set(rows(table, either)) == {b"r0", b"r4"}


def test_column_and_key_filters(table):
    fill(table)
    assert all(list(c) == [b"c1"] for c in rows(table, ColumnPrefixFilter(b"c")).values())
    multi = rows(table, MultipleColumnPrefixFilter([b"a", b"c"]))
    assert all(sorted(c) == [b"a", b"c1"] for c in multi.values())
    assert all(len(c) == 1 for c in rows(table, FirstKeyOnlyFilter()).values())
    assert all(v == b"" for c in rows(table, KeyOnlyFilter()).values() for v in c.values())
    assert len(rows(table, PageFilter(2))) == 2
