#!/usr/bin/env bash
# Usage: scripts/brokers/pause.sh BROKER...     (resume.sh BROKER... undoes it)
# Stalls each broker (SIGSTOP: the process keeps its sockets and state but runs nothing, the
# "CTRL+Z test"): for tests that check what a run reports about a broker that stops answering.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[[ $# -gt 0 ]] || die "usage: $0 BROKER... (one of: ${ALL_BROKERS[*]})"
expand_brokers "$@"
for b in "${BROKERS[@]}"; do signal_one "$b" STOP; done
