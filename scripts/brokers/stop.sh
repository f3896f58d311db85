#!/usr/bin/env bash
# Usage: scripts/brokers/stop.sh BROKER... | all   (no argument = all)
# Stops each broker these scripts started (by the pid in its pid file: graceful first, SIGKILL
# after STOP_TIMEOUT=30 s) and removes its data dir. Logs are kept.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

expand_brokers "$@"
for b in "${BROKERS[@]}"; do stop_one "$b" && rm -rf "$(data_dir "$b")"; done
