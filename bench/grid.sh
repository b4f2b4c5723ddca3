#!/usr/bin/env bash
# The side-by-side bench over a grid of settings: each (compression, key layout) run
# RUNS times (Basalt and RocksDB only), every run's report kept under OUT, then one table of
# Basalt/RocksDB ratios (median of the runs) per workload and setting.
#
#   bench/grid.sh [--records N] [--runs N] [--out DIR] [--grid "none:none lz4:none ..."]
#
# Settings are compression:encoding pairs (compression none|lz4; encoding
# none|prefix|fast_diff, see `--help` of the bench). Extra flags after `--` go to every run.
set -euo pipefail
cd "$(dirname "$0")"
records=50000 runs=3 out=../target/bench-grid grid="none:none lz4:none none:prefix none:fast_diff lz4:fast_diff"
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --records) records=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --grid) grid=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "unknown flag $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
cargo build --release --quiet
bin=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')/release/basalt-bench
for setting in $grid; do
  compression=${setting%%:*} encoding=${setting#*:}
  for run in $(seq 1 "$runs"); do
    report="$out/$records-$compression-$encoding-$run.txt"
    echo "== $records records, compression $compression, encoding $encoding, run $run/$runs -> $report" >&2
    "$bin" --records "$records" --engines basalt,rocksdb --compression "$compression" \
      --encoding "$encoding" --encodings-table no "${extra[@]}" > "$report"
  done
done
# One row per workload: the median Basalt/RocksDB ratio of each setting's runs.
awk -v grid="$grid" -v runs="$runs" -v records="$records" '
  BEGIN { n = split(grid, settings, " ") }
  FNR == 1 { stop = 0; split(FILENAME, parts, "/"); name = parts[length(parts)]; sub(/\.txt$/, "", name)
             split(name, f, "-"); setting = f[2] ":" f[3] }
  /machine limits measured/ { stop = 1 }
  !stop && /^\| / && $0 !~ /workload/ {
    split($0, cols, "|"); w = cols[2]; gsub(/^ +| +$/, "", w); r = cols[length(cols) - 1]
    gsub(/[ x]/, "", r); if (r == "" || r == "-") next
    if (!(w in seen)) { seen[w] = 1; order[++rows] = w }
    k = w SUBSEP setting; vals[k] = vals[k] " " r
  }
  END {
    printf "\nBasalt/RocksDB, %s records, median of %s runs (compression:encoding)\n\n| workload |", records, runs
    for (i = 1; i <= n; i++) printf " %s |", settings[i]; printf "\n|---|"
    for (i = 1; i <= n; i++) printf "---|"; printf "\n"
    for (j = 1; j <= rows; j++) {
      printf "| %s |", order[j]
      for (i = 1; i <= n; i++) {
        m = split(vals[order[j] SUBSEP settings[i]], v, " ")
        if (m == 0) { printf " - |"; continue }
        for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (v[b] + 0 < v[a] + 0) { t = v[a]; v[a] = v[b]; v[b] = t }
        printf " %.2fx |", v[int((m + 1) / 2)]
      }
      printf "\n"
    }
  }' "$out"/"$records"-*.txt
