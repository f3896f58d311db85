#!/usr/bin/env bash
# Usage: scripts/brokers/restart.sh BROKER...
# Graceful stop then start, keeping the data dir (durable queues, topics, streams survive):
# for fault and recovery tests. Starts the broker if it was not running.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[[ $# -gt 0 ]] || die "usage: $0 BROKER... (one of: ${ALL_BROKERS[*]})"
need_cmd curl curl
expand_brokers "$@"
for b in "${BROKERS[@]}"; do
	stop_one "$b"
	start_one "$b"
done
