#!/usr/bin/env bash
# Makes Debian's Prometheus (prometheus + promtool) available for the metrics integration test, which runs its own
# instance on its own port and storage directory. Cheap when already installed. Exit 3 when it cannot be installed
# here (no apt-get, or not root): the test then skips with that reason.
set -euo pipefail
if [ -x /usr/bin/prometheus ] && [ -x /usr/bin/promtool ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "[setup] prometheus: apt-get is unavailable; install Prometheus to run the metrics integration test" >&2
  exit 3
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
  else
    echo "[setup] prometheus: not root and no password-less sudo; run: apt-get install -y prometheus" >&2
    exit 3
  fi
fi
echo "[setup] installing prometheus (apt)" >&2
export DEBIAN_FRONTEND=noninteractive
if ! "${sudo[@]}" apt-get install -y -qq --no-install-recommends prometheus >/dev/null; then
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends prometheus >/dev/null
fi
# The package starts a system service on :9090 where systemd runs; the tests use their own instance and ports, so
# switch it off rather than leave a second Prometheus scraping nothing.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet prometheus 2>/dev/null; then
  "${sudo[@]}" systemctl disable --now prometheus >/dev/null 2>&1 || true
fi
