#!/usr/bin/env bash
# `make bench`: mqbench's figures beside plain client programs and the brokers' own tools, run
# in the same session (extensions/internal/bench; bin/bench's comment says what it runs).
# Quote the ratios: absolute numbers move with the machine's noise. BENCH="nats soak …" picks
# sections; each starts the broker it needs and stops it again only if it started it.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
source "$repo/scripts/k6env.sh"
(cd "$repo/extensions" && go build -o "$repo/bin/bench" ./cmd/bench)
exec "$repo/bin/bench" "$@"
