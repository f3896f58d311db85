#!/usr/bin/env bash
# Installs Debian's chromium (headless screenshots of exported k6 web dashboard reports,
# docs/web-dashboard.md) if /usr/bin/chromium is missing. Needs root and apt-get.
set -euo pipefail
if [[ -x /usr/bin/chromium ]]; then
  echo "chromium: $(/usr/bin/chromium --version 2>/dev/null || echo present)" >&2
  exit 0
fi
command -v apt-get >/dev/null || { echo "chromium: apt-get is required (Debian or Ubuntu)" >&2; exit 1; }
sudo=()
[[ $(id -u) -eq 0 ]] || sudo=(sudo)
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y chromium
echo "chromium: $(/usr/bin/chromium --version)" >&2
