"""Fixtures for the Thrift-over-HTTP and Thrift2 gateways of a running `basalt standalone`.

BASALT_THRIFT_HOST names the host; BASALT_THRIFT_HTTP_PORT the Thrift1 gateway serving
HTTP (`--thrift-http`), BASALT_THRIFT2_PORT the Thrift2 gateway (`--thrift2-port`). The
Rust test `thrift_gateways.rs` starts the server and sets them.
"""
import itertools
import os

import pytest

HOST = os.environ.get("BASALT_THRIFT_HOST", "127.0.0.1")
HTTP_PORT = int(os.environ.get("BASALT_THRIFT_HTTP_PORT", "9090"))
THRIFT2_PORT = int(os.environ.get("BASALT_THRIFT2_PORT", "9091"))
_names = itertools.count()


def unique(prefix):
    return "%s_%d_%d" % (prefix, os.getpid(), next(_names))


@pytest.fixture
def easy():
    """An easybase connection (Thrift2, buffered binary: the only mode easybase speaks)."""
    import easybase

    c = easybase.Connection(HOST, THRIFT2_PORT, timeout=20000)
    yield c
    c.close()


@pytest.fixture
def table(easy):
    """A fresh table with families cf and g; deleted after the test."""
    name = unique("e")
    easy.create_table(name, {"cf": {}, "g": {"max_versions": 3}})
    yield easy.table(name)
    if easy.exist_table(name):
        easy.delete_table(name, disable=True)
