#!/usr/bin/env bash
# Cluster benchmarks (figures, not tests), each against a reference measured in the same run.
#
#   scripts/bench-cluster.sh ycsb      YCSB C and A through `basalt pe --connect` against
#                                      standalone, a cluster of 1 and one of 3 region servers
#                                      (BENCH_STORE=s3 for moto as the store): ops/s and ops per
#                                      region-server CPU-second, median of three runs each.
#   scripts/bench-cluster.sh move      time to move a region holding BENCH_MOVE_MB (64) MiB,
#                                      p50 and p99 over BENCH_MOVES (20) moves.
#   scripts/bench-cluster.sh failover  time from SIGTERM (it resigns) and from SIGKILL (its
#                                      lease must run out) of the active master to the first
#                                      admin call answered by the standby (median of three).
#   scripts/bench-cluster.sh recovery  time from a region server's kill -9 to every one of its
#                                      regions open elsewhere, p50 and max over
#                                      BENCH_KILLS (10) kills, for BENCH_RECOVERY_REGIONS
#                                      ("10 100 1000") regions and BENCH_RECOVERY_MB ("64 256")
#                                      MiB of unflushed edits in its log; and the writes/s of
#                                      4 client threads writing to its regions before and during
#                                      recovery, and of 4 more writing to a table on another
#                                      server kept out of the recovery (BENCH_BYSTANDER_REGIONS,
#                                      4; 0 = none). `recovery BASELINE`: that binary and this build
#                                      by turns per cell (BENCH_ROUNDS, 2), and their ratios;
#                                      servers' logs in BENCH_LOG_DIR.
#   scripts/bench-cluster.sh standalone BASELINE
#                                      this build's standalone against BASELINE (another basalt
#                                      binary, e.g. a release build of an earlier commit): time
#                                      to the ready line (empty folder, and one holding the
#                                      YCSB table) and YCSB C and A, medians of three.
#   scripts/bench-cluster.sh sim [--servers N] [--regions N] [--seed N] [--timeline]
#                                      no processes: the master's real coordination code in the
#                                      deterministic simulation (crates/basalt-sim), 1,000
#                                      region servers and 100,000 regions by default; per phase
#                                      (create, steady, failover, loss of 10% of the servers)
#                                      the simulated time to converge and the coordinator's load.
#
# BENCH_SERVER_LOG: the masters' and region servers' log level (warn; `info` shows where a
# recovery's time goes). BENCH_MASTER_CONFIG: a configuration file for the masters started (for example one with
# `[master] recovery_mode = "split"` to measure log splitting against "direct").
# BENCH_ROWS (20000) operations per client, BENCH_CLIENTS (4) clients. Uses a release build
# (BASALT_BIN: another basalt binary to measure instead, e.g. an earlier build as a baseline).
# Three servers run twice: with the same clients (each server gets a third of the load) and
# with BENCH_CLIENTS per server over the same records and operations (each server as busy
# as the one server was). Per-CPU efficiency compares like with like only in the second:
# a server a third as busy sleeps between requests and pays a wake-up for each.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
what="${1:-ycsb}"
rows="${BENCH_ROWS:-20000}"
clients="${BENCH_CLIENTS:-4}"
if [[ "$what" == sim ]]; then
    shift
    exec cargo run --release --quiet -p basalt-sim --example scale --manifest-path "$root/Cargo.toml" -- "$@"
