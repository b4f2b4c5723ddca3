"""HBase's Thrift2 service (THBaseService) driven by easybase, a Thrift2 client from PyPI,
unchanged. easybase's counter helpers and `families()` call Thrift1 methods (they fail
against HBase's own Thrift2 server too), so counters go through its client's `increment`."""
import easybase  # noqa: F401  (loads the HBase_thrift module)
import pytest
from HBase_thrift import (
    TColumnIncrement,
    TColumnValue,
    TGet,
    TIncrement,
    TAppend,
    TPut,
    TDelete,
    TColumn,
    TRowMutations,
    TMutation,
    TIOError,
    TScan,
)

from conftest import unique


def test_put_get_and_delete(table):
    table.put("r1", {"cf:a": "1", "cf:b": "2"})
    assert table.row("r1") == {"cf:a": "1", "cf:b": "2"}
    assert table.row("r1", columns=["cf:a"]) == {"cf:a": "1"}
    table.delete("r1", columns=["cf:a"])
    assert table.row("r1") == {"cf:b": "2"}
    table.delete("r1")
    assert table.row("r1") == {}


def test_timestamps_and_versions(table):
    table.put("r", {"g:q": "old"}, timestamp=10)
    table.put("r", {"g:q": "new"}, timestamp=20)
    row = table.row("r", include_timestamp=True)
    assert row["g:q"] == [("new", 20)]
    assert table.row("r", timestamp=10) == {"g:q": "old"}
    assert table.row("r", max_versions=2)["g:q"] == [("new", 20), ("old", 10)]
    assert table.row("r", timerange=[0, 15]) == {"g:q": "old"}


def test_batch_puts_multiple_gets_and_scans(table):
    table.puts({"r%02d" % i: {"data": {"cf:n": str(i)}} for i in range(20)})
    rows = dict(table.rows(["r03", "r07", "missing"]))
    assert rows == {"r03": {"cf:n": "3"}, "r07": {"cf:n": "7"}}
    keys = [k for k, _ in table.scan()]
    assert keys == ["r%02d" % i for i in range(20)]
    keys = [k for k, _ in table.scan(row_start="r05", row_stop="r08")]
    assert keys == ["r05", "r06", "r07"]
    keys = [k for k, _ in table.scan(row_start="r05", row_stop="r02", reversed=True)]
    assert keys == ["r05", "r04", "r03"]
    rows = list(table.scan(filter="SingleColumnValueFilter('cf', 'n', =, 'binary:12')"))
    assert rows == [("r12", {"cf:n": "12"})]
    keys = [k for k, _ in table.scan(row_prefix="r1", batch_size=3)]
    assert len(keys) == 10
    assert len(list(table.scan(limit=4))) == 4
    with table.batch() as b:
        b.put("r50", {"cf:n": "50"})
        b.delete("r00")
    assert table.row("r50") == {"cf:n": "50"}
    assert table.row("r00") == {}


def test_check_and_put_increment_append_and_mutate_row(easy, table):
    client = easy.client
    name = table.name.encode() if isinstance(table.name, str) else table.name
    put = TPut(row=b"c", columnValues=[TColumnValue(family=b"cf", qualifier=b"a", value=b"x")])
    assert client.checkAndPut(name, b"c", b"cf", b"a", None, put) is True
    assert client.checkAndPut(name, b"c", b"cf", b"a", None, put) is False
    put2 = TPut(row=b"c", columnValues=[TColumnValue(family=b"cf", qualifier=b"a", value=b"y")])
    assert client.checkAndPut(name, b"c", b"cf", b"a", b"x", put2) is True
    gone = TDelete(row=b"c", columns=[TColumn(family=b"cf", qualifier=b"a")])
    assert client.checkAndDelete(name, b"c", b"cf", b"a", b"x", gone) is False
    assert client.checkAndDelete(name, b"c", b"cf", b"a", b"y", gone) is True
    assert client.exists(name, TGet(row=b"c")) is False

    inc = TIncrement(row=b"n", columns=[TColumnIncrement(family=b"cf", qualifier=b"hits", amount=5)])
    client.increment(name, inc)
    result = client.increment(name, inc)
    assert int.from_bytes(result.columnValues[0].value, "big", signed=True) == 10
    result = client.append(name, TAppend(row=b"n", columns=[
        TColumnValue(family=b"cf", qualifier=b"log", value=b"ab")]))
    result = client.append(name, TAppend(row=b"n", columns=[
        TColumnValue(family=b"cf", qualifier=b"log", value=b"cd")]))
    assert result.columnValues[0].value == b"abcd"

    client.mutateRow(name, TRowMutations(row=b"m", mutations=[
        TMutation(put=TPut(row=b"m", columnValues=[
            TColumnValue(family=b"cf", qualifier=b"a", value=b"1")])),
        TMutation(deleteSingle=TDelete(row=b"m", columns=[TColumn(family=b"g")])),
    ]))
    assert table.row("m") == {"cf:a": "1"}
    assert client.existsAll(name, [TGet(row=b"m"), TGet(row=b"nope")]) == [True, False]
    left = client.deleteMultiple(name, [TDelete(row=b"m"), TDelete(row=b"n")])
    assert left == []
    assert client.getMultiple(name, [TGet(row=b"m")])[0].columnValues == []
    rows = client.getScannerResults(name, TScan(startRow=b""), 5)
    assert [r.row for r in rows] == []


