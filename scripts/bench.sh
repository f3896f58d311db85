#!/usr/bin/env bash
# `make bench`: mqbench's figures beside plain client programs and the brokers' own tools,
# run in the same session. Quote the ratios: absolute numbers move with the machine's noise.
# BENCH="nats" picks sections.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
for section in ${BENCH:-nats}; do
  "$repo/scripts/bench/$section.sh"
done