fi
cargo build --release --quiet -p basalt-cli --bin basalt --manifest-path "$root/Cargo.toml"
bin="${BASALT_BIN:-$root/target/release/basalt}"
work="$(mktemp -d)"
pids=()
cleanup() {
    for p in "${pids[@]:-}"; do [[ -n "$p" ]] && kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    [[ -d "$work/etcd" ]] && bash "$root/scripts/etcd.sh" stop "$work/etcd" >/dev/null 2>&1 || true
    [[ -n "${moto_port:-}" ]] && bash "$root/scripts/moto.sh" stop "$moto_port" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

# Waits for `pattern` in `file` (a process's stdout), prints what follows it.
ready() {
    local file="$1" pattern="$2" pid="$3"
    for _ in $(seq 1 600); do
        if grep -q "$pattern" "$file" 2>/dev/null; then sed -n "s/^$pattern//p" "$file" | head -n 1; return; fi
        kill -0 "$pid" 2>/dev/null || { echo "a process exited early: $file" >&2; cat "$file.err" >&2 || true; exit 1; }
        sleep 0.1
    done
    echo "timed out waiting for $pattern" >&2; exit 1
}

# CPU seconds (user + system) a process has used.
cpu() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.3f", ($14 + $15) / hz }' "/proc/$1/stat"; }

store_flags=()
start_store() {
    if [[ "${BENCH_STORE:-file}" == s3 ]]; then
        if [[ -n "${moto_port:-}" ]]; then
            store_flags=(--store "s3://basalt/bench-$1" --store-endpoint "http://127.0.0.1:$moto_port")
            return
        fi
        moto_port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
        bash "$root/scripts/moto.sh" start "$moto_port" basalt >/dev/null
        export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_REGION=us-east-1
        store_flags=(--store "s3://basalt/bench-$1" --store-endpoint "http://127.0.0.1:$moto_port")
    else
        mkdir -p "$work/store-$1"
        store_flags=(--store "file://$work/store-$1")
    fi
}

etcd_url=""
start_etcd() {
    [[ -n "$etcd_url" ]] && return
    bash "$root/scripts/etcd.sh" install >/dev/null
    local endpoints
    endpoints="$(bash "$root/scripts/etcd.sh" start "$work/etcd" 23000)"
    etcd_url="etcd://$(echo "$endpoints" | sed 's#http://##g')"
}

# Starts a master and N region servers under prefix $2; sets master_addr and rs_pids.
start_cluster() {
    local n="$1" prefix="$2"
    start_etcd
    start_store "$prefix"
    local master_config=()
    [[ -n "${BENCH_MASTER_CONFIG:-}" ]] && master_config=(--config "$BENCH_MASTER_CONFIG")
    "$bin" master --coordinator "$etcd_url" --cluster-prefix "/$prefix/" "${store_flags[@]}" \
        "${master_config[@]}" --port 0 --web-port 0 --log "${BENCH_SERVER_LOG:-warn}" \
        > "$work/$prefix-m.out" 2> "$work/$prefix-m.out.err" &
    pids+=($!); master_pid=$!
    master_addr="$(ready "$work/$prefix-m.out" 'basalt master listening on ' "$master_pid")"
    rs_pids=()
    for i in $(seq 1 "$n"); do
        "$bin" regionserver --coordinator "$etcd_url" --cluster-prefix "/$prefix/" "${store_flags[@]}" \
            --bind "127.0.0.$((i + 1))" --port 0 --web-port 0 --log "${BENCH_SERVER_LOG:-warn}" \
            > "$work/$prefix-rs$i.out" 2> "$work/$prefix-rs$i.out.err" &
        pids+=($!); rs_pids+=($!)
        ready "$work/$prefix-rs$i.out" 'basalt regionserver ' "$!" > /dev/null
    done
}

start_standalone() {
    "${2:-$bin}" standalone --data-dir "$work/standalone" --port 0 --no-thrift --no-rest --no-web --log warn \
        > "$work/sa.out" 2> "$work/sa.out.err" &
    pids+=($!); rs_pids=($!)
    master_addr="$(ready "$work/sa.out" 'basalt standalone listening on ' "$!")"
}

# Milliseconds from starting `basalt standalone` (binary $1) on folder $2 to its ready line
# (read from a pipe as it is written: no polling).
ready_ms() {
    local started ended line
    rm -f "$work/rt.fifo"; mkfifo "$work/rt.fifo"
    started="$(date +%s%N)"
    "$1" standalone --data-dir "$2" --port 0 --no-thrift --no-rest --no-web --log warn \
        > "$work/rt.fifo" 2> "$work/rt.out.err" &
    local pid=$!
    exec 7< "$work/rt.fifo"
    while IFS= read -r line <&7; do
        [[ "$line" == "basalt standalone listening on "* ]] && break
    done
    ended="$(date +%s%N)"
    kill -TERM "$pid"; cat <&7 > /dev/null; exec 7<&-
    wait "$pid" 2>/dev/null || true
    [[ "$line" == "basalt standalone listening on "* ]] || { cat "$work/rt.out.err" >&2; exit 1; }
    echo "$(( (ended - started) / 1000000 ))"
}

# One pe run; prints "ops_per_sec ops update_p50_us update_p99_us cpu_seconds" (CPU of the
# serving processes; update latencies 0 for a workload without updates).
pe_run() {
    local cmd="$1" before after figures
    before=0; for p in "${rs_pids[@]}"; do before="$(echo "$before + $(cpu "$p")" | bc)"; done
    figures="$("$bin" pe "$cmd" --connect "$master_addr" --rows "$run_rows" --clients "$run_clients" --presplit 12 --seed 7 --json \
        | python3 -c 'import json,sys
p=json.load(sys.stdin)["phases"][-1]
u=[o["latency_us"] for o in p["operations"] if o["name"].upper()=="UPDATE"]
print(p["ops_per_sec"], p["ops"], u[0]["p50"] if u else 0, u[0]["p99"] if u else 0)')"
    after=0; for p in "${rs_pids[@]}"; do after="$(echo "$after + $(cpu "$p")" | bc)"; done
    echo "$figures $(echo "$after - $before" | bc)"
}

median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# ycsb_config LABEL [CLIENTS]: the same records (rows x clients) and operations, spread
# over CLIENTS clients (default BENCH_CLIENTS).
ycsb_config() {
    local label="$1"
    run_clients="${2:-$clients}"
    run_rows="$(( (rows * clients + run_clients - 1) / run_clients ))"
    "$bin" pe ycsbLoad --connect "$master_addr" --rows "$run_rows" --clients "$run_clients" --presplit 12 --seed 7 --json > /dev/null
    for cmd in ycsbC ycsbA; do
        local runs=() effs=() p50s=() p99s=()
        for _ in 1 2 3; do
            read -r rate ops p50 p99 secs < <(pe_run "$cmd")
            runs+=("$rate"); p50s+=("$p50"); p99s+=("$p99")
            effs+=("$(echo "scale=1; $ops / $secs" | bc)")
        done
        printf '%-34s %-6s ops/s %10.0f   ops per server CPU-second %10.0f' "$label" "$cmd" \
            "$(printf '%s\n' "${runs[@]}" | median)" "$(printf '%s\n' "${effs[@]}" | median)"
        if [[ "$cmd" == ycsbA ]]; then
            printf '   update p50 %s us p99 %s us' "$(printf '%s\n' "${p50s[@]}" | median)" "$(printf '%s\n' "${p99s[@]}" | median)"
        fi
        printf '\n'
    done
}

case "$what" in
ycsb)
    echo "YCSB through basalt pe --connect: $clients clients x $rows ops, 12 regions, store ${BENCH_STORE:-file}; medians of 3"
    start_standalone; ycsb_config "standalone"
    start_cluster 1 one; ycsb_config "cluster, 1 server"
    start_cluster 3 three; ycsb_config "cluster, 3 servers"
    ycsb_config "cluster, 3 servers, $((clients * 3)) clients" "$((clients * 3))"
    if [[ "${BENCH_STORE:-file}" == s3 ]]; then
        echo "the same S3-compatible server's own PUT latency, measured now:"
        cargo run --release --quiet -p basalt-store --example store_bench --manifest-path "$root/Cargo.toml" -- \
            --url "s3://basalt/putbench-$RANDOM" --endpoint "http://127.0.0.1:$moto_port" 2>/dev/null | tail -n 4
    fi
    ;;
