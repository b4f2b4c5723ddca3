#!/usr/bin/env bash
# happybase put / get / scan throughput over loopback against a release `basalt standalone`
# on a temporary data folder. Prints ops/s, each also as a ratio of an empty round trip
# (`tables()`) measured in the same run.
#
#   scripts/bench-happybase.sh            (BENCH_OPS=20000 by default)
#   BASALT_BIN=/path/to/basalt scripts/bench-happybase.sh   (another build, e.g. an earlier one)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
python="$("$root/scripts/python-env.sh" | tail -n 1)"
if [[ -z "${BASALT_BIN:-}" ]]; then
    cargo build --release --quiet -p basalt-cli --bin basalt --manifest-path "$root/Cargo.toml"
fi
bin="${BASALT_BIN:-$root/target/release/basalt}"
data="$(mktemp -d)"
out="$data/stdout"
"$bin" standalone --port 0 --thrift-port 0 --log warn \
    --data-dir "$data/db" > "$out" &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 1 600); do
    grep -q '^basalt standalone listening on ' "$out" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || { echo "basalt exited" >&2; exit 1; }
    sleep 0.1
done
addr="$(sed -n 's/^basalt thrift listening on //p' "$out")"
[[ -n "$addr" ]] || { echo "no thrift address in the output" >&2; exit 1; }
echo "happybase against basalt standalone (thrift on $addr, buffered + binary)"
BASALT_THRIFT_HOST="${addr%:*}" BASALT_THRIFT_PORT="${addr##*:}" "$python" "$root/scripts/bench_happybase.py"