def test_scanners_and_their_errors(easy, table):
    client = easy.client
    table.puts({"s%d" % i: {"data": {"cf:a": "v"}} for i in range(5)})
    name = table.name.encode() if isinstance(table.name, str) else table.name
    scanner = client.openScanner(name, TScan(startRow=b"s1"))
    assert [r.row for r in client.getScannerRows(scanner, 2)] == [b"s1", b"s2"]
    assert [r.row for r in client.getScannerRows(scanner, 10)] == [b"s3", b"s4"]
    client.closeScanner(scanner)
    with pytest.raises(Exception) as raised:
        client.getScannerRows(scanner, 1)
    assert "invalid" in str(raised.value.message)
    with pytest.raises(TIOError):
        client.get(b"no_such_table_here", TGet(row=b"r"))


def test_filter_string_with_bytes_that_are_not_utf8(easy, table):
    # HBase.thrift (Thrift2) types TScan.filterString as binary, and ParseFilter keeps every
    # byte of a quoted argument: 'binary:\x82' is the single byte 0x82.
    client = easy.client
    name = table.name.encode() if isinstance(table.name, str) else table.name
    for row, value in [(b"b1", b"\x82"), (b"b2", b"x"), (b"b3", b"\x82\xff")]:
        cv = TColumnValue(family=b"cf", qualifier=b"v", value=value)
        client.put(name, TPut(row=row, columnValues=[cv]))
    scan = TScan(filterString=b"ValueFilter(=, 'binary:\x82')")
    scanner = client.openScanner(name, scan)
    assert [r.row for r in client.getScannerRows(scanner, 10)] == [b"b1"]
    client.closeScanner(scanner)
    scan = TScan(filterString=b"ValueFilter(=, 'binaryprefix:\x82')")
    assert [r.row for r in client.getScannerResults(name, scan, 10)] == [b"b1", b"b3"]


def test_table_and_namespace_admin(easy):
    name = unique("adm")
    easy.create_table(name, {"cf": {"max_versions": 5}})
    assert easy.exist_table(name)
    assert easy.is_table_enabled(name)
    easy.disable_table(name)
    assert not easy.is_table_enabled(name)
    easy.enable_table(name)
    names = easy.search_table(name, False)
    assert name.encode() in names
    desc = easy.client.getTableDescriptor(easy.get_tablename(name))
    assert [(c.name, c.maxVersions) for c in desc.columns] == [(b"cf", 5)]
    regions = easy.client.getAllRegionLocations(name.encode())
    assert len(regions) == 1
    assert regions[0].serverName.port > 0
    located = easy.client.getRegionLocation(name.encode(), b"any row", False)
    assert located.regionInfo.regionId == regions[0].regionInfo.regionId
    easy.delete_table(name, disable=True)
    assert not easy.exist_table(name)

    ns = unique("ns")
    easy.create_namespace(ns)
    assert ns in [d.name for d in easy.client.listNamespaceDescriptors()]
    assert easy.client.getNamespaceDescriptor(ns).name == ns
    easy.create_table("inns", {"cf": {}}, ns_name=ns)
    assert easy.get_tables_by_namespace(ns) == [b"inns"]
    # easybase's delete_table(disable=True) checks the table without its namespace.
    easy.disable_table("inns", ns_name=ns)
    easy.delete_table("inns", ns_name=ns)
    easy.delete_namespace(ns)
    assert ns not in easy.client.listNamespaces()