move)
    mb="${BENCH_MOVE_MB:-64}"
    start_cluster 2 move
    # One region of $mb MiB: 1 KiB values, written by one client.
    "$bin" pe sequentialWrite --connect "$master_addr" --rows "$((mb * 1024))" --clients 1 --presplit 0 --json > /dev/null
    cargo run --release --quiet -p basalt-cli --example move_bench --manifest-path "$root/Cargo.toml" -- \
        --connect "$master_addr" --table TestTable --moves "${BENCH_MOVES:-20}"
    ;;
recovery)
    # With BASELINE, each cell runs that binary and this build by turns, BENCH_ROUNDS (2)
    # rounds of BENCH_KILLS / rounds kills each (baseline, this, baseline, this), then
    # p50 and max per binary over all the cell's kills, and this build's over the baseline's.
    baseline="${2:-}"
    cargo build --release --quiet -p basalt-cli --example recovery_bench --manifest-path "$root/Cargo.toml"
    this_bin="$bin"; labels=(this); rounds=1
    [[ -n "$baseline" ]] && { labels=(baseline this); rounds="${BENCH_ROUNDS:-2}"; }
    kills="${BENCH_KILLS:-10}"; per_round="$(( (kills + rounds - 1) / rounds ))"
    logs="${BENCH_LOG_DIR:-$work/logs}"; mkdir -p "$logs"
    for regions in ${BENCH_RECOVERY_REGIONS:-10 100 1000}; do
        for mb in ${BENCH_RECOVERY_MB:-64 256}; do
            for round in $(seq 1 "$rounds"); do
                for label in "${labels[@]}"; do
                    bin="$this_bin"; [[ "$label" == baseline ]] && bin="$baseline"
                    prefix="rec-$label-$round-$regions-$mb"
                    start_cluster 0 "$prefix"
                    mkdir -p "$logs/$prefix"
                    "$root/target/release/examples/recovery_bench" --basalt "$bin" --connect "$master_addr" \
                        --coordinator "$etcd_url" --prefix "/$prefix/" "${store_flags[@]}" \
                        --regions "$regions" --unflushed-mb "$mb" --kills "$per_round" \
                        --bystander-regions "${BENCH_BYSTANDER_REGIONS:-4}" --log-dir "$logs/$prefix" --server-log "${BENCH_SERVER_LOG:-warn}" \
                        2>> "$logs/kills-$label-$regions-$mb" | sed "s/^/$label: /" \
                        || echo "$label: recovery_bench failed, see $logs/kills-$label-$regions-$mb and $logs/$prefix"
                    kill -TERM "$master_pid"; wait "$master_pid" 2>/dev/null || true
                    cp "$work/$prefix-m.out.err" "$logs/$prefix/master.err" 2>/dev/null || true
                    rm -rf "$work/store-$prefix"
                done
            done
            [[ -n "$baseline" ]] && python3 - "$logs" "$regions" "$mb" <<'PY'
