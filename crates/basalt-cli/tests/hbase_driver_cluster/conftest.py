"""hbase-driver against a Basalt cluster: the master's ZooKeeper responder at BASALT_ZK,
the master's gRPC address at BASALT_MASTER (for `basalt shell`, BASALT_BIN), the region
servers' names at BASALT_SERVERS."""
import os

import pytest
from hbasedriver.client.client import Client


@pytest.fixture(scope="session")
def client():
    c = Client({"hbase.zookeeper.quorum": os.environ["BASALT_ZK"]})
    yield c
    c.close()


@pytest.fixture(scope="session")
def admin(client):
    return client.get_admin()
