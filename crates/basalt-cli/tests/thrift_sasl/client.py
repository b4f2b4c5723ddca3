"""One step of crates/basalt-cli/tests/thrift_auth.rs, printed as one line of JSON.

    client.py HOST PORT STEP [USER PASSWORD]

Steps: plain (no SASL), read (row r1 of t1), write (a put of row r9 of t1), roundtrip (a
put of row r7 then its read, on one connection), steal (10,000 scanner ids against
another user's scanner). With BASALT_THRIFT_CA set, over TLS trusting that CA file.
"""

import json
import os
import random
import sys

import happybase
from Hbase_thrift import IllegalArgument, TScan
from basalt_sasl import register_sasl_transport


def connect(host, port, user, password, name="sasl"):
    register_sasl_transport(user, password, name, os.environ.get("BASALT_THRIFT_CA"))
    return happybase.Connection(host, int(port), transport=name, timeout=20000)


def outcome(work):
    try:
        return {"ok": work()}
    except Exception as e:  # the test reads what failed and why
        message = getattr(e, "message", None) or repr(e)
        if isinstance(message, bytes):
            message = message.decode("utf-8", "replace")
        return {"error": type(e).__name__, "message": str(message)}


def plain(host, port):
    conn = happybase.Connection(host, int(port), timeout=20000)
    return outcome(lambda: [t.decode() for t in conn.tables()])


def read(host, port, user, password):
    def work():
        conn = connect(host, port, user, password)
        row = conn.table("t1").row(b"r1")
        return {k.decode(): v.decode() for k, v in row.items()}
    return outcome(work)


def write(host, port, user, password):
    def work():
        conn = connect(host, port, user, password)
        conn.table("t1").put(b"r9", {b"f:q": b"written"})
        return "written"
    return outcome(work)


def roundtrip(host, port, user, password):
    def work():
        # One Connection kept for both calls: dropping it closes the transport.
        conn = connect(host, port, user, password)
        table = conn.table("t1")
        table.put(b"r7", {b"f:q": b"round"})
        row = table.row(b"r7")
        return {k.decode(): v.decode() for k, v in row.items()}
    return outcome(work)


def steal(host, port, owner, owner_pw, thief, thief_pw):
    mine = connect(host, port, owner, owner_pw, "owner")
    theirs = connect(host, port, thief, thief_pw, "thief")
    scan = TScan(batchSize=1)
    sid = mine.client.scannerOpenWithScan(b"t1", scan, {})
    ids = [sid] * 100 + [random.randint(1, 2**31 - 1) for _ in range(9900)]
    denied, leaked = 0, 0
    for i in ids:
        try:
            rows = theirs.client.scannerGetList(i, 1)
            leaked += len(rows)
        except IllegalArgument as e:
            denied += b"scanner ID is invalid" in (e.message or b"")
    own = mine.client.scannerGetList(sid, 10)
    return {"ok": {"attempts": len(ids), "denied": denied, "leaked": leaked,
                   "owner_rows": len(own)}}


if __name__ == "__main__":
    host, port, step, *rest = sys.argv[1:]
    result = {"plain": plain, "read": read, "write": write, "roundtrip": roundtrip,
              "steal": steal}[step](host, port, *rest)
    print(json.dumps(result))
