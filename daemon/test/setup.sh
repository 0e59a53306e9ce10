#!/bin/sh
# Installs what the daemon's tests need beyond npm: bubblewrap (`bwrap`), the
# sandbox run_command uses on Linux. Idempotent: nothing happens when bwrap
# is already there. Debian/Ubuntu only (apt-get); as root or through sudo.
# Under CI a failed install fails the run: the sandbox tests must not skip
# there. Elsewhere it only warns, and those tests skip with the reason.
#
#   sh daemon/test/setup.sh
set -eu

log() { echo "[daemon test setup] $*" >&2; }

# Not Linux: no bubblewrap to install (the daemon falls back, the tests say so).
[ "$(uname -s)" = Linux ] || exit 0
command -v bwrap >/dev/null 2>&1 && exit 0

in_ci() { [ -n "${CI:-}" ] && [ "${CI:-}" != false ] && [ "${CI:-}" != 0 ]; }

give_up() {
  if in_ci; then
    log "$1: cannot install bubblewrap, and CI needs it"
    exit 1
  fi
  log "$1: bubblewrap not installed; the sandbox tests will skip"
  exit 0
}

command -v apt-get >/dev/null 2>&1 || give_up "no apt-get"
SUDO=""
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null 2>&1 || give_up "not root and no sudo"
  # -n: never wait for a password in a test run.
  SUDO="sudo -n"
fi
log "apt-get install bubblewrap"
$SUDO apt-get update -qq >&2 || give_up "apt-get update failed"
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >&2 ||
  give_up "apt-get install failed"
