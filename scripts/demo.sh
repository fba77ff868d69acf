#!/usr/bin/env bash
# `npm run demo`: set up what is missing, build, and open the extension in a real VS Code (code-server) on the demo
# workspace of real MCP servers. Prints the URL to open; Ctrl-C stops everything it started.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/ensure-setup.sh
node esbuild.js
exec node --import tsx scripts/demo.ts "$@"
