#!/usr/bin/env bash
# Creates (once) the Python virtual environment the happybase tests and benchmark use,
# with pinned happybase, easybase (a Thrift2 client), thriftpy2, pytest, the native HBase client hbase-driver
# (with its kazoo and protobuf) and the REST client hbase-rest-py (which brings requests). easybase is installed without its dependencies: it
# requires the kerberos package (a C build needing krb5-config) that only its Kerberos
# mode imports; its other needs, thriftpy2 and pure-sasl, are pinned above. Idempotent: a venv that already has the
# pinned packages is left alone. Prints the venv's python on its last line.
#
#   scripts/python-env.sh [VENV_DIR]    (default: target/python-venv)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${1:-${BASALT_PYTHON_VENV:-$root/target/python-venv}}"
pins=(happybase==1.3.0 pure-sasl==0.6.2 thriftpy2==0.7.1 pytest==8.3.5 hbase-driver==1.1.1 kazoo==2.11.0 protobuf==7.36.2 hbase-rest-py==1.0.0)
nodeps=(easybase==2.0.1)
stamp="$venv/.basalt-pins"
want="${pins[*]} ${nodeps[*]}"
if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    echo "$venv/bin/python"
    exit 0
fi
python="${PYTHON:-python3}"
command -v "$python" >/dev/null || { echo "python-env: $python not found" >&2; exit 1; }
mkdir -p "$(dirname "$venv")"
"$python" -m venv "$venv" >&2
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${pins[@]}" >&2
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps "${nodeps[@]}" >&2
"$venv/bin/python" -c 'import happybase, easybase, thriftpy2, pytest, hbasedriver, kazoo, hbase.rest_client' >&2
echo "$want" > "$stamp"
echo "$venv/bin/python"
