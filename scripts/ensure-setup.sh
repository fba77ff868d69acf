#!/usr/bin/env bash
# Makes a fresh clone ready for `npm test` and `npm run demo`: npm packages when missing or stale, then the headless
# VS Code (code-server, Chromium) the end-to-end suite and the demo run in. Cheap when everything is already there.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "[setup] installing npm packages (npm ci)"
  npm ci --no-audit --no-fund
fi
bash scripts/setup-code-server.sh
bash scripts/ensure-prometheus.sh || echo "[setup] prometheus unavailable: the metrics integration test will skip"
