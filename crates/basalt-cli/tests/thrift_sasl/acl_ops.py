"""The ACL matrix's operations through Thrift1, for crates/basalt-cli/tests/acl_matrix_gateways.rs.

    acl_ops.py HOST PORT USER:PASSWORD...

Reads lines `USER OP` from standard input; runs OP as USER (happybase's Thrift client
over SASL PLAIN) on the fixture (table ns:t, row r1, families f g h); prints one line of
JSON per line read: {"ok": true} or {"error": class, "message": text}.
"""

import itertools
import json
import sys

import happybase
from Hbase_thrift import ColumnDescriptor, Mutation, TAppend
from basalt_sasl import register_sasl_transport

T = b"ns:t"
fresh = itertools.count()


def scan(c):
    sid = c.scannerOpen(T, b"", [b"f:a"], {})
    try:
        c.scannerGetList(sid, 10)
    finally:
        c.scannerClose(sid)


OPS = {
    "Get": lambda c: c.getRowWithColumns(T, b"r1", [b"f:a"], {}),
    "Scan": scan,
    "Put": lambda c: c.mutateRow(T, b"r2", [Mutation(column=b"f:a", value=b"x")], {}),
    "Delete": lambda c: c.deleteAll(T, b"r2", b"f:a", {}),
    "Increment": lambda c: c.atomicIncrement(T, b"r1", b"f:n", 1),
    "Append": lambda c: c.append(TAppend(table=T, row=b"r2", columns=[b"f:a"], values=[b"y"])),
    "CheckAndMutate": lambda c: c.checkAndPut(
        T, b"r1", b"f:a", b"1", Mutation(column=b"f:a", value=b"1"), {}),
    "CreateTable": lambda c: c.createTable(
        b"ns:made_thrift%d" % next(fresh), [ColumnDescriptor(name=b"f:")]),
    "DeleteTable": lambda c: (c.disableTable(T), c.deleteTable(T)),
    "EnableTable": lambda c: c.enableTable(T),
    "DisableTable": lambda c: c.disableTable(T),
    "IsTableEnabled": lambda c: c.isTableEnabled(T),
    "ListTables": lambda c: c.getTableNames(),
    "DescribeTable": lambda c: c.getColumnDescriptors(T),
    "ListRegions": lambda c: c.getTableRegions(T),
    "Compact": lambda c: c.compact(T),
}


def main():
    host, port = sys.argv[1], int(sys.argv[2])
    passwords = dict(arg.split(":", 1) for arg in sys.argv[3:])
    clients = {}
    for line in sys.stdin:
        user, op = line.split()
        if user not in clients:
            register_sasl_transport(user, passwords[user], "sasl_" + user)
            # The connection is kept: dropping it closes its transport under the client.
            clients[user] = happybase.Connection(
                host, port, transport="sasl_" + user, timeout=20000)
        try:
            OPS[op](clients[user].client)
            answer = {"ok": True}
        except Exception as e:  # the test reads what failed and why
            message = getattr(e, "message", None) or repr(e)
            if isinstance(message, bytes):
                message = message.decode("utf-8", "replace")
            answer = {"error": type(e).__name__, "message": str(message)}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
