#!/usr/bin/env bash
# Installs Debian packages the tests need (tmux, chromium, ...) when their command is
# missing. Usage: scripts/apt-install.sh COMMAND[=PACKAGE] ...
# Idempotent: does nothing when every command is already on the PATH.
set -euo pipefail
missing=()
for spec in "$@"; do
  command="${spec%%=*}"
  package="${spec#*=}"
  command -v "$command" >/dev/null 2>&1 || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
