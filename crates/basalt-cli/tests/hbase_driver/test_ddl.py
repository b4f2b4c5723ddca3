"""Table and namespace DDL through MasterService, table states through hbase:meta."""
import os
import time
import uuid

import pytest
from hbasedriver.common.table_name import TableName
from hbasedriver.exceptions.RemoteException import TableExistsException
from hbasedriver.operations.column_family_builder import ColumnFamilyDescriptorBuilder
from hbasedriver.operations.get import Get
from hbasedriver.operations.put import Put


# Against a cluster (cluster_hbase_driver.rs) BASALT_SERVERS names its region servers;
# against standalone one server is master and region server on one port.
CLUSTER_SERVERS = os.environ.get("BASALT_SERVERS", "").split()
LIVE_SERVERS = len(CLUSTER_SERVERS) or 1


def unique(prefix):
    return f"{prefix}_{uuid.uuid4().hex[:10]}".encode()


def test_create_describe_list_disable_enable_delete(client, admin):
    name = TableName.value_of(b"default", unique("ddl"))
    assert not admin.table_exists(name)
    builder = ColumnFamilyDescriptorBuilder(b"cf").set_max_versions(3)
    admin.create_table(name, [builder.build()], split_keys=[b"m"])
    assert admin.table_exists(name)
    schema = admin.describe_table(name).table_schema[0]
    assert schema.table_name.qualifier == name.tb
    assert [f.name for f in schema.column_families] == [b"cf"]
    listed = [s.table_name.qualifier for s in admin.list_tables().table_schema]
    assert name.tb in listed
    # Two regions, both open, as hbase:meta tells.
    states = client.get_region_states(name.ns, name.tb)
    assert sorted(states.values()) == ["OPEN", "OPEN"]
    assert admin.is_table_enabled(name)
    admin.disable_table(name)
    assert admin.is_table_disabled(name)
    admin.enable_table(name)
    assert admin.is_table_enabled(name)
    admin.disable_table(name)
    admin.delete_table(name)
    assert not admin.table_exists(name)
    assert client.get_table_state(name.ns, name.tb) is None


def test_creating_an_existing_table_raises_table_exists(admin, table):
    name = TableName.value_of(table.ns, table.tb)
    with pytest.raises(TableExistsException):
        admin.master.create_table(name.ns, name.tb, [ColumnFamilyDescriptorBuilder(b"cf").build()])


def test_namespaces_hold_tables(client, admin):
    ns = unique("ns").decode()
    admin.create_namespace(ns)
    assert ns in admin.list_namespaces()
    name = TableName.value_of(ns.encode(), b"inner")
    admin.create_table(name, [ColumnFamilyDescriptorBuilder(b"cf").build()])
    t = client.get_table(name.ns, name.tb)
    t.put(Put(b"r").add_column(b"cf", b"q", b"v"))
    assert t.get(Get(b"r")).get(b"cf", b"q") == b"v"
    t.close()
    admin.disable_table(name)
    admin.delete_table(name)
    admin.delete_namespace(ns)
    assert ns not in admin.list_namespaces()


def test_snapshots_through_the_master(client, admin):
    name = TableName.value_of(b"default", f"s_{uuid.uuid4().hex[:12]}".encode())
    admin.create_table(name, [ColumnFamilyDescriptorBuilder(b"cf").build()])
    t = client.get_table(name.ns, name.tb)
    t.put(Put(b"r").add_column(b"cf", b"q", b"v"))
    t.close()
    snap = f"snap_{uuid.uuid4().hex[:12]}"
    admin.master.snapshot(name.ns, name.tb, snap)
    deadline = time.monotonic() + 30
    while not admin.master.is_snapshot_done(snap):
        assert time.monotonic() < deadline, "the snapshot never finished"
        time.sleep(0.1)
    listed = [s.name for s in admin.master.list_snapshots().snapshots]
    assert snap in listed
    admin.master.delete_snapshot(snap)
    assert snap not in [s.name for s in admin.master.list_snapshots().snapshots]
    admin.disable_table(name)
    admin.delete_table(name)


def test_cluster_status_and_the_balancer_switch(admin, table):
    status = admin.get_cluster_status()
    assert len(status["live_servers"]) == LIVE_SERVERS
    ports = [s["port"] for s in status["live_servers"]]
    # Standalone: one port serves all; a cluster's master serves no region.
    assert (status["master"]["port"] in ports) == (not CLUSTER_SERVERS)
    previous = admin.master.set_balancer_running(False).prev_balance_value
    assert not admin.master.is_balancer_enabled().enabled
    admin.master.set_balancer_running(previous)


def test_split_then_rows_are_found_in_their_new_regions(client, admin, table):
    # Not a row equal to the split key: hbase-driver looks rows up in hbase:meta from
    # "table,row," (HBase's own client appends ",99999999999999"), which misses a region
    # that starts exactly at the row, against HBase as here.
    for row in (b"a", b"m", b"z"):
        table.put(Put(row).add_column(b"cf", b"q", row))
    name = TableName.value_of(table.ns, table.tb)
    region = client.locate_region(name, b"a")
    admin.split_region(region.region_info, split_key=b"k")
    assert len(client.get_region_states(name.ns, name.tb)) == 2
    fresh = client.get_table(name.ns, name.tb)
    for row in (b"a", b"m", b"z"):
        assert fresh.get(Get(row)).get(b"cf", b"q") == row
    fresh.close()
    assert len(admin.list_region_servers()) == LIVE_SERVERS


def test_truncate_empties_the_table(client, admin, table):
    table.put(Put(b"r").add_column(b"cf", b"q", b"v"))
    admin.truncate_table(TableName.value_of(table.ns, table.tb))
    table.invalidate_cache()
    assert table.get(Get(b"r")) is None
