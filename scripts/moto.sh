#!/usr/bin/env bash
# The S3-compatible server for the object-store tests: moto's server (a mock of AWS S3),
# installed pinned into the project's Python venv and run one request at a time so that its
# conditional PUT is atomic (scripts/moto_server_serial.py says why).
# Idempotent: installing again, or starting a server that runs, changes nothing.
#
#   scripts/moto.sh install                  installs moto[server] into the venv; prints moto_server's path
#   scripts/moto.sh start PORT [BUCKET]      runs moto_server on 127.0.0.1:PORT in the background, waits
#                                            until it answers, creates BUCKET (default: basalt)
#   scripts/moto.sh stop [PORT]              stops the server on PORT (every server this script started)
#
# State (pid and log per port) is kept in target/moto/. The venv is scripts/python-env.sh's
# (BASALT_PYTHON_VENV, default target/python-venv).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${BASALT_PYTHON_VENV:-$root/target/python-venv}"
state="$root/target/moto"
pin="moto[server]==5.2.5"
start_timeout_s=30

die() { echo "moto.sh: $*" >&2; exit 1; }

install() {
    mkdir -p "$state"
    # One installer at a time (parallel test binaries all ask).
    exec 9>"$state/install.lock"
    flock 9
    local stamp="$venv/.basalt-moto-pin"
    if [[ -x "$venv/bin/moto_server" && -f "$stamp" && "$(cat "$stamp")" == "$pin" ]]; then
        echo "$venv/bin/moto_server"
        return
    fi
    local python
    python="$("$root/scripts/python-env.sh" "$venv" | tail -n 1)"
    "$python" -m pip install --quiet --disable-pip-version-check "$pin" >&2
    [[ -x "$venv/bin/moto_server" ]] || die "pip installed $pin but $venv/bin/moto_server is missing"
    echo "$pin" > "$stamp"
    echo "$venv/bin/moto_server"
}

# The pid recorded for PORT, if that process is alive and is a moto server.
running_pid() {
    local pidfile="$state/$1.pid" pid
    [[ -f "$pidfile" ]] || return 1
    pid="$(cat "$pidfile")"
    [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 1
    grep -q moto_server "/proc/$pid/cmdline" 2>/dev/null || return 1
    echo "$pid"
}

answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start() {
    local port="${1:?usage: moto.sh start PORT [BUCKET]}" bucket="${2:-basalt}"
    [[ "$port" =~ ^[0-9]+$ ]] || die "PORT must be a number, not $port"
    install >/dev/null
    if ! running_pid "$port" >/dev/null; then
        answers "$port" && die "port $port is taken by another process"
        # Detached from the caller's output, so a caller reading it is not held open.
        # moto_server's own app, one request at a time (see moto_server_serial.py: moto's
        # conditional PUT is not atomic under concurrent requests).
        nohup "$venv/bin/python" "$root/scripts/moto_server_serial.py" 127.0.0.1 "$port" \
            </dev/null >"$state/$port.log" 2>&1 &
        echo $! > "$state/$port.pid"
    fi
    local deadline=$((SECONDS + start_timeout_s)) pid
    pid="$(cat "$state/$port.pid")"
    until answers "$port"; do
        kill -0 "$pid" 2>/dev/null || die "moto_server on port $port exited: $(tail -n 5 "$state/$port.log")"
        (( SECONDS < deadline )) || die "moto_server on port $port did not answer within ${start_timeout_s}s"
        sleep 0.1
    done
    # Creating a bucket that exists is answered with an error we ignore.
    "$venv/bin/python" - "$port" "$bucket" <<'PY'
import sys, urllib.request, urllib.error
port, bucket = sys.argv[1], sys.argv[2]
request = urllib.request.Request(f"http://127.0.0.1:{port}/{bucket}", method="PUT")
try:
    urllib.request.urlopen(request, timeout=10).read()
except urllib.error.HTTPError as e:
    if e.code != 409:
        sys.exit(f"moto.sh: creating bucket {bucket} failed: HTTP {e.code} {e.read()[:200]!r}")
PY
    echo "http://127.0.0.1:$port"
}

stop_one() {
    local port="$1" pid
    if pid="$(running_pid "$port")"; then
        kill "$pid"
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
    fi
    rm -f "$state/$port.pid" "$state/$port.log"
}

stop() {
    if [[ $# -gt 0 ]]; then
        stop_one "$1"
        return
    fi
    shopt -s nullglob
    for pidfile in "$state"/*.pid; do
        stop_one "$(basename "$pidfile" .pid)"
    done
}

command="${1:-}"
shift || true
case "$command" in
    install) install ;;
    start) start "$@" ;;
    stop) stop "$@" ;;
    *) die "usage: moto.sh install | start PORT [BUCKET] | stop [PORT]" ;;
esac
