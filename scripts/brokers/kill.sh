#!/usr/bin/env bash
# Usage: scripts/brokers/kill.sh BROKER...
# Crashes each broker (SIGKILL, no graceful shutdown) and keeps its data: for fault tests.
# Bring it back with start.sh or restart.sh.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[[ $# -gt 0 ]] || die "usage: $0 BROKER... (one of: ${ALL_BROKERS[*]})"
expand_brokers "$@"
for b in "${BROKERS[@]}"; do kill_one "$b"; done
