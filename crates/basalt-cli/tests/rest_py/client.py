"""hbase-rest-py (PyPI hbase-rest-py 1.0.0) against Basalt's REST gateway: one step of
crates/basalt-cli/tests/rest_py.rs, printed as one line of JSON.

    client.py URL STEP [ARGS...]

Credentials come from the environment and are set up as docs/security.md shows:
BASALT_REST_USER and BASALT_REST_PASSWORD go to `client.session.auth` (Basic);
BASALT_REST_TOKEN goes to the headers of the client's `requests.Session` (Bearer), which
every request carries, the scanner's too (hbase-rest-py opens scanners with headers of
its own, not `client.headers`). Over https, BASALT_REST_CA is the CA file the session
verifies the server with.

Steps: create TABLE FAMILY; put TABLE ROW COLUMN VALUE; get TABLE ROW; scan TABLE.
"""

import json
import os
import sys

from hbase.admin import HBaseAdmin
from hbase.get import Get
from hbase.put import Put
from hbase.rest_client import HBaseRESTClient
from hbase.scan import Scan


def client(url):
    c = HBaseRESTClient([url])
    if os.environ.get("BASALT_REST_USER"):
        c.session.auth = (os.environ["BASALT_REST_USER"], os.environ["BASALT_REST_PASSWORD"])
    if os.environ.get("BASALT_REST_CA"):
        c.session.verify = os.environ["BASALT_REST_CA"]
    if os.environ.get("BASALT_REST_TOKEN"):
        c.session.headers["Authorization"] = "Bearer " + os.environ["BASALT_REST_TOKEN"]
    return c


def refused(answer):
    """hbase-rest-py answers a failure as a dict with the status and the body."""
    if isinstance(answer, dict) and "status_code" in answer:
        error = answer["error"]
        if isinstance(error, bytes):
            error = error.decode("utf-8", "replace")
        return {"status": answer["status_code"], "error": error}
    return None


def cells(result):
    return {c["column"].decode(): c["$"].decode() for row in result["row"] for c in row["cell"]}


def create(c, table, family):
    answer = HBaseAdmin(c).table_create_or_update(table, [{"name": family}])
    return refused(answer) or {"ok": "created"}


def put(c, table, row, column, value):
    answer = Put(c).put(table, row, {column: value})
    return refused(answer) or {"ok": "put"}


def get(c, table, row):
    answer = Get(c).get(table, row)
    return refused(answer) or {"ok": cells(answer)}


def scan(c, table):
    scanner = Scan(c)
    first = scanner.scan(table)
    if refused(first):
        return refused(first)
    rows = []
    more, batch = first
    while more:
        rows.extend(r["key"].decode() for r in batch["row"])
        more, batch = scanner.scan(table)
    return {"ok": rows}


if __name__ == "__main__":
    url, step, *args = sys.argv[1:]
    steps = {"create": create, "put": put, "get": get, "scan": scan}
    print(json.dumps(steps[step](client(url), *args)))
