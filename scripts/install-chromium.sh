#!/bin/sh
# Installs Debian's chromium for the web UI browser test, only when it is missing.
# Idempotent: a second run with chromium present does nothing. Exits non-zero when the
# install fails, so that the test calling it fails rather than skips.
set -eu
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo -n"
fi
export DEBIAN_FRONTEND=noninteractive
# Other installs may hold the package lock: wait for it rather than fail.
APT="apt-get -o DPkg::Lock::Timeout=900"
$SUDO $APT update -qq
$SUDO $APT install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
test -x /usr/bin/chromium
