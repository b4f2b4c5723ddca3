"""Tables: create with family options, list, describe, regions, enable/disable, delete."""
import pytest
from Hbase_thrift import AlreadyExists, IOError as HbaseIOError, IllegalArgument

from conftest import message


def test_create_with_family_options_and_describe(conn, make_table):
    t = make_table({
        "a": dict(max_versions=7, in_memory=True, bloom_filter_type="ROW",
                  block_cache_enabled=True, time_to_live=3600, compression="GZ"),
        "b": {},
    })
    fams = t.families()
    assert set(fams) == {b"a", b"b"}
    a, b = fams[b"a"], fams[b"b"]
    assert a["name"] == b"a:"
    assert a["max_versions"] == 7
    assert a["in_memory"] is True
    assert a["bloom_filter_type"] == b"ROW"
    assert a["block_cache_enabled"] is True
    assert a["time_to_live"] == 3600
    assert a["compression"] == b"GZ"
    # Omitted options take the Thrift IDL's defaults, not the native ones.
    assert b["max_versions"] == 3
    assert b["block_cache_enabled"] is False
    assert b["bloom_filter_type"] == b"NONE"
    assert b["compression"] == b"NONE"
    assert b["time_to_live"] == 2147483647


def test_tables_enable_disable_compact_delete(conn, make_table):
    t = make_table()
    name = t.name
    assert name in conn.tables()
    assert conn.is_table_enabled(name)
    conn.disable_table(name)
    assert not conn.is_table_enabled(name)
    conn.enable_table(name)
    assert conn.is_table_enabled(name)
    t.put(b"r", {b"cf:q": b"v"})
    conn.compact_table(name)
    conn.compact_table(name, major=True)
    assert t.row(b"r") == {b"cf:q": b"v"}
    conn.delete_table(name, disable=True)
    assert name not in conn.tables()


def test_regions(make_table):
    regions = make_table().regions()
    assert len(regions) == 1
    r = regions[0]
    assert r["start_key"] == b"" and r["end_key"] == b""
    assert r["name"].startswith(b"t_")
    assert r["id"] > 0
    assert r["version"] == 1


def test_create_existing_table_is_already_exists(conn, make_table):
    t = make_table()
    with pytest.raises(AlreadyExists) as e:
        conn.create_table(t.name, {"cf": {}})
    assert "table name already in use" in message(e)


def test_create_without_families_is_illegal_argument(conn):
    with pytest.raises(IllegalArgument):
        conn.client.createTable(b"no_families", [])


def test_delete_missing_table_is_io_error(conn):
    with pytest.raises(HbaseIOError) as e:
        conn.client.deleteTable(b"no_such_table")
    assert "table does not exist" in message(e)
