"""Put, Get, Delete, existence, counters, appends, conditions and row mutations."""
from hbasedriver.operations.append import Append
from hbasedriver.operations.batch import BatchGet, BatchPut
from hbasedriver.operations.delete import Delete
from hbasedriver.operations.get import Get
from hbasedriver.operations.increment import CheckAndPut, Increment
from hbasedriver.operations.put import Put
from hbasedriver.operations.row_mutations import RowMutations


def test_put_get_delete(table):
    assert table.put(Put(b"r1").add_column(b"cf", b"a", b"1").add_column(b"cf2", b"b", b"2"))
    row = table.get(Get(b"r1"))
    assert row.get(b"cf", b"a") == b"1"
    assert row.get(b"cf2", b"b") == b"2"
    only = table.get(Get(b"r1").add_column(b"cf2", b"b"))
    assert only.get(b"cf", b"a") is None and only.get(b"cf2", b"b") == b"2"
    table.delete(Delete(b"r1").add_column(b"cf", b"a"))
    row = table.get(Get(b"r1"))
    assert row.get(b"cf", b"a") is None and row.get(b"cf2", b"b") == b"2"
    table.delete(Delete(b"r1"))
    assert table.get(Get(b"r1")) is None


def test_exists_and_batches(table):
    bp = BatchPut()
    bp.add_puts([Put(f"b{i}".encode()).add_column(b"cf", b"q", f"v{i}".encode()) for i in range(20)])
    assert all(table.batch_put(bp))
    assert table.exists(Get(b"b3"))
    assert not table.exists(Get(b"nope"))
    got = table.batch_get(BatchGet([b"b1", b"b7", b"zz"]))
    assert got[b"b1"].get(b"cf", b"q") == b"v1"
    assert got[b"b7"].get(b"cf", b"q") == b"v7"
    assert got[b"zz"] is None
    with table.batch() as b:
        b.put(b"c1", {b"cf:q": b"x"})
        b.delete(b"b1")
    assert table.get(Get(b"c1")).get(b"cf", b"q") == b"x"
    assert table.get(Get(b"b1")) is None


def test_increments_and_appends(table):
    assert table.increment(Increment(b"n").add_column(b"cf", b"c", 5)) == 5
    assert table.increment(Increment(b"n").add_column(b"cf", b"c", -2)) == 3
    table.put(Put(b"s").add_column(b"cf", b"t", b"ab"))
    row = table.append(Append(b"s").add_column(b"cf", b"t", b"cd"))
    assert row.get(b"cf", b"t") == b"abcd"


def test_check_and_put_and_row_mutations(table):
    cap = CheckAndPut(b"k")
    cap.set_check(b"cf", b"lock", None)
    cap.set_put(Put(b"k").add_column(b"cf", b"lock", b"held"))
    assert table.check_and_put(cap)
    again = CheckAndPut(b"k")
    again.set_check(b"cf", b"lock", None)
    again.set_put(Put(b"k").add_column(b"cf", b"lock", b"stolen"))
    assert not table.check_and_put(again)
    assert table.get(Get(b"k")).get(b"cf", b"lock") == b"held"
    assert table.check_and_delete(b"k", b"cf", b"lock", b"held", Delete(b"k").add_column(b"cf", b"lock"))
    assert table.get(Get(b"k")) is None
    rm = RowMutations(b"m")
    rm.add(Put(b"m").add_column(b"cf", b"a", b"1"))
    rm.add(Put(b"m").add_column(b"cf", b"b", b"2"))
    assert table.mutate_row(rm)
    row = table.get(Get(b"m"))
    assert row.get(b"cf", b"a") == b"1" and row.get(b"cf", b"b") == b"2"


def test_buffered_mutator_writes_on_flush_and_close(client, table):
    with client.get_buffered_mutator(table.ns, table.tb) as mutator:
        for i in range(50):
            mutator.mutate(Put(f"bm{i:02d}".encode()).add_column(b"cf", b"q", b"x"))
        mutator.flush()
        assert table.get(Get(b"bm49")).get(b"cf", b"q") == b"x"
        mutator.mutate(Delete(b"bm00"))
    assert table.get(Get(b"bm00")) is None
