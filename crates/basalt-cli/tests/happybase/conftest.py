"""Fixtures: a happybase connection to the gateway named by the environment.

BASALT_THRIFT_HOST, BASALT_THRIFT_PORT, BASALT_THRIFT_TRANSPORT (buffered|framed) and
BASALT_THRIFT_PROTOCOL (binary|compact) say where and how to connect; the Rust test
`happybase.rs` starts `basalt standalone` and sets them.
"""
import itertools
import os

import happybase
import pytest

HOST = os.environ.get("BASALT_THRIFT_HOST", "127.0.0.1")
PORT = int(os.environ.get("BASALT_THRIFT_PORT", "9090"))
TRANSPORT = os.environ.get("BASALT_THRIFT_TRANSPORT", "buffered")
PROTOCOL = os.environ.get("BASALT_THRIFT_PROTOCOL", "binary")
_names = itertools.count()


def connect(**kwargs):
    return happybase.Connection(
        HOST, PORT, transport=TRANSPORT, protocol=PROTOCOL, timeout=20000, **kwargs
    )


def pool(size):
    return happybase.ConnectionPool(
        size, host=HOST, port=PORT, transport=TRANSPORT, protocol=PROTOCOL, timeout=20000
    )


def message(excinfo):
    """The message of a raised Thrift exception, as text (happybase leaves it bytes)."""
    m = excinfo.value.message
    return m.decode("utf-8", "replace") if isinstance(m, bytes) else m


@pytest.fixture
def conn():
    c = connect()
    yield c
    c.close()


@pytest.fixture
def make_table(conn):
    """Creates tables with unique names; deletes them after the test."""
    made = []

    def make(families=None):
        name = "t_%d_%d" % (os.getpid(), next(_names))
        conn.create_table(name, families or {"cf": {}, "g": {}})
        made.append(name)
        return conn.table(name)

    yield make
    for name in made:
        if name.encode() in conn.tables():
            conn.delete_table(name, disable=True)
