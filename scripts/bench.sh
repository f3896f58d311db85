#!/usr/bin/env bash
# `make bench`: mqbench's figures beside plain client programs and the brokers' own tools,
# run in the same session. Quote the ratios: absolute numbers move with the machine's noise.
# BENCH="nats soak kafka rabbitmq max artemis replication nsq postgres pulsar" (the default; also: distributed) picks sections; each starts the broker it needs and
# stops it again only if it started it, so one benchmarked broker runs at a time.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
for section in ${BENCH:-nats soak kafka rabbitmq max artemis replication nsq postgres pulsar}; do
  "$repo/scripts/bench/$section.sh"
done
