#!/usr/bin/env bash
# A 3-member etcd cluster on 127.0.0.1 for tests and pseudo-distributed runs.
#
#   scripts/etcd.sh install               Debian's etcd-server and etcd-client, when `etcd`
#                                         is not on the PATH (does nothing otherwise).
#   scripts/etcd.sh start DIR [BASEPORT] [HOST]
#                                         starts the members that are not running, waits
#                                         until all three are healthy, prints the client
#                                         endpoints (comma-separated) on stdout. With HOST
#                                         (an address of this machine) each member also
#                                         takes clients on HOST at its client port (tests
#                                         reach it from a network namespace).
#   scripts/etcd.sh stop DIR              stops every member (TERM, then KILL after 5 s).
#   scripts/etcd.sh leader DIR            prints the number (1..3) of the current leader.
#   scripts/etcd.sh endpoints DIR         prints the client endpoints.
#
# Every command is idempotent. `start` on a DIR whose cluster already ran restarts the
# stopped members on their old data (so it doubles as "restart member N after a kill").
#
# Layout of DIR:   member i (1..3) keeps its data in DIR/e<i>/, its log in DIR/e<i>.log,
#                  its pid in DIR/e<i>.pid; DIR/baseport remembers the ports, DIR/host the
#                  extra client address (when given).
# Ports:           member i listens for clients on BASEPORT + 2(i-1) and for peers on
#                  BASEPORT + 2(i-1) + 1 (default BASEPORT 12379: 12379/12380, 12381/12382,
#                  12383/12384).
#
# Each data dir preallocates 64 MB WAL segments (about 123 MB per member): put DIR on a
# tmpfs (/dev/shm) for tests.
set -euo pipefail

export ETCDCTL_API=3

usage() {
  sed -n '2,16p' "$0" >&2
  exit 2
}

install() {
  if command -v etcd >/dev/null 2>&1 && command -v etcdctl >/dev/null 2>&1; then
    return 0
  fi
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo -n"
  export DEBIAN_FRONTEND=noninteractive
  # Other installs may hold the package lock: wait for it rather than fail.
  local apt="apt-get -o DPkg::Lock::Timeout=900"
  $sudo $apt update -qq
  # Debian's package does not start the service in a container (policy-rc.d denies it);
  # nothing needs stopping afterwards.
  $sudo $apt install -y -qq --no-install-recommends etcd-server etcd-client >/dev/null
  command -v etcd >/dev/null
}

client_port() { echo $(($1 + 2 * ($2 - 1))); }
peer_port() { echo $(($1 + 2 * ($2 - 1) + 1)); }

endpoints_of() {
  local base=$1 i out=""
  for i in 1 2 3; do
    out="${out:+$out,}http://127.0.0.1:$(client_port "$base" "$i")"
  done
  echo "$out"
}

baseport_of() {
  local dir=$1
  [ -f "$dir/baseport" ] || { echo "etcd.sh: no cluster in $dir (no $dir/baseport)" >&2; exit 1; }
  cat "$dir/baseport"
}

