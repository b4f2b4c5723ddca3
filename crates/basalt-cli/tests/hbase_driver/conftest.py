"""hbase-driver (PyPI, a pure-Python native HBase client) against `basalt standalone`:
it finds the server through the ZooKeeper responder at BASALT_ZK and speaks HBase's RPC."""
import os
import uuid

import pytest
from hbasedriver.client.client import Client
from hbasedriver.common.table_name import TableName
from hbasedriver.operations.column_family_builder import ColumnFamilyDescriptorBuilder


@pytest.fixture(scope="session")
def client():
    c = Client({"hbase.zookeeper.quorum": os.environ["BASALT_ZK"]})
    yield c
    c.close()


@pytest.fixture(scope="session")
def admin(client):
    return client.get_admin()


@pytest.fixture
def table(client, admin):
    """A fresh table with families cf and cf2, dropped afterwards."""
    name = TableName.value_of(b"default", f"t_{uuid.uuid4().hex[:12]}".encode())
    admin.create_table(name, [ColumnFamilyDescriptorBuilder(b"cf").build(),
                              ColumnFamilyDescriptorBuilder(b"cf2").build()])
    t = client.get_table(name.ns, name.tb)
    yield t
    t.close()
    admin.disable_table(name)
    admin.delete_table(name)
