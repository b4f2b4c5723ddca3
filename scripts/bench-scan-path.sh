#!/bin/bash
# Alternating before/after runs of basalt pe --connect ycsbE and ycsbC, 4 clients, after a
# 100k-record ycsbLoad, on one data folder. Usage: run.sh BEFORE AFTER ROUNDS OPS
set -u
BEFORE=$1; AFTER=$2; ROUNDS=${3:-3}; OPS=${4:-25000}
DATA=/tmp/scanbench/data; PORT=16400; WEB=16410
OUT=/tmp/scanbench/results.txt
start() {
  "$1" standalone --data-dir $DATA --port $PORT --web-port $WEB --no-thrift --no-rest --no-hbase --log warn > /tmp/scanbench/server.out 2>/tmp/scanbench/server.err &
  SERVER=$!
  for i in $(seq 1 300); do grep -q "listening on" /tmp/scanbench/server.out 2>/dev/null && grep -q "standalone listening" /tmp/scanbench/server.out && return; sleep 0.2; done
  echo "server did not start"; cat /tmp/scanbench/server.err; exit 1
}
stop() { kill -TERM $SERVER; wait $SERVER; }
PE_ARGS="--connect 127.0.0.1:$PORT --server-metrics http://127.0.0.1:$WEB/metrics --clients 4 --seed 7"
if [ ! -d $DATA ]; then
  start "$AFTER"
  "$AFTER" pe $PE_ARGS --rows 25000 ycsbLoad | tee -a $OUT
  stop
fi
for round in $(seq 1 $ROUNDS); do
  for which in before after; do
    bin=$BEFORE; [ $which = after ] && bin=$AFTER
    start "$bin"
    for w in ycsbE ycsbC; do
      n=$OPS
      # the after client reads the server's CPU from either server (/proc of the server's pid as a fallback for the before one)
      cpu0=$(awk '{print $14+$15}' /proc/$SERVER/stat)
      line=$("$AFTER" pe $PE_ARGS --rows $n --json $w)
      cpu1=$(awk '{print $14+$15}' /proc/$SERVER/stat)
      echo "$line" | python3 -c "
import json,sys
r=json.load(sys.stdin); p=r['phases'][-1]
cpu=($cpu1-$cpu0)/100.0
print('$which round $round $w ops %d secs %.2f ops/s %.1f server_cpu_s %.2f ops/cpu_s %.1f' % (p['ops'], p['elapsed_secs'], p['ops_per_sec'], cpu, p['ops']/cpu))
" | tee -a $OUT
    done
    stop
  done
done
