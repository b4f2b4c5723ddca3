#!/usr/bin/env bash
# The cost of security on throughput (figures, not a test): YCSB C (reads) and A (half
# updates) through `basalt pe --connect` against standalone in four set-ups, in one run:
#
#   plain     no authentication, plaintext (the reference)
#   acl       --auth: every call authenticated (a password, cached) and checked against
#             the grants, as user bob holding RW on the table (not a superuser, so each
#             call walks the grants)
#   tls       TLS on the listener (ECDSA P-256 certificate), no authentication
#   tls+acl   both
#
# Medians of three runs per set-up and command, and each median's ratio to plain's.
# BENCH_ROWS (20000) operations per client, BENCH_CLIENTS (4) clients. Uses a release
# build (BASALT_BIN: another basalt binary to measure instead).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
rows="${BENCH_ROWS:-20000}"
clients="${BENCH_CLIENTS:-4}"
if [[ -z "${BASALT_BIN:-}" ]]; then
    cargo build --release --quiet -p basalt-cli --bin basalt --manifest-path "$root/Cargo.toml"
fi
bin="${BASALT_BIN:-$root/target/release/basalt}"
work="$(mktemp -d)"
pid=""
cleanup() {
    [[ -n "$pid" ]] && kill "$pid" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# A CA and a server certificate for 127.0.0.1.
(
    cd "$work"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key \
        -out ca.pem -days 2 -subj "/CN=bench CA" 2> /dev/null
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout server.key \
        -out server.csr -subj "/CN=basalt" 2> /dev/null
    printf 'basicConstraints=CA:FALSE\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n' > server.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -set_serial 1 -days 2 \
        -extfile server.ext -out server.pem 2> /dev/null
    printf '[security]\ntls_cert_file = "%s/server.pem"\ntls_key_file = "%s/server.key"\ntls_ca_file = "%s/ca.pem"\n' \
        "$work" "$work" "$work" > tls.toml
)

# run_setup NAME: starts standalone as NAME says, loads the YCSB table, prints the medians.
run_setup() {
    local name="$1" data="$work/data-$1" args=() client=()
    case "$name" in
        *tls*) args+=(--config "$work/tls.toml"); client+=(--tls-ca "$work/ca.pem") ;;
    esac
    mkdir -p "$data"
    if [[ "$name" == *acl* ]]; then
        args+=(--auth)
        echo adminpw | "$bin" user add admin --superuser --data-dir "$data" > /dev/null
        echo bobpw | "$bin" user add bob --data-dir "$data" > /dev/null
    fi
    "$bin" standalone --data-dir "$data" --port 0 --no-thrift --no-rest --no-web --log warn \
        "${args[@]}" > "$work/out" 2> "$work/err" &
    pid=$!
    local addr=""
    for _ in $(seq 1 300); do
        addr="$(sed -n 's/^basalt standalone listening on //p' "$work/out" | head -n 1)"
        [[ -n "$addr" ]] && break
        kill -0 "$pid" 2> /dev/null || { cat "$work/err" >&2; exit 1; }
        sleep 0.1
    done
    local as_admin=() as_bob=()
    if [[ "$name" == *acl* ]]; then
        as_admin=(--user admin); as_bob=(--user bob)
    fi
    BASALT_PASSWORD=adminpw "$bin" pe ycsbLoad --connect "$addr" "${client[@]}" "${as_admin[@]}" \
        --rows "$rows" --clients "$clients" --presplit 4 --seed 7 --json > /dev/null
    if [[ "$name" == *acl* ]]; then
        echo "grant 'bob', 'RW', 'usertable'" | BASALT_PASSWORD=adminpw "$bin" shell --connect "$addr" \
            "${client[@]}" --user admin -n > /dev/null
    fi
    for cmd in ycsbC ycsbA; do
        local runs=()
        for _ in 1 2 3; do
            runs+=("$(BASALT_PASSWORD=bobpw "$bin" pe "$cmd" --connect "$addr" "${client[@]}" "${as_bob[@]}" \
                --rows "$rows" --clients "$clients" --presplit 4 --seed 7 --json \
                | python3 -c 'import json,sys; print(json.load(sys.stdin)["phases"][-1]["ops_per_sec"])')")
        done
        printf '%s %s %s\n' "$name" "$cmd" "$(printf '%s\n' "${runs[@]}" | median)"
    done
    kill "$pid"; wait "$pid" 2> /dev/null || true; pid=""
}

results="$work/results"
for setup in plain acl tls tls+acl; do run_setup "$setup" >> "$results"; done
echo "standalone, $clients clients x $rows operations; ops/s, medians of 3; ratio to plain"
for cmd in ycsbC ycsbA; do
    base="$(awk -v c="$cmd" '$1 == "plain" && $2 == c { print $3 }' "$results")"
    for setup in plain acl tls tls+acl; do
        rate="$(awk -v s="$setup" -v c="$cmd" '$1 == s && $2 == c { print $3 }' "$results")"
        printf '%-8s %-6s %10.0f ops/s   %.2fx\n' "$setup" "$cmd" "$rate" "$(echo "scale=4; $rate / $base" | bc)"
    done
done
