#!/usr/bin/env bash
# `make reproduce`: the studies mqbench follows, rerun from the shipped scenarios, one section
# per study (extensions/internal/reproduce), each printing Markdown tables of what it measured
# and the ratios between configurations beside the study's (docs/reproductions.md holds a run).
# REPRODUCE="latency commit-logs dissecting amqp softwaremill" (the default) picks studies;
# REPRODUCE_SCALE (1) shortens every run for a smoke test (0.02: minutes instead of hours);
# REPRODUCE_START=0 uses only brokers already running; the amqp and softwaremill studies'
# comments say what else they read. The tables also go to .cache/reproduce/report-<UTC time>.md.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
source "$repo/scripts/k6env.sh"
[[ -x $repo/bin/k6 ]] || "$repo/scripts/build.sh"
(cd "$repo/extensions" && go build -o "$repo/bin/bench" ./cmd/bench)
exec "$repo/bin/bench" reproduce "$@"
