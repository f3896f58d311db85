#!/usr/bin/env bash
# `make bench`: mqbench's figures beside plain client programs and the brokers' own tools,
# run in the same session. Quote the ratios: absolute numbers move with the machine's noise.
# BENCH="nats soak kafka rabbitmq max artemis replication nsq postgres pulsar rocketmq" (the default; also: distributed, pacing) picks sections; each starts the broker it needs and
# stops it again only if it started it, so one benchmarked broker runs at a time.
# At the end, one table of every section's headline ratio (the headline lines of bin/bench),
# printed and written to .cache/bench/summary.md; a section that failed is named there and the
# script exits 1 after the others ran.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
source "$repo/scripts/bench/lib.sh"
# The sections written in Go (extensions/internal/bench: nats, pacing, soak, distributed,
# replication, kafka, rabbitmq, nsq, postgres, artemis, max) run through bin/bench; the others are
# scripts/bench/<section>.sh.
(cd "$repo/extensions" && go build -o "$repo/bin/bench" ./cmd/bench)
logs=() failed=()
for section in ${BENCH:-nats soak kafka rabbitmq max artemis replication nsq postgres pulsar rocketmq}; do
  log="$bench_dir/section-$section.log"
  logs+=("$log")
  if [[ -e $repo/scripts/bench/$section.sh ]]; then
    "$repo/scripts/bench/$section.sh" | tee "$log" || failed+=("$section")
  else
    "$repo/bin/bench" "$section" | tee "$log" || failed+=("$section")
  fi
done
{
  echo "# make bench: headline ratios ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg))"
  echo
  bench_summary "${logs[@]}" || true
  [[ ${#failed[@]} == 0 ]] || printf '\nfailed sections: %s\n' "${failed[*]}"
} >"$bench_dir/summary.md"
echo
cat "$bench_dir/summary.md"
echo "(written to $bench_dir/summary.md)"
[[ ${#failed[@]} == 0 ]]
