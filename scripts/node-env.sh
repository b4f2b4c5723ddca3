#!/usr/bin/env bash
# Installs (once) the pinned npm `hbase` REST client the REST tests drive and the native
# HBase client `hbase-rpc-client` the native-protocol tests drive, into target/node-env; installs Node.js and npm from Debian first when they are missing.
# Idempotent: an install that already has the pinned package is left alone.
# Prints the node_modules folder on its last line.
#
#   scripts/node-env.sh [DIR]    (default: target/node-env)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${1:-${BASALT_NODE_ENV:-$root/target/node-env}}"
pin="hbase@0.6.1 hbase-rpc-client@0.1.15"
stamp="$dir/.basalt-pins"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$pin" && -f "$dir/node_modules/hbase/package.json"
    && -f "$dir/node_modules/hbase-rpc-client/package.json" ]]; then
    echo "$dir/node_modules"
    exit 0
fi
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq >&2
    $sudo apt-get install -y -qq --no-install-recommends nodejs npm >&2
fi
mkdir -p "$dir"
npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error $pin >&2
node -e "require('$dir/node_modules/hbase'); require('$dir/node_modules/hbase-rpc-client')" >&2
echo "$pin" > "$stamp"
echo "$dir/node_modules"
