"""happybase throughput against a running Thrift gateway (see bench-happybase.sh).

Prints ops/s for put, get and scan (rows/s), each also as a ratio of a reference measured
in the same run over the same connection: `tables()`, an empty round trip.
"""
import os
import sys
import time

import happybase

host = os.environ.get("BASALT_THRIFT_HOST", "127.0.0.1")
port = int(os.environ["BASALT_THRIFT_PORT"])
n = int(os.environ.get("BENCH_OPS", "20000"))
transport = os.environ.get("BASALT_THRIFT_TRANSPORT", "buffered")
protocol = os.environ.get("BASALT_THRIFT_PROTOCOL", "binary")

conn = happybase.Connection(host, port, transport=transport, protocol=protocol)
if b"bench" in conn.tables():
    conn.delete_table("bench", disable=True)
conn.create_table("bench", {"cf": {}})
table = conn.table("bench")
value = b"x" * 100


def rate(label, count, seconds, reference=None):
    ops = count / seconds
    ratio = "" if reference is None else "  (%.2f x tables())" % (ops / reference)
    print("%-28s %10.0f ops/s%s" % (label, ops, ratio))
    return ops


start = time.perf_counter()
for _ in range(n // 4):
    conn.tables()
ref = rate("tables() (reference)", n // 4, time.perf_counter() - start)

start = time.perf_counter()
for i in range(n):
    table.put(b"row%08d" % i, {b"cf:q": value})
rate("put (one row per call)", n, time.perf_counter() - start, ref)

start = time.perf_counter()
with table.batch(batch_size=1000) as b:
    for i in range(n):
        b.put(b"row%08d" % i, {b"cf:q": value})
rate("put (batch of 1000)", n, time.perf_counter() - start, ref)

# Without the write-ahead log (SKIP_WAL): the gateway's own cost, without a sync per row.
start = time.perf_counter()
with table.batch(batch_size=1000, wal=False) as b:
    for i in range(n):
        b.put(b"row%08d" % i, {b"cf:q": value})
rate("put (batch of 1000, no WAL)", n, time.perf_counter() - start, ref)

start = time.perf_counter()
for i in range(n):
    table.row(b"row%08d" % ((i * 7919) % n))
rate("get (random row)", n, time.perf_counter() - start, ref)

start = time.perf_counter()
rows = 0
for _ in range(3):
    for _ in table.scan(batch_size=1000):
        rows += 1
rate("scan (rows/s, batch 1000)", rows, time.perf_counter() - start, ref)

conn.delete_table("bench", disable=True)
conn.close()
sys.stdout.flush()
