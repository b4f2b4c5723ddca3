#!/bin/bash
# Alternating before/after runs of basalt pe --connect ycsbE and ycsbC (4 clients) on a copy
# of one pristine 100k-record folder loaded by the before binary (each run gets a fresh copy:
# the after binary's log format is newer). Usage: bench-scan-path.sh BEFORE AFTER ROUNDS OPS
set -u
BEFORE=$1; AFTER=$2; ROUNDS=${3:-3}; OPS=${4:-25000}
BASE=/tmp/scanbench; PRISTINE=$BASE/pristine; DATA=$BASE/data; PORT=16400; WEB=16410
OUT=$BASE/results.txt
mkdir -p $BASE
start() {
  "$1" standalone --data-dir $DATA --port $PORT --web-port $WEB --no-thrift --no-rest --no-hbase --log warn > $BASE/server.out 2>$BASE/server.err &
  SERVER=$!
  for i in $(seq 1 300); do grep -q "standalone listening" $BASE/server.out 2>/dev/null && return; sleep 0.2; done
  echo "server did not start"; cat $BASE/server.err; exit 1
}
stop() { kill -TERM $SERVER; wait $SERVER; }
PE_ARGS="--connect 127.0.0.1:$PORT --clients 4 --seed 7"
if [ ! -d $PRISTINE ]; then
  rm -rf $DATA; start "$BEFORE"
  "$BEFORE" pe $PE_ARGS --rows 25000 ycsbLoad | tail -3
  stop; cp -a $DATA $PRISTINE
fi
for round in $(seq 1 $ROUNDS); do
  for which in before after; do
    bin=$BEFORE; [ $which = after ] && bin=$AFTER
    rm -rf $DATA; cp -a $PRISTINE $DATA
    start "$bin"
    for w in ycsbE ycsbC; do
      cpu0=$(awk '{print $14+$15}' /proc/$SERVER/stat)
      line=$("$BEFORE" pe $PE_ARGS --rows $OPS --json $w)
      cpu1=$(awk '{print $14+$15}' /proc/$SERVER/stat)
      echo "$line" | python3 -c "
import json,sys
r=json.load(sys.stdin); p=r['phases'][-1]
cpu=($cpu1-$cpu0)/100.0
print('$which round $round $w ops %d secs %.2f ops/s %.1f server_cpu_s %.2f ops/cpu_s %.1f load %s' % (p['ops'], p['elapsed_secs'], p['ops_per_sec'], cpu, p['ops']/cpu, open('/proc/loadavg').read().split()[0]))
" | tee -a $OUT
    done
    stop
  done
done
