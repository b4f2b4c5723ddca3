"""A connection pool hammered from 10 threads, and the error paths."""
import threading

import pytest
from Hbase_thrift import IllegalArgument, IOError as HbaseIOError, TScan

from conftest import connect, message, pool


def test_pool_from_ten_threads(make_table):
    t = make_table()
    name = t.name
    p = pool(5)
    errors = []

    def work(n):
        try:
            for i in range(40):
                with p.connection() as c:
                    table = c.table(name)
                    key = b"t%02d-%03d" % (n, i)
                    table.put(key, {b"cf:q": key})
                    assert table.row(key) == {b"cf:q": key}
                    table.counter_inc(b"counter", b"cf:n")
                    if i % 10 == 0:
                        assert len(list(table.scan(row_prefix=b"t%02d-" % n))) == i + 1
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(10)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
    assert t.counter_get(b"counter", b"cf:n") == 400
    assert len(list(t.scan(row_prefix=b"t"))) == 400


def test_missing_table(conn):
    t = conn.table("no_such_table")
    with pytest.raises(HbaseIOError) as e:
        t.row(b"r")
    assert "TableNotFoundException" in message(e)
    with pytest.raises(HbaseIOError):
        t.put(b"r", {b"cf:a": b"1"})
    with pytest.raises(HbaseIOError):
        list(t.scan())


def test_bad_columns(make_table):
    t = make_table()
    with pytest.raises(HbaseIOError) as e:
        t.put(b"r", {b"nope:a": b"1"})
    assert "NoSuchColumnFamily" in message(e)
    # A put needs family:qualifier.
    with pytest.raises(IllegalArgument) as e:
        t.put(b"r", {b"cf": b"1"})
    assert "Invalid famAndQf provided." in message(e)
    assert t.row(b"r") == {}


def test_bad_scanner_ids(conn, make_table):
    t = make_table()
    for call in (lambda: conn.client.scannerGetList(123456789, 10),
                 lambda: conn.client.scannerGet(-1),
                 lambda: conn.client.scannerClose(42)):
        with pytest.raises(IllegalArgument) as e:
            call()
        assert "scanner ID is invalid" in message(e)
    # A scanner is usable only on the connection that opened it.
    sid = conn.client.scannerOpenWithScan(t.name, TScan(), {})
    other = connect()
    try:
        with pytest.raises(IllegalArgument):
            other.client.scannerGetList(sid, 1)
    finally:
        other.close()
    assert conn.client.scannerGetList(sid, 1) == []
    conn.client.scannerClose(sid)
    with pytest.raises(IllegalArgument):
        conn.client.scannerClose(sid)
