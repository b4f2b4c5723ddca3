#!/usr/bin/env bash
# Long chaos runs: the chaos test (crates/basalt-cli/tests/chaos.rs) once per seed, each
# for SECS seconds of faults. CI runs seeds 1 and 3 for 30 s; this is for soaking.
#
#   scripts/chaos.sh [FIRST_SEED] [COUNT] [SECS]     (defaults: 1 10 120)
#
# Each run's output goes to target/chaos/seed-N.log; the script stops at the first
# failing seed and prints its log's tail.
set -euo pipefail
cd "$(dirname "$0")/.."
first=${1:-1}
count=${2:-10}
secs=${3:-120}
mkdir -p target/chaos
cargo test -p basalt-cli --test e2e --no-run
for ((seed = first; seed < first + count; seed++)); do
    log=target/chaos/seed-$seed.log
    echo "seed $seed: ${secs}s of faults (log: $log)"
    if ! BASALT_CHAOS_SEED=$seed BASALT_CHAOS_SECS=$secs \
        cargo test -p basalt-cli --test e2e chaos:: -- --nocapture >"$log" 2>&1; then
        echo "seed $seed FAILED"
        tail -60 "$log"
        exit 1
    fi
    grep -E "^(seed $seed:|single owner:|faults fired:|the cut from etcd is skipped)" "$log" || true
done
echo "all $count seeds passed"
