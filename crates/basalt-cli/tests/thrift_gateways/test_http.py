"""Thrift1 over HTTP (HBase's hbase.regionserver.thrift.http), driven by thriftpy2's own
HTTP client (`thriftpy2.http.make_client`, THttpClient) with happybase's Hbase IDL."""
import happybase  # noqa: F401  (loads the Hbase_thrift module)
import Hbase_thrift
from thriftpy2.http import make_client

from conftest import HOST, HTTP_PORT, unique


def client():
    return make_client(Hbase_thrift.Hbase, url="http://%s:%d/" % (HOST, HTTP_PORT), timeout=20000)


def test_tables_rows_and_scanners_over_http():
    c = client()
    name = unique("h").encode()
    c.createTable(name, [Hbase_thrift.ColumnDescriptor(name=b"cf:")])
    assert name in c.getTableNames()
    mutations = [Hbase_thrift.Mutation(column=b"cf:a", value=b"1")]
    for row in (b"r1", b"r2", b"r3"):
        c.mutateRow(name, row, mutations, {})
    rows = c.getRow(name, b"r2", {})
    assert rows[0].row == b"r2"
    assert rows[0].columns[b"cf:a"].value == b"1"
    assert c.atomicIncrement(name, b"r1", b"cf:n", 5) == 5
    # A scanner lives across HTTP requests, each of which may use a new connection.
    scanner = c.scannerOpen(name, b"", [b"cf:a"], {})
    first = c.scannerGetList(scanner, 2)
    rest = client().scannerGetList(scanner, 10)
    assert [r.row for r in first + rest] == [b"r1", b"r2", b"r3"]
    c.scannerClose(scanner)
    c.disableTable(name)
    c.deleteTable(name)
    assert name not in c.getTableNames()


def test_errors_travel_as_thrift_exceptions_over_http():
    c = client()
    try:
        c.getRow(b"no_such_table", b"r", {})
    except Hbase_thrift.IOError as e:
        assert "no_such_table" in str(e.message)
    else:
        raise AssertionError("expected an IOError")