# Whether member i of DIR runs: its pid file names a live etcd process.
running() {
  local dir=$1 i=$2 pid
  [ -f "$dir/e$i.pid" ] || return 1
  pid=$(cat "$dir/e$i.pid")
  [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "etcd --name e$i "
}

start() {
  local dir=$1 base=${2:-} host=${3:-}
  command -v etcd >/dev/null 2>&1 || { echo "etcd.sh: etcd is not installed (run: $0 install)" >&2; exit 1; }
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if [ -f "$dir/baseport" ]; then
    local old
    old=$(cat "$dir/baseport")
    if [ -n "$base" ] && [ "$base" != "$old" ]; then
      echo "etcd.sh: $dir already holds a cluster on base port $old, not $base" >&2
      exit 1
    fi
    base=$old
  fi
  base=${base:-12379}
  echo "$base" >"$dir/baseport"
  if [ -n "$host" ]; then
    echo "$host" >"$dir/host"
  elif [ -f "$dir/host" ]; then
    host=$(cat "$dir/host")
  fi
  local cluster="" i
  for i in 1 2 3; do
    cluster="${cluster:+$cluster,}e$i=http://127.0.0.1:$(peer_port "$base" "$i")"
  done
  for i in 1 2 3; do
    running "$dir" "$i" && continue
    local client peer
    client=http://127.0.0.1:$(client_port "$base" "$i")
    peer=http://127.0.0.1:$(peer_port "$base" "$i")
    local listen=$client
    [ -n "$host" ] && listen="$client,http://$host:$(client_port "$base" "$i")"
    # --auto-compaction-*: etcd keeps every revision of every key until compacted, so a
    #   store that changes steadily (manifests, assignments) grows without bound. Keeping
    #   the last 1000 revisions lets a watcher that reconnects soon resume where it was;
    #   one further behind gets `Compacted` and lists again, which Basalt handles.
    # --quota-backend-bytes: a bound on the backend database. Past it etcd raises its
    #   NOSPACE alarm and refuses writes (Basalt sees `Refused`), instead of growing until
    #   the disk (here a tmpfs, that is memory) is full. 256 MiB is ample for test
    #   clusters; production sizes it to the metadata (etcd's default is 2 GiB).
    # Heartbeat 100 ms and election timeout 1000 ms are etcd's defaults: a killed leader
    # is replaced in about 1.75 s (measured), well inside a 10 s lease.
    # stdin, stdout and stderr are redirected so that the caller's pipes close when this
    # script exits.
    etcd --name "e$i" --data-dir "$dir/e$i" \
      --listen-client-urls "$listen" --advertise-client-urls "$client" \
      --listen-peer-urls "$peer" --initial-advertise-peer-urls "$peer" \
      --initial-cluster "$cluster" --initial-cluster-token "basalt-$base" \
      --initial-cluster-state new \
      --auto-compaction-mode=revision --auto-compaction-retention=1000 \
      --quota-backend-bytes=$((256 * 1024 * 1024)) \
      </dev/null >>"$dir/e$i.log" 2>&1 &
    echo $! >"$dir/e$i.pid"
  done
  wait_healthy "$dir" "$base"
  endpoints_of "$base"
}

wait_healthy() {
  local dir=$1 base=$2 deadline=$((SECONDS + 30))
  local eps
  eps=$(endpoints_of "$base")
  until etcdctl --endpoints="$eps" --command-timeout=2s endpoint health >/dev/null 2>&1; do
    if [ $SECONDS -ge $deadline ]; then
      echo "etcd.sh: the cluster in $dir is not healthy after 30 s; logs: $dir/e*.log" >&2
      etcdctl --endpoints="$eps" --command-timeout=2s endpoint health >&2 || true
      exit 1
    fi
    local i
    for i in 1 2 3; do
      running "$dir" "$i" || { echo "etcd.sh: member e$i exited; its log:" >&2; tail -20 "$dir/e$i.log" >&2; exit 1; }
    done
    sleep 0.2
  done
}

stop() {
  local dir=$1 i pid
  [ -d "$dir" ] || return 0
  for i in 1 2 3; do
    running "$dir" "$i" && kill -TERM "$(cat "$dir/e$i.pid")" 2>/dev/null || true
  done
  local deadline=$((SECONDS + 5))
  for i in 1 2 3; do
    while running "$dir" "$i" && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
    if running "$dir" "$i"; then
      pid=$(cat "$dir/e$i.pid")
      kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$dir/e$i.pid"
  done
}

leader() {
  local dir=$1 base i line
  base=$(baseport_of "$dir")
  for i in 1 2 3; do
    running "$dir" "$i" || continue
    # Simple format: endpoint, id, version, db size, is leader, is learner, raft term, ...
    line=$(etcdctl --endpoints="http://127.0.0.1:$(client_port "$base" "$i")" \
      --command-timeout=2s endpoint status -w simple 2>/dev/null) || continue
    if [ "$(echo "$line" | cut -d, -f5 | tr -d ' ')" = "true" ]; then
      echo "$i"
      return 0
    fi
  done
  echo "etcd.sh: no running member of $dir is the leader" >&2
  exit 1
}

[ $# -ge 1 ] || usage
case "$1" in
  install) install ;;
  start) [ $# -ge 2 ] || usage; start "$2" "${3:-}" "${4:-}" ;;
  stop) [ $# -ge 2 ] || usage; stop "$2" ;;
  leader) [ $# -ge 2 ] || usage; leader "$2" ;;
  endpoints) [ $# -ge 2 ] || usage; endpoints_of "$(baseport_of "$2")" ;;
  *) usage ;;
esac
