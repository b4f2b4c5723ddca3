"""hbase-driver against a cluster: regions on two region servers, each serving its own
over HBase's native RPC; a moved region is refused by its old server and found on its new
one once the client reads hbase:meta again."""
import os
import subprocess
import uuid

import pytest
from hbasedriver.common.table_name import TableName
from hbasedriver.operations.column_family_builder import ColumnFamilyDescriptorBuilder
from hbasedriver.operations.get import Get
from hbasedriver.operations.put import Put
from hbasedriver.operations.scan import Scan

SPLITS = [b"g", b"n", b"t"]


@pytest.fixture
def split_table(client, admin):
    name = TableName.value_of(b"default", f"c_{uuid.uuid4().hex[:12]}".encode())
    admin.create_table(name, [ColumnFamilyDescriptorBuilder(b"cf").build()], split_keys=SPLITS)
    t = client.get_table(name.ns, name.tb)
    yield name, t
    t.close()
    admin.disable_table(name)
    admin.delete_table(name)


def rows():
    return [f"{c}{i:02d}".encode() for c in "adhmpsuz" for i in range(5)]


def keys(table, scan):
    with table.scan(scan) as scanner:
        return [row.rowkey for row in scanner]


def region_of(table, row):
    table.invalidate_cache()
    return table.locate_target_region(row)


def shell(script):
    out = subprocess.run([os.environ["BASALT_BIN"], "shell", "--connect", os.environ["BASALT_MASTER"]],
                         input=script.encode(), capture_output=True, timeout=60)
    assert out.returncode == 0, out.stdout.decode() + out.stderr.decode()
    return out.stdout.decode()


def test_regions_are_served_by_both_region_servers_and_a_scan_crosses_them(split_table):
    _, t = split_table
    for r in rows():
        t.put(Put(r).add_column(b"cf", b"q", r + b"-v"))
    for r in rows():
        assert t.get(Get(r)).get(b"cf", b"q") == r + b"-v"
    servers = {(region_of(t, k).host, region_of(t, k).port) for k in [b"a", b"h", b"p", b"u"]}
    assert len(servers) == 2, f"four regions spread over two servers: {servers}"
    # Each region's range scanned on its own server. (hbase-driver does not go on to the
    # next region when a scan reaches a region's end: it looks up the region of the last
    # row it got, finds the same one and stops, against HBase as here. Nor does it find a
    # region from a row at or just after its start key, since it looks meta up from
    # "table,row," (HBase's client appends ",99999999999999"): each range starts at
    # start key + "0", past "," in byte order.)
    scanned = []
    for start, end in zip([b""] + [k + b"0" for k in SPLITS], SPLITS + [b""]):
        scan = Scan().with_start_row(start)
        if end:
            scan = scan.with_end_row(end, inclusive=False)
        scanned += keys(t, scan)
    assert scanned == sorted(rows())
    backwards = Scan().with_start_row(b"s99").with_end_row(b"n", inclusive=True)
    backwards.setReversed(True)
    assert keys(t, backwards) == sorted((r for r in rows() if b"n" <= r <= b"s99"), reverse=True)


def test_a_moved_region_is_refused_by_its_old_server_and_found_on_its_new_one(split_table):
    _, t = split_table
    t.put(Put(b"p01").add_column(b"cf", b"q", b"before"))
    region = region_of(t, b"p01")
    # The other server, by its host (each region server has its own 127.0.0.x).
    names = os.environ["BASALT_SERVERS"].split()
    target = next(n for n in names if n.split(",")[0].encode() != region.host)
    shell(f"move '{region.region_encoded.decode()}', '{target}'\n")
    # The client still holds the old location: the old server refuses, as HBase's does.
    with pytest.raises(Exception) as refused:
        t.put(Put(b"p02").add_column(b"cf", b"q", b"stale"))
    assert "NotServingRegionException" in str(refused.value), str(refused.value)
    # Read meta again (what hbase-driver's user does after NotServingRegion): the new server.
    moved = region_of(t, b"p01")
    assert moved.host == target.split(",")[0].encode()
    t.put(Put(b"p02").add_column(b"cf", b"q", b"after"))
    assert t.get(Get(b"p01")).get(b"cf", b"q") == b"before"
    assert t.get(Get(b"p02")).get(b"cf", b"q") == b"after"
