"""Scans: whole table, ranges, filters, and more rows than one answer holds."""
from hbasedriver.filter.prefix_filter import PrefixFilter
from hbasedriver.operations.put import Put
from hbasedriver.operations.scan import Scan


def keys(table, scan):
    with table.scan(scan) as scanner:
        return [row.rowkey for row in scanner]


def fill(table, n):
    for i in range(n):
        table.put(Put(f"row{i:04d}".encode()).add_column(b"cf", b"q", f"v{i}".encode()))


def test_scan_all_and_ranges(table):
    fill(table, 30)
    assert keys(table, Scan()) == [f"row{i:04d}".encode() for i in range(30)]
    # hbase-driver's end row is inclusive unless asked otherwise.
    inclusive = Scan(start_row=b"row0010", end_row=b"row0012")
    assert keys(table, inclusive) == [b"row0010", b"row0011", b"row0012"]
    exclusive = Scan().with_start_row(b"row0010", inclusive=False).with_end_row(b"row0015", inclusive=False)
    assert keys(table, exclusive) == [f"row{i:04d}".encode() for i in range(11, 15)]


def test_scan_with_a_filter(table):
    fill(table, 30)
    table.put(Put(b"other").add_column(b"cf", b"q", b"x"))
    scan = Scan()
    scan.set_filter(PrefixFilter(b"row002"))
    assert keys(table, scan) == [f"row{i:04d}".encode() for i in range(20, 30)]


def test_a_large_scan_pages_through_many_answers(table):
    fill(table, 600)
    scan = Scan()
    with table.scan(scan) as scanner:
        got = []
        while True:
            batch = scanner.next_batch(100)
            if not batch:
                break
            got.extend(r.rowkey for r in batch)
    assert got == [f"row{i:04d}".encode() for i in range(600)]


def test_scanning_an_empty_table_finds_nothing(table):
    assert keys(table, Scan()) == []


def test_reversed_scan(table):
    fill(table, 12)
    scan = Scan()
    scan.setReversed(True)
    assert keys(table, scan) == [f"row{i:04d}".encode() for i in reversed(range(12))]