import re, statistics, sys
logs, regions, mb = sys.argv[1:]
def figures(label):
    text = open(f"{logs}/kills-{label}-{regions}-{mb}").read()
    took = [float(x) for x in re.findall(r": \S+ → \S+: ([0-9.]+) s", text)]
    w = re.findall(r"writes ([0-9.]+)/s before, ([0-9.]+)/s during recovery \(([0-9.na]+)\), longest pause ([0-9.na]+) s", text)
    def p50(v): v = sorted(v); return v[(len(v) - 1) // 2] if v else float("nan")
    return (len(took), p50(took), max(took, default=float("nan")),
            p50([float(x[0]) for x in w]), p50([float(x[1]) for x in w]), p50([float(x[3]) for x in w]))
b, t = figures("baseline"), figures("this")
for label, f in (("baseline", b), ("this", t)):
    print(f"{label}: {regions} regions, {mb} MiB: {f[0]} kills, recovery p50 {f[1]:.2f} s, max {f[2]:.2f} s; "
          f"writes p50 {f[3]:.0f}/s before, {f[4]:.0f}/s during, longest pause {f[5]:.2f} s")
def ratio(a, b): return f"{a / b:.2f}" if b else "n/a"
print(f"this/baseline: {regions} regions, {mb} MiB: recovery p50 {ratio(t[1], b[1])}, max {ratio(t[2], b[2])}; "
      f"writes during recovery {ratio(t[4], b[4])}, longest pause {ratio(t[5], b[5])}")
PY
        done
    done
    ;;
failover)
    start_etcd; start_store failover
    for signal in TERM KILL; do
    times=()
    for round in 1 2 3; do
        for m in 1 2; do
            "$bin" master --coordinator "$etcd_url" --cluster-prefix "/failover/" "${store_flags[@]}" \
                --port 0 --web-port 0 --log warn > "$work/f$round-m$m.out" 2> "$work/f$round-m$m.out.err" &
            pids+=($!); eval "m${m}_pid=$!"
            eval "m${m}_addr=\"\$(ready \"$work/f$round-m$m.out\" 'basalt master listening on ' \"\$m${m}_pid\")\""
        done
        # The first started is active (it campaigned first): stop it, time the standby's answer.
        sleep 1
        started="$(date +%s%N)"
        kill "-$signal" "$m1_pid"
        until "$bin" shell --connect "$m2_addr" <<< "list" > /dev/null 2>&1; do :; done
        ended="$(date +%s%N)"
        times+=("$(( (ended - started) / 1000000 ))")
        kill -TERM "$m2_pid"; wait "$m1_pid" "$m2_pid" 2>/dev/null || true
    done
    echo "master failover after SIG$signal to the active master, until the standby answers 'list': median $(printf '%s\n' "${times[@]}" | median) ms (runs: ${times[*]} ms)"
    done
    ;;
standalone)
    baseline="${2:?give the baseline basalt binary}"
    echo "standalone, this build against $baseline; medians of 3"
    for label in baseline this; do
        b="$bin"; [[ "$label" == baseline ]] && b="$baseline"
        empty=(); for i in 1 2 3; do empty+=("$(ready_ms "$b" "$work/empty-$label-$i")"); done
        printf '%-10s ready on an empty folder: %s ms\n' "$label" "$(printf '%s\n' "${empty[@]}" | median)"
    done
    for label in baseline this; do
        b="$bin"; [[ "$label" == baseline ]] && b="$baseline"
        rm -rf "$work/standalone"
        start_standalone "" "$b"; ycsb_config "standalone ($label)"
        kill -TERM "${rs_pids[0]}"; wait "${rs_pids[0]}" 2>/dev/null || true
        full=(); for i in 1 2 3; do full+=("$(ready_ms "$b" "$work/standalone")"); done
        printf '%-10s ready on the YCSB folder: %s ms\n' "$label" "$(printf '%s\n' "${full[@]}" | median)"
    done
    ;;
*)
    echo "unknown benchmark $what (ycsb, move, failover, recovery, standalone)" >&2; exit 2 ;;
esac
