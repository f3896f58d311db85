#!/usr/bin/env bash
# `make reproduce`: the studies mqbench follows, rerun from the shipped scenarios, one section
# per study (scripts/reproduce/<section>.sh), each printing markdown tables of what it measured
# and the ratios between configurations beside the study's (docs/reproductions.md holds a run).
# REPRODUCE="latency commit-logs dissecting amqp softwaremill" (the default) picks sections;
# REPRODUCE_SCALE (1) shortens every run for a smoke test (0.02: minutes instead of hours);
# REPRODUCE_START=0 uses only brokers already running; amqp.sh and softwaremill.sh say what
# else they read. The tables also go to .cache/reproduce/report-<UTC time>.md.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
[[ -x $repo/bin/k6 ]] || "$repo/scripts/build.sh"
mkdir -p "$repo/.cache/reproduce"
report="$repo/.cache/reproduce/report-$(date -u +%Y%m%dT%H%M%SZ).md"
{
  echo "# make reproduce, $(date -u +%Y-%m-%dT%H:%MZ): REPRODUCE_SCALE=${REPRODUCE_SCALE:-1}, $(nproc) cores"
  for section in ${REPRODUCE:-latency commit-logs dissecting amqp softwaremill}; do
    [[ -x $repo/scripts/reproduce/$section.sh ]] || { echo "error: no section $section (scripts/reproduce/)" >&2; exit 2; }
    "$repo/scripts/reproduce/$section.sh"
  done
} | tee "$report"
echo "tables in $report" >&2
